"""Every threshold the behaviour detectors apply, in one place, each with its published basis.

Where a number is this project's judgement rather than a published figure, the comment says so
and says what it was checked against (the real tracks of tests/behaviour/real_tracks.py).
"""

from __future__ import annotations

# Bump when a rule or a threshold below changes: stored events say which rules found them.
DETECTOR_VERSION = "behaviour-detectors/1"

# --- Shared kinematics ----------------------------------------------------------------------------

KNOT_KM_H = 1.852  # 1 international nautical mile = 1,852 m (exact, by definition)
EARTH_RADIUS_KM = 6371.0088  # IUGG mean Earth radius
# GPS position noise subtracted from the distance between two reports before an implied speed is
# taken, so that a moored ship's jitter does not read as movement. Civil GPS horizontal error is
# about 5-10 m (95 %) (US GPS Standard Positioning Service Performance Standard, 5th ed. 2020);
# 30 m also absorbs antenna offset and AIS position rounding (1/10,000 minute). Our judgement.
POSITION_NOISE_KM = 0.03
# A ship "under way" / "stopped": GFW's vessel-presence and port-visit work treats < ~1 kn as not
# under way at sea; AIS nav status "under way using engine" ships rarely report < 1 kn.
UNDER_WAY_KN = 1.0

# --- Dark periods (AIS transmission gaps) --------------------------------------------------------

# Global Fishing Watch, "AIS disabling events" (Welch et al. 2022, Science Advances 8(44):
# eabq2109): gaps of at least 12 hours between consecutive positions. Shorter gaps are too often
# reception holes in terrestrial coverage.
DARK_GAP_HOURS = 12.0
# Under way before the gap: the ship's speed at its last report (SOG, else implied) >= 1 kn ...
DARK_SPEED_BEFORE_KN = UNDER_WAY_KN
# ... and it reappeared at least this far away: a ship that went silent while berthing and came back
# at the same spot was moored, not under way, through the gap (the NY Harbor week holds dozens of
# such gaps: SOG-less berthing manoeuvres, back within metres 15-60 h later). Our judgement: 1 nm in
# 12 h is an average under 0.1 kn, i.e. stopped.
DARK_MIN_DISPLACEMENT_KM = 1.0 * KNOT_KM_H
# Or, whatever its speed before, it moved across the gap at an average of at least this: it sailed
# while dark (e.g. went silent at anchor and reappeared far away).
DARK_IMPLIED_SPEED_KN = 1.0
# A gap that starts and ends within PORT_RADIUS_KM of a catalogued port is reported at LOW severity:
# harbour craft and ships at berth often switch AIS off there (Welch et al. 2022 count only gaps
# starting > 50 nm from shore for this reason), but a silent port stay is still worth showing.
DARK_IN_PORT_SEVERITY = "low"
# Reports averaged for "speed before the gap" when SOG is absent (implied speed over them).
DARK_SPEED_WINDOW_REPORTS = 5

# --- Ship-to-ship meetings (encounters) ----------------------------------------------------------

# Miller et al. 2018, "Identifying Global Patterns of Transshipment Behavior" (Frontiers in Marine
# Science 5:240) and Global Fishing Watch's encounter events: two vessels within 500 m of each
# other, both at < 2 knots, for at least 2 hours, at least 10 km from a port or anchorage.
STS_DISTANCE_KM = 0.5
STS_MAX_SPEED_KN = 2.0
STS_MIN_HOURS = 2.0
STS_MIN_PORT_DISTANCE_KM = 10.0
# Time slot for comparing vessels (Miller et al. interpolate tracks to 10-minute steps).
STS_SLOT_SECONDS = 600
# A meeting continues across up to this many slots without a joint report (reception holes);
# our judgement: 3 slots = 30 minutes, at < 2 kn a ship moves at most 1.9 km in that time.
STS_MAX_MISSING_SLOTS = 3

# --- Spoofing and position errors ----------------------------------------------------------------

# Implied speed no merchant ship reaches: the fastest large merchant ships (high-speed craft under
# the IMO HSC Code, fast ferries) stay below ~45 kn, container ships below ~25 kn. 50 kn is a
# common cut-off in AIS track cleaning; the exact figure is our judgement above those speeds.
JUMP_SPEED_KN = 50.0
# The jump must exceed GPS noise and AIS time rounding: a 1 km displacement cannot be a GPS error
# (<< 100 m) and at 50 kn takes 39 s, longer than the 1-s timestamp resolution can distort.
JUMP_MIN_DISTANCE_KM = 1.0
# One MMSI used by two ships at once: at least this many implausible jumps in the frame, and the
# reports split (greedily, by reachability) into two tracks of at least SHARED_MIN_POINTS_PER_TRACK
# reports, with at least SHARED_MIN_ALTERNATIONS implausible steps crossing between them and at most
# SHARED_MAX_JUMP_FRACTION_WITHIN of either track's own steps implausible. Our judgement, checked on
# US_coastal (11 shared MMSIs found, each verified by looking; 20 of 20 built ones found).
SHARED_MIN_JUMPS = 4
SHARED_MIN_POINTS_PER_TRACK = 10
SHARED_MIN_ALTERNATIONS = 4
SHARED_MAX_JUMP_FRACTION_WITHIN = 0.1  # of each split track's steps (the split must explain the jumps)

# On land: the 1 km land mask (global-land-mask, from GLOBCOVER 2009) draws coasts to ~1 km and
# fills narrow rivers and dredged channels as land. A position counts as clearly on land only if the
# mask says land there AND at 8 points on a ring of this radius around it (so it is > 3 km inland
# of the mask's coast, beyond its cell error). Checked on the real tracks: see the tests.
ON_LAND_RING_KM = 3.0
ON_LAND_RING_BEARINGS = 8
# The mask also counts lakes (the Great Lakes) and rivers as land, where ships sail every day: on
# the real tracks "clearly on land" alone flags 99 of US_coastal's 1,185 vessels and 385 of the
# MarineCadastre extract's. So a run of on-land reports is reported only when the ship jumped onto
# it or off it at an implausible speed (JUMP_SPEED_KN): 0 false positives on all real files.
# And near ports the mask cannot tell a channel from land: voyages.ports.PORT_COASTAL_ALLOWANCE_NM,
# "the last 40 nm to a berth may follow a river or dredged channel the 1 km land mask cannot see".
# Such runs within that distance of a catalogued port are left to POSITION_JUMP.
ON_LAND_PORT_EXEMPT_KM = 40.0 * 1.852

# --- Port calls ----------------------------------------------------------------------------------

# Stopped (< 1 kn) for at least 1 hour within 10 km of a catalogued port. GFW's port visits
# (Global Fishing Watch "anchorages, ports and voyages" methodology) start when a vessel stops
# (< 0.2-0.5 kn) within ~3-4 km of an anchorage point for >= ~1 h; our catalogue has one point per
# port (the UN/LOCODE position), and terminals of large ports lie up to ~10 km from it, so the
# radius is 10 km, the same 10 km GFW uses to keep encounters apart from ports.
PORT_STOP_SPEED_KN = UNDER_WAY_KN
PORT_MIN_STOP_HOURS = 1.0
PORT_RADIUS_KM = 10.0
# Two stops at the same port less than this apart are one call (shifting berth, anchorage to berth).
PORT_CALL_MERGE_HOURS = 12.0
# How far DetectionContext.nearest_ports looks (the largest distance any rule needs: the 40 nm
# river/channel allowance of the on-land rule).
PORT_SEARCH_KM = ON_LAND_PORT_EXEMPT_KM

# --- Draught -------------------------------------------------------------------------------------

# A change of reported draught of at least 0.5 m: AIS message 5 reports draught in 0.1 m steps and
# crews set it by hand; 0.5 m is beyond rounding and trim noise and, for a tanker, thousands of tonnes
# (an Aframax tanker immerses roughly 100 t per cm, so ~5,000 t per 0.5 m). Our judgement.
DRAUGHT_CHANGE_M = 0.5
# A draught update is often typed in hours after leaving port: a change within this time after a
# port call ended is attributed to that call, not to the sea. Our judgement.
DRAUGHT_PORT_GRACE_HOURS = 12.0

# --- Identity ------------------------------------------------------------------------------------

# ITU-R M.585: the first three digits of a ship station's MMSI are its Maritime Identification
# Digits (MID, flag state), for MMSIs 2xx xxx xxx-7xx xxx xxx.
SHIP_MMSI_MIN = 200_000_000
SHIP_MMSI_MAX = 799_999_999

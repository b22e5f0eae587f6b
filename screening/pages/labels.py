"""What the report page shows a person in place of the record's machine values.

The record keeps its machine values (`ofac_sdn`, `flag_performance`, `fresh`); the page shows these
display names and sentences and keeps the machine value beside them in small code text. The sources'
display names are screening/display_names.py's, shared with the prose of the API.
"""

from __future__ import annotations

from screening.records import (
    CONFIDENCE_CONFIRMED,
    CONFIDENCE_POSSIBLE,
    CONFIDENCE_PROBABLE,
    MATCH_EXACT_IMO,
    MATCH_EXACT_MMSI,
    MATCH_NAME_FLAG,
    MATCH_NAME_FUZZY,
)
from screening.verdict import FLOOR_CONFIRMED, FLOOR_WATCHLIST
from screening.vetting import DETENTION_WINDOW_DAYS, FLOOR_VALUES

DETENTION_WINDOW_YEARS = round(DETENTION_WINDOW_DAYS / 365)

FACTORS = {
    "flag_performance": ("Flag performance", "How the flag State's ships fare in port-state control."),
    "detention_history": (
        "Detention history",
        f"Detentions and deficiencies in inspections of the last {DETENTION_WINDOW_YEARS} years.",
    ),
    "ownership": ("Ownership opacity", "How hard the owners behind the hull are to identify (below)."),
    "inspection_gap": ("Inspection gap", "Time since the hull's last port-state-control inspection."),
    "vessel_age": ("Vessel age", "Years since the hull was built."),
}

FLOOR_SENTENCES = {
    FLOOR_CONFIRMED: (
        f"raised to {FLOOR_VALUES[FLOOR_CONFIRMED]} because the hull is confirmed on a designating sanctions list"
    ),
    FLOOR_WATCHLIST: (
        f"raised to {FLOOR_VALUES[FLOOR_WATCHLIST]} because the hull's IMO number is on a sanctions watchlist"
    ),
}

CONTEXT_SENTENCES = {
    "fresh": "The incident context (vessel registers and port-state-control inspections) was refreshed within "
    "the last 7 days.",
    "stale": "The incident context (vessel registers and port-state-control inspections) is more than 7 days "
    "old; recent detentions or changes of owner may be missing.",
    "refreshing": "The incident context (vessel registers and port-state-control inspections) is being "
    "refreshed after a failed update; the copy in use is less than 7 days old.",
    "unavailable": "No incident context (vessel registers and port-state-control inspections) is loaded; "
    "vetting and ownership could not draw on it.",
}

MATCH_TYPES = {
    MATCH_EXACT_IMO: "Same IMO number",
    MATCH_EXACT_MMSI: "Same MMSI",
    MATCH_NAME_FLAG: "Similar name, same flag",
    MATCH_NAME_FUZZY: "Similar name",
}

CONFIDENCE = {
    CONFIDENCE_CONFIRMED: "confirmed",
    CONFIDENCE_PROBABLE: "probable",
    CONFIDENCE_POSSIBLE: "possible",
}

BASES = {
    "published_at": "the publisher's date",
    "refreshed_at": "our last successful download",
    "latest_event_at": "the latest incident held",
    "unknown": "no date available",
}

SOURCE_STATUS = {"ok": "loaded", "error": "not reached", "not_requested": "not requested"}

IDENTITY_BASES = {
    "sources": "named by the registers",
    "user": "the name sent with the check",
    "none": "no register names it",
}

"""The "AIS anomalies" driver of an assessment sent with an `imo`: what that hull's AIS showed lately.

It is listed with the five weighted drivers but carries weight 0: the score stays the weighted average
of the five (contract 2.10, methodology voyage_risk_external_v1 pinned), so a hull's behaviour informs a
reviewer without moving a pinned score. Its signal grades the hull's strongest event of the last 90 days
(screening/behaviour_block.py reads them).
"""

from __future__ import annotations

from datetime import datetime

from screening import behaviour_block

SOURCE = "ais_behaviour"
LABEL = "AIS anomalies"
# The signal of the strongest event seen: a high-severity event (a long dark period in a listed area, a
# call in a sanctioned state's port, spoofing) reads 80, medium 50, low 20; none 0.
SEVERITY_SIGNAL = {"high": 80, "medium": 50, "low": 20, "info": 0}


def _summary(block: dict) -> str:
    if not block["observed"]:
        return f"No AIS of IMO {block['imo']} is held for the last {block['window_days']} days: nothing can be said."
    flagged = {kind: count for kind, count in block["counts"].items() if count}
    if not block["strongest"]:
        return f"AIS held for the last {block['window_days']} days shows no anomaly."
    kinds = ", ".join(f"{kind.replace('_', ' ')} {count}" for kind, count in sorted(flagged.items()))
    return f"Last {block['window_days']} days of AIS: {kinds}. Strongest: {block['strongest'][0]['summary']}"


def driver(imo: str, now: datetime, rank: int) -> dict:
    """The driver for the hull `imo`, listed at `rank` (after the weighted five)."""
    block = {**behaviour_block.block(imo, now), "imo": imo}
    counted = sum(count for kind, count in block["counts"].items() if kind != "port_call")
    return {
        "source": SOURCE,
        "label": LABEL,
        "summary": _summary(block),
        "event_count": counted if block["observed"] else None,
        "signal_score": SEVERITY_SIGNAL[block["highest_severity"] or "info"],
        "weight_pct": 0,
        "contribution_pct": 0.0,
        "contribution_band": "minimal",
        "sets_floor": False,
        "relative_rank": rank,
    }

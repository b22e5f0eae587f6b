"""The evidence pack of a screening: what was screened, against which editions, with what result, and
what a person decided (GET /api/v1/screenings/{id}/evidence).

The pack holds the record exactly as it was issued (and the sha256 of its stored bytes), every list
and register edition in force at `screened_at` (the publisher's date, when the copy was taken, the
sha256 of the file set as loaded and its record count), the engine and methodology versions, the
matching thresholds in force, and the decisions the record shows in full. `sha256` is the hash of the
pack's canonical JSON without that field (keys sorted, no insignificant whitespace, UTF-8), so anyone
can check a pack was not altered: drop `sha256`, serialise canonically, hash.

The PDF is the same content laid out for a case file (templates/screening/evidence.html), rendered
with WeasyPrint, the hash printed on every page.

An edition in force at an instant is the newest copy of its source and file that was loaded (not
refused) at or before it: copies that a later edition superseded keep their provenance row.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from accounts.tenancy import Owner
from core.api.errors import ApiError
from core.api.timefmt import rfc3339
from screening import decisions, engine
from screening.models import MatchDecision, Screening, SourceSnapshot
from screening.name_rules import rules_in_force

PACK_KIND = "screening_evidence"
PACK_VERSION = 1


def canonical_json(value: Any) -> bytes:
    """The one serialisation the pack's hash is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def thresholds() -> dict[str, object]:
    """The name-matching rules in force (screening/name_rules.py)."""
    return rules_in_force()


def editions_in_force(at: datetime) -> list[dict]:
    """Every source file's copy serving at `at`: one query over the loads' provenance rows."""
    loads = SourceSnapshot.objects.filter(
        status__in=(SourceSnapshot.Status.ACTIVE, SourceSnapshot.Status.SUPERSEDED), retrieved_at__lte=at
    ).order_by("source", "edition", "-retrieved_at", "-id")
    seen: set[tuple[str, str]] = set()
    editions = []
    for load in loads:
        if (load.source, load.edition) in seen:
            continue
        seen.add((load.source, load.edition))
        editions.append(
            {
                "source": load.source,
                "edition": load.edition or None,
                "snapshot_id": load.pk,
                "published": rfc3339(load.published_at),
                "retrieved_at": rfc3339(load.retrieved_at),
                "file_sha256": load.checksum or None,
                "record_count": load.row_count,
                "demo": load.is_demo,
            }
        )
    return editions


def _decision_ids(record: dict) -> list[str]:
    matches = (record.get("sanctions") or {}).get("matches") or ()
    return [match["decision"]["id"] for match in matches if match.get("decision")]


def evidence_pack(owner: Owner, screening_id: str, now: datetime | None = None) -> dict:
    """The pack of one of the caller's records (404 for anyone else's id)."""
    return pack_of(Screening.objects.owned_one(owner, screening_id), now)


def pack_of(screening: Screening, now: datetime | None = None) -> dict:
    """The pack of a record already read under its owner (the API above, an export of the owner's records)."""
    now = now or timezone.now()
    stored = bytes(screening.document)
    record = json.loads(stored)
    decided = MatchDecision.objects.filter(pk__in=_decision_ids(record)).order_by("id")
    pack: dict[str, Any] = {
        "kind": PACK_KIND,
        "pack_version": PACK_VERSION,
        "generated_at": rfc3339(now),
        "screening_id": screening.pk,
        "imo": screening.imo,
        "screened_at": rfc3339(screening.screened_at),
        "record": record,
        "record_sha256": hashlib.sha256(stored).hexdigest(),
        "superseded_by": screening.superseded_by_id,
        "list_editions": editions_in_force(screening.screened_at),
        "engine_version": record.get("engine_version", engine.ENGINE_VERSION),
        "methodology_version": record.get("methodology_version", engine.METHODOLOGY_VERSION),
        "thresholds": thresholds(),
        "decisions": [decisions.decision_document(decision, now) for decision in decided],
    }
    pack["sha256"] = hashlib.sha256(canonical_json(pack)).hexdigest()
    return pack


def evidence_pdf(pack: dict) -> bytes:
    """The pack laid out for a case file."""
    try:
        # lazy: WeasyPrint and its font stack cost about half a second and 40 MB to import; only PDF requests
        # need it, and a host without the Pango library it loads still serves everything else
        from weasyprint import HTML
    except OSError as exc:
        raise ApiError(
            503,
            "pdf_unavailable",
            "This server cannot render PDFs (the Pango library is missing: see docs/production.md); "
            "request the JSON pack (Accept: application/json) instead.",
        ) from exc
    html = render_to_string("screening/evidence.html", {"pack": pack, "record": pack["record"]})
    return HTML(string=html).write_pdf()

"""Getting official files in: download or read, parse, load atomically, record what happened.

Every path ends in exactly one of: a new serving snapshot, "unchanged" (same checksum as
the serving copy), or a failed snapshot row with its reason while the previous copy keeps
serving. The engines see a new snapshot on their next data-version check. (Beat's frequent
conditional check, screening/polling.py, adds "not modified", and records a failed exchange on
the source's feed rather than as a snapshot row; a file it downloads is loaded here.)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from django.utils import timezone

from core import outbound
from screening import datastate, editions, feeds, replay
from screening.ingest import IngestError, active_snapshot, files_checksum, load_snapshot, record_failure
from screening.sources.catalog import (
    REGISTER_PARTS,
    REGISTER_STORES,
    SANCTIONS_SOURCES,
    Source,
    register_parser,
    sources_named,
)

logger = logging.getLogger("service.refresh")
DOWNLOAD_TIMEOUT_SECONDS = 120
DOWNLOAD_ATTEMPTS = 3
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024  # the largest official file (the aggregated dataset) is well under this
USER_AGENT = "vessel-screening-service/1 (+sanctions list refresh)"
MAX_VALIDATOR_LENGTH = 500  # a longer ETag or Last-Modified is not kept (nor sent back)


@dataclass(frozen=True)
class RefreshOutcome:
    source: str
    edition: str
    status: str  # loaded | unchanged | failed | not_configured; a poll also: not_modified | busy
    detail: str = ""


def fetch(
    url: str,
    *,
    validators: Mapping[str, str] | None = None,
    attempts: int = DOWNLOAD_ATTEMPTS,
    timeout: float = DOWNLOAD_TIMEOUT_SECONDS,
    total_timeout: float | None = None,
) -> outbound.Response:
    """GET the file at `url`, conditionally when `validators` (the held copy's etag and
    last_modified) are given: a 200 with the file, or a 304 (only to a conditional request).

    Streamed under a size limit, retried with backoff on network errors and 5xx. Raises
    outbound.OutboundError: refused by the guard, failed, a 4xx, or an HTML page (a portal's error
    or login page answered in place of the list file), none of which is retried.
    """
    headers = {"User-Agent": USER_AGENT}
    if validators and validators.get("etag"):
        headers["If-None-Match"] = validators["etag"]
    if validators and validators.get("last_modified"):
        headers["If-Modified-Since"] = validators["last_modified"]
    response = outbound.get(
        url,
        headers=headers,
        timeout=timeout,
        total_timeout=total_timeout,
        max_bytes=MAX_DOWNLOAD_BYTES,
        retries=attempts - 1,
    )
    if response.status_code == 304 and len(headers) > 1:
        return response
    if response.status_code >= 400:
        raise outbound.OutboundFailed(f"{response.status_code} from {response.url}", status_code=response.status_code)
    if response.status_code >= 300:
        raise outbound.OutboundFailed(f"{response.url} answered {response.status_code} without a usable redirect")
    if "text/html" in response.headers.get("Content-Type", ""):
        raise outbound.OutboundFailed(f"{response.url} answered an HTML page, not the list file")
    return response


def download(url: str, attempts: int = DOWNLOAD_ATTEMPTS) -> bytes:
    """The file at `url` (see fetch)."""
    return fetch(url, attempts=attempts).body


def validators_of(response: outbound.Response) -> dict[str, str]:
    """The validators a download came with (ETag, Last-Modified), as sent, to send back next time."""
    found = {
        "etag": response.headers.get("ETag", "").strip(),
        "last_modified": response.headers.get("Last-Modified", "").strip(),
    }
    return {key: value for key, value in found.items() if value and len(value) <= MAX_VALIDATOR_LENGTH}


def last_modified(response: outbound.Response) -> datetime | None:
    """The download's Last-Modified as an aware time (never later than now), or None when absent or unreadable."""
    header = response.headers.get("Last-Modified", "")
    if not header:
        return None
    try:
        stamp = parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return None
    if stamp.tzinfo is None:  # "-0000": UTC, with nothing said about the local zone
        stamp = stamp.replace(tzinfo=UTC)
    return min(stamp, timezone.now())


def source_for(name: str, edition: str | None) -> Source:
    candidates = sources_named(name)
    if not candidates:
        known = sorted({s.name for s in SANCTIONS_SOURCES} | set(REGISTER_STORES))
        raise IngestError(f"unknown source {name!r}; known: {', '.join(known)}")
    if edition is None:
        return candidates[0]
    for source in candidates:
        if source.edition == edition or (not source.edition and edition == ""):
            return source
    editions = ", ".join(s.edition or "(default)" for s in candidates)
    raise IngestError(f"{name} has no edition {edition!r}; editions: {editions}")


def parts_of(name: str, edition: str | None = None) -> tuple[str, ...]:
    """The file parts a source (or register store) reads: ("sdn", "alt", "add", "xml") for OFAC, one for the rest."""
    return REGISTER_PARTS if name in REGISTER_STORES else source_for(name, edition).parts


def _label(name: str, edition: str | None) -> str:
    return f"{name}/{edition}" if edition else name


def _ofac_part(file_name: str) -> str:
    """Which file of OFAC's set a file is, by its official name (SDN.CSV, ALT.CSV, ADD.CSV, SDN.XML)."""
    lowered = file_name.lower()
    if lowered.endswith(".xml"):
        return "xml"
    for part in ("alt", "add"):
        if lowered.startswith(part):
            return part
    return "sdn"


def name_parts(
    name: str, files: list[tuple[str | None, str, bytes]], *, edition: str | None = None
) -> dict[str, bytes]:
    """Files given as (part or None, file name, bytes) keyed by the source's parts; IngestError says what is wrong.

    A source with one part takes one file, named or not; OFAC's unnamed files are told apart by
    their official names. A part the source does not read, a part given twice, or a second file
    for a one-file source is refused with the parts the source does read.
    """
    parts = parts_of(name, edition)
    label = _label(name, edition)
    usage = ", ".join(f"{part}=PATH" for part in parts)
    named: dict[str, bytes] = {}
    for part, file_name, data in files:
        if part is not None:
            part = part.strip().lower()
            if part not in parts:
                raise IngestError(
                    f"{label} has no file part {part!r}; its parts: {', '.join(parts)}"
                    + (" (or give the one file without PART=)" if len(parts) == 1 else f" (--file {usage})")
                )
        elif len(parts) == 1:
            part = parts[0]
        else:
            part = _ofac_part(file_name) if "sdn" in parts else parts[0]
        if part in named:
            if len(parts) == 1:
                raise IngestError(f"{label} reads one file; {len(files)} were given")
            raise IngestError(f"{label}: two files for the part {part!r}; name each with --file PART=PATH ({usage})")
        named[part] = data
    return named


def load_files(
    name: str,
    files: dict[str, bytes],
    *,
    edition: str | None = None,
    origin: str = "file",
    kind: str = "particulars",
    allow_shrink: bool = False,
    published_at: datetime | None = None,
    validators: feeds.Validators | None = None,
) -> RefreshOutcome:
    """Parse and load files already in hand (a local file, or a download), keyed by part (see parts_of).

    `published_at` is when the publisher issued the file, from outside it (an operator's
    --published, a download's Last-Modified); a date the file stamps itself wins over it. A load or
    a file identical to the serving copy is a successful check of the source (screening/feeds.py);
    a loaded edition is handed on to find the monitored hulls it changes (screening/editions.py).
    `validators` are the HTTP validators the files came with: kept for the next poll only when the
    files are loaded or match the serving copy, never for a refused file; a file loaded without
    them (an operator's) clears the stored ones, so the next poll fetches the publisher's file in full.
    """
    parts: tuple[str, ...]
    if name in REGISTER_STORES:
        parse = register_parser(name, kind)
        snapshot_edition = kind
        parts = REGISTER_PARTS
    else:
        source = source_for(name, edition)
        parse = source.parse
        snapshot_edition = source.edition
        parts = source.parts
    unknown = sorted(set(files) - set(parts))
    if unknown or not files:
        raise IngestError(
            f"{_label(name, snapshot_edition)} has no file part {', '.join(map(repr, unknown))}; its parts: "
            f"{', '.join(parts)}"
            if unknown
            else f"{_label(name, snapshot_edition)}: no file given"
        )
    digest = files_checksum(files)
    current = active_snapshot(name, snapshot_edition)
    if current is not None and current.checksum == digest:
        feeds.mark_checked(name, snapshot_edition, validators=validators)
        return RefreshOutcome(name, snapshot_edition, "unchanged", f"same file as the serving copy ({origin})")
    try:
        parsed = parse(files)
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        reason = f"parse failed: {exc}" if not isinstance(exc, KeyError) else f"parse failed: no {exc} in the file"
        record_failure(name, reason, origin=origin, edition=snapshot_edition)
        datastate.invalidate()
        return RefreshOutcome(name, snapshot_edition, "failed", reason)
    if parsed.published_at is None and published_at is not None:
        parsed.published_at = published_at
    try:
        result = load_snapshot(
            parsed, data_checksum=digest, origin=origin, edition=snapshot_edition, allow_shrink=allow_shrink
        )
    except IngestError as exc:
        datastate.invalidate()
        return RefreshOutcome(name, snapshot_edition, "failed", str(exc))
    datastate.invalidate()
    replay.keep_edition(name, snapshot_edition, digest, files)
    feeds.mark_checked(name, snapshot_edition, validators=validators if validators is not None else {})
    editions.landed(result.snapshot)
    warnings = f"; {len(result.warnings)} row warning(s)" if result.warnings else ""
    return RefreshOutcome(
        name,
        snapshot_edition,
        "loaded",
        f"{result.snapshot.row_count} records (+{result.added} / -{result.removed}){warnings}",
    )


def refresh_source(source: Source, *, allow_shrink: bool = False) -> RefreshOutcome:
    """Download every part of one source from its URLs, in full, and load it (a manual refresh;
    beat's frequent check is screening/polling.py). A download that fails is recorded as a failed
    snapshot, as the operator who asked for it expects to see."""
    parts = {part: source.url(part) for part in source.urls}
    if not parts or not all(parts.values()):
        return RefreshOutcome(source.name, source.edition, "not_configured", "no official URL for this file is set")
    responses: dict[str, outbound.Response] = {}
    for part, url in parts.items():
        try:
            responses[part] = fetch(url)
        except outbound.OutboundError as exc:
            if part in {"alt", "add"}:  # OFAC's supplementary files: the list stands without them
                logger.warning("%s %s not fetched: %s", source.name, part, exc)
                continue
            record_failure(source.name, f"download failed: {exc}", origin=url, edition=source.edition)
            feeds.mark_failed(source.name, source.edition, f"download of {part} failed: {exc}")
            datastate.invalidate()
            return RefreshOutcome(source.name, source.edition, "failed", f"download of {part} failed: {exc}")
    return load_downloads(source, responses, origin=", ".join(parts.values()), allow_shrink=allow_shrink)


def load_downloads(
    source: Source, responses: Mapping[str, outbound.Response], *, origin: str, allow_shrink: bool = False
) -> RefreshOutcome:
    """Load the files of a download (a 200 per part), with their validators and, for a file that
    stamps no date, the newest Last-Modified among them as the publication time."""
    stamps = [stamp for stamp in map(last_modified, responses.values()) if stamp is not None]
    return load_files(
        source.name,
        {part: response.body for part, response in responses.items()},
        edition=source.edition,
        origin=origin,
        allow_shrink=allow_shrink,
        published_at=max(stamps, default=None),
        validators={part: validators_of(response) for part, response in responses.items()},
    )


def refresh_all(kind: str = "sanctions") -> dict:
    """Refresh every source with a configured URL; a summary by status for the task result and logs."""
    summary: dict[str, list[str]] = {}
    for source in SANCTIONS_SOURCES:
        outcome = refresh_source(source)
        summary.setdefault(outcome.status, []).append(
            f"{outcome.source}{'/' + outcome.edition if outcome.edition else ''}"
        )
        if outcome.status == "failed":
            logger.error("refresh %s failed: %s", outcome.source, outcome.detail)
    return summary

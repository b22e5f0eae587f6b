"""Getting official files in: download or read, parse, load atomically, record what happened.

Every path ends in exactly one of: a new serving snapshot, "unchanged" (same checksum as
the serving copy), or a failed snapshot row with its reason while the previous copy keeps
serving. The engines see a new snapshot on their next data-version check.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from config import outbound
from screening import datastate
from screening.ingest import IngestError, active_snapshot, checksum, load_snapshot, record_failure
from screening.sources.catalog import REGISTER_STORES, SANCTIONS_SOURCES, Source, register_parser, sources_named

logger = logging.getLogger("service.refresh")
DOWNLOAD_TIMEOUT_SECONDS = 120
DOWNLOAD_ATTEMPTS = 3
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024  # the largest official file (the aggregated dataset) is well under this
USER_AGENT = "vessel-screening-service/1 (+sanctions list refresh)"


@dataclass(frozen=True)
class RefreshOutcome:
    source: str
    edition: str
    status: str  # loaded | unchanged | failed | not_configured
    detail: str = ""


def download(url: str, attempts: int = DOWNLOAD_ATTEMPTS) -> bytes:
    """The file at `url`, streamed under a size limit, retried with backoff on network errors and 5xx.

    Raises outbound.OutboundError: refused by the guard, failed, a 4xx, or an HTML page (a portal's
    error or login page answered in place of the list file), none of which is retried.
    """
    response = outbound.get(
        url,
        headers={"User-Agent": USER_AGENT},
        timeout=DOWNLOAD_TIMEOUT_SECONDS,
        max_bytes=MAX_DOWNLOAD_BYTES,
        retries=attempts - 1,
    )
    if response.status_code >= 400:
        raise outbound.OutboundFailed(f"{response.status_code} from {response.url}", status_code=response.status_code)
    if response.status_code >= 300:
        raise outbound.OutboundFailed(f"{response.url} answered {response.status_code} without a usable redirect")
    if "text/html" in response.headers.get("Content-Type", ""):
        raise outbound.OutboundFailed(f"{response.url} answered an HTML page, not the list file")
    return response.body


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


def load_files(
    name: str, files: dict[str, bytes], *, edition: str | None = None, origin: str = "file", kind: str = "particulars"
) -> RefreshOutcome:
    """Parse and load files already in hand (a local file, or a download)."""
    if name in REGISTER_STORES:
        parse = register_parser(name, kind)
        snapshot_edition = kind
    else:
        source = source_for(name, edition)
        parse = source.parse
        snapshot_edition = source.edition
    digest = checksum(b"\0".join(files[part] for part in sorted(files)))
    current = active_snapshot(name, snapshot_edition)
    if current is not None and current.checksum == digest:
        return RefreshOutcome(name, snapshot_edition, "unchanged", f"same file as the serving copy ({origin})")
    try:
        parsed = parse(files)
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        record_failure(name, f"parse failed: {exc}", origin=origin, edition=snapshot_edition)
        datastate.invalidate()
        return RefreshOutcome(name, snapshot_edition, "failed", f"parse failed: {exc}")
    try:
        result = load_snapshot(parsed, data_checksum=digest, origin=origin, edition=snapshot_edition)
    except IngestError as exc:
        datastate.invalidate()
        return RefreshOutcome(name, snapshot_edition, "failed", str(exc))
    datastate.invalidate()
    warnings = f"; {len(result.warnings)} row warning(s)" if result.warnings else ""
    return RefreshOutcome(
        name,
        snapshot_edition,
        "loaded",
        f"{result.snapshot.row_count} records (+{result.added} / -{result.removed}){warnings}",
    )


def refresh_source(source: Source) -> RefreshOutcome:
    """Download every part of one source from its URLs and load it."""
    parts = {part: source.url(part) for part in source.urls}
    if not parts or not all(parts.values()):
        return RefreshOutcome(source.name, source.edition, "not_configured", "no official URL for this file is set")
    files: dict[str, bytes] = {}
    for part, url in parts.items():
        try:
            files[part] = download(url)
        except outbound.OutboundError as exc:
            if part in {"alt", "add"}:  # OFAC's supplementary files: the list stands without them
                logger.warning("%s %s not fetched: %s", source.name, part, exc)
                continue
            record_failure(source.name, f"download failed: {exc}", origin=url, edition=source.edition)
            datastate.invalidate()
            return RefreshOutcome(source.name, source.edition, "failed", f"download of {part} failed: {exc}")
    return load_files(source.name, files, edition=source.edition, origin=", ".join(parts.values()))


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

"""The four public registers read live when no store names a hull (contract 2.5, 3.2.7).

Each register is reached over HTTP at a base URL from settings (LIVE_REGISTER_URL_<NAME>);
an unset URL means the register is not consulted and gets no identity_sources row. All
are asked in parallel within one time budget. The exchange each adapter speaks:

    GET {base_url}?imo=<7 digits>
    200 {"imo": "9074729", "name": "SHIP NAME"}   -> named
    200 {"imo": "9074729", "name": null} or 404   -> reachable, not named
    anything else, a timeout or a connection error -> reachable false, never evidence

Calls go through core.outbound (a URL the guard refuses, e.g. a private address, is unreachable
too, and logged), each bounded by the budget as a whole, not per read.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from core import outbound

logger = logging.getLogger("service.live_registers")
MAX_ANSWER_BYTES = 64 * 1024  # an answer is one small JSON object


@dataclass(frozen=True)
class LiveAnswer:
    register: str
    reachable: bool
    name: str | None = None


def _ask(register: str, base_url: str, imo: str, budget: float) -> LiveAnswer:
    try:
        response = outbound.get(
            base_url,
            params={"imo": imo},
            headers={"Accept": "application/json"},
            timeout=budget,
            total_timeout=budget,
            max_bytes=MAX_ANSWER_BYTES,
        )
    except outbound.OutboundRefused as exc:
        logger.warning("live register %s not asked: %s", register, exc)
        return LiveAnswer(register, False)
    except outbound.OutboundFailed:
        return LiveAnswer(register, False)
    if response.status_code == 404:
        return LiveAnswer(register, True)
    if response.status_code != 200:
        return LiveAnswer(register, False)
    try:
        payload = response.json()
    except ValueError:
        return LiveAnswer(register, False)
    if not isinstance(payload, dict) or str(payload.get("imo", imo)) != imo:
        return LiveAnswer(register, False)
    name = payload.get("name")
    return LiveAnswer(register, True, name.strip() if isinstance(name, str) and name.strip() else None)


def lookup_live_registers(imo: str, base_urls: dict[str, str], budget: float) -> list[LiveAnswer]:
    """Ask every configured register at once; whoever has not answered by `budget` seconds is unreachable."""
    configured = {name: url for name, url in base_urls.items() if url}
    if not configured:
        return []
    pool = ThreadPoolExecutor(max_workers=len(configured))
    futures = {pool.submit(_ask, name, url, imo, budget): name for name, url in configured.items()}
    done, _ = wait(futures, timeout=budget + 0.5)
    pool.shutdown(wait=False, cancel_futures=True)
    answers = []
    for future, name in futures.items():
        answers.append(future.result() if future in done else LiveAnswer(name, False))
    return answers

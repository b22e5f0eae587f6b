"""Idempotency-Key on every creating POST (contract part 3.4), as one decorator.

A row per (account, environment, key) holds a fingerprint of the request, its state and
the stored response. Claiming is a unique insert; a same-key request that finds the key
running joins by polling for up to the hold; a different body is a conflict; completed
responses replay byte-for-byte for 24 hours. Only successful (2xx) responses are kept:
an error stores nothing, so a corrected retry runs at once.

The completion is written in the same transaction as the result it stores: a service takes
`in_transaction=claim.completes(201)`, so a committed record and its stored answer exist
together or not at all, and a retry after any fault replays the committed answer instead of
charging again. Anything that fails after that commit still answers with the committed
response. A request that failed without committing releases its key (with a fresh
connection, then in the background until the database answers) so a retry runs at once; a
process that shuts down releases the keys it still holds; a claim abandoned by a crash goes
stale.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, close_old_connections, connection, transaction
from django.http import HttpResponse
from django.utils import timezone

from core.api.errors import ApiError
from core.api.idempotency_keys import MAX_KEY_LENGTH
from metering.models import IdempotencyRecord

RETENTION = timedelta(hours=24)
STALE_CLAIM = timedelta(minutes=2)
POLL_SECONDS = 0.05
REPLAYED_HEADERS = (
    "Content-Type",
    "Location",
    "X-Service-Quota-Limit",
    "X-Service-Quota-Remaining",
    "X-Service-Quota-Reset",
)

RELEASE_RETRY_SECONDS = 1.0

logger = logging.getLogger("service.idempotency")

PROCESS_OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
_held: set[int] = set()


@dataclass
class Claim:
    """A key this request holds; `completes(status)` stores the answer inside the result's transaction."""

    pk: int
    committed: tuple[int, dict[str, str], bytes] | None = field(default=None)

    def complete(self, status: int, body: bytes, headers: Mapping[str, str]) -> None:
        """Store the response. Call inside the transaction that commits the result it describes."""
        kept = {name: value for name, value in headers.items() if name in REPLAYED_HEADERS}
        kept.setdefault("Content-Type", "application/json")
        IdempotencyRecord.objects.filter(pk=self.pk).update(
            state=IdempotencyRecord.STATE_COMPLETED, status_code=status, headers=kept, body=bytes(body)
        )
        answer = (status, kept, bytes(body))

        def committed() -> None:
            self.committed = answer
            _held.discard(self.pk)

        transaction.on_commit(committed)

    def completes(self, status: int) -> Callable[[Any], None]:
        """A service's `in_transaction` hook for a result carrying `.body` (and `.quota` when metered)."""

        def complete(issued: Any) -> None:
            quota = getattr(issued, "quota", None)
            self.complete(status, issued.body, quota.headers() if quota is not None else {})

        return complete


def claim_of(request: Any) -> Claim:
    """The claim the `idempotent` decorator took for this request."""
    return getattr(request, "_request", request).idempotency_claim


def canonical_fingerprint(method: str, path: str, body: Any) -> str:
    """Bodies that differ only in key order or whitespace are the same request."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{method}\n{path}\n{canonical}".encode()).hexdigest()


def _read_key(request: Any) -> str:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise ApiError(
            400,
            "missing_idempotency_key",
            "Send an Idempotency-Key header (any string up to 255 characters, unique per distinct request).",
        )
    # Visible: a header cannot carry control characters, but an MCP tool's argument can (and NUL is
    # refused by PostgreSQL's text columns).
    if not key.strip() or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise ApiError(
            400,
            "invalid_idempotency_key",
            f"The Idempotency-Key must be 1 to {MAX_KEY_LENGTH} visible characters.",
        )
    return key


def _stored_response(status: int, headers: Mapping[str, str], body: bytes) -> HttpResponse:
    response = HttpResponse(body, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


def _replay(record: IdempotencyRecord, *, joined: bool) -> HttpResponse:
    response = _stored_response(record.status_code or 200, record.headers or {}, bytes(record.body or b""))
    response["X-Service-Idempotent-Replay"] = "true"
    if joined:
        response["X-Service-Idempotent-Joined"] = "true"
    return response


def _conflict() -> ApiError:
    return ApiError(
        409,
        "idempotency_conflict",
        "This Idempotency-Key was used with a different request body; do not retry, use a new key.",
    )


def _claim(account_id: str, environment: str, key: str, fingerprint: str) -> Claim | HttpResponse:
    """Claim the key, or return the response a holder of the key produced."""
    hold = settings.IDEMPOTENCY_JOIN_HOLD_SECONDS
    deadline = time.monotonic() + hold
    joined = False
    while True:
        now = timezone.now()
        try:
            # One INSERT: on its own it commits by itself (no BEGIN/COMMIT round trips); inside a
            # caller's transaction a savepoint keeps a duplicate key from breaking that transaction.
            with transaction.atomic() if connection.in_atomic_block else nullcontext():
                record = IdempotencyRecord.objects.create(
                    account_id=account_id,
                    environment=environment,
                    key=key,
                    fingerprint=fingerprint,
                    owner=PROCESS_OWNER,
                    expires_at=now + RETENTION,
                )
            _held.add(record.pk)
            return Claim(record.pk)
        except IntegrityError:
            pass
        existing = IdempotencyRecord.objects.filter(account_id=account_id, environment=environment, key=key).first()
        if existing is None:
            continue  # released between our insert and read: claim again
        if existing.fingerprint != fingerprint:
            raise _conflict()
        stale_running = existing.state == IdempotencyRecord.STATE_RUNNING and existing.created_at < now - STALE_CLAIM
        if existing.expires_at <= now or stale_running:
            IdempotencyRecord.objects.filter(pk=existing.pk, created_at=existing.created_at).delete()
            continue
        if existing.state == IdempotencyRecord.STATE_COMPLETED:
            return _replay(existing, joined=joined)
        joined = True
        if time.monotonic() >= deadline:
            raise ApiError(
                409,
                "idempotency_in_progress",
                f"The original request under this Idempotency-Key is still running after {hold} seconds; "
                "repeat the same key after Retry-After.",
                headers={"Retry-After": "5"},
            )
        time.sleep(POLL_SECONDS)


def _complete_after(claim: Claim, response: HttpResponse, extra_headers: dict[str, str]) -> None:
    """For handlers whose service takes no hook: store a 2xx answer once it is produced."""
    headers = {name: response[name] for name in REPLAYED_HEADERS if name in response}
    headers.update(extra_headers)
    claim.complete(response.status_code, bytes(response.content), headers)


def _delete_running(record_pk: int) -> None:
    IdempotencyRecord.objects.filter(pk=record_pk, state=IdempotencyRecord.STATE_RUNNING).delete()


def release(record_pk: int) -> None:
    """Give the key up so a retry runs at once; never raises.

    A failed request's connection is often the broken one, so the delete is tried again on a
    fresh connection, then left to a background releaser that retries until the database answers.
    """
    for attempt in range(2):
        try:
            _delete_running(record_pk)
        except DatabaseError:
            if attempt == 0 and not connection.in_atomic_block:
                connection.close()
                continue
            logger.warning("idempotency key %s could not be released now; retrying in the background", record_pk)
            _releaser.submit(record_pk)
            return
        else:
            _held.discard(record_pk)
            return


class _BackgroundReleaser:
    """Releases keys whose request failed while the database was unreachable, once it answers."""

    def __init__(self) -> None:
        self._queue: queue.Queue[int] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, record_pk: int) -> None:
        self._queue.put(record_pk)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="idempotency-releaser", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        waiting: list[int] = []
        give_up_at = time.monotonic() + STALE_CLAIM.total_seconds()
        while True:
            try:
                waiting.append(self._queue.get(timeout=RELEASE_RETRY_SECONDS))
                continue
            except queue.Empty:
                pass
            if not waiting:
                return
            try:
                IdempotencyRecord.objects.filter(pk__in=waiting, state=IdempotencyRecord.STATE_RUNNING).delete()
            except DatabaseError:
                close_old_connections()
                if time.monotonic() > give_up_at:  # by now the claim has gone stale anyway
                    return
                continue
            finally:
                connection.close()
            for pk in waiting:
                _held.discard(pk)
            logger.info("released %d idempotency key(s) after the database came back", len(waiting))
            waiting = []
            give_up_at = time.monotonic() + STALE_CLAIM.total_seconds()


_releaser = _BackgroundReleaser()


def idempotent(handler: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Decorate a keyed view's creating handler (self, request, *args, **kwargs).

    The handler passes `claim_of(request).completes(status)` to its service so the answer is
    stored in the result's own transaction; a handler that does not is completed after it returns.
    """

    @wraps(handler)
    def wrapper(view: Any, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        key = _read_key(request)
        body = request.data  # parse first: invalid JSON is 400 and claims nothing
        context = request.auth
        fingerprint = canonical_fingerprint(request.method, request.path, body)
        claimed = _claim(context.account_id, context.environment, key, fingerprint)
        if isinstance(claimed, HttpResponse):
            return claimed
        request._request.idempotency_claim = claimed
        try:
            response = handler(view, request, *args, **kwargs)
        except BaseException:
            if claimed.committed is not None:
                # The result and its stored answer committed; a later step failed. Answer with it.
                logger.exception("failure after the answer under an Idempotency-Key was committed")
                status, headers, stored_body = claimed.committed
                context.quota_headers = {k: v for k, v in headers.items() if k.startswith("X-Service-Quota")}
                return _stored_response(status, headers, stored_body)
            release(claimed.pk)
            raise
        if claimed.committed is None:
            if 200 <= response.status_code < 300:
                try:
                    _complete_after(claimed, response, context.quota_headers)
                except DatabaseError:
                    # The result is committed but its answer is not stored: keeping the key running
                    # (it goes stale) is safer than releasing it to a retry that would run again.
                    logger.exception("the answer under an Idempotency-Key could not be stored")
            else:
                release(claimed.pk)
        return response

    return wrapper


def purge_expired() -> int:
    """Beat task body: drop keys past their 24-hour retention."""
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


def release_held_keys() -> None:
    """On shutdown: keys this process will not finish are released so a retry runs at once."""
    if not _held:
        return
    try:
        IdempotencyRecord.objects.filter(
            pk__in=list(_held), owner=PROCESS_OWNER, state=IdempotencyRecord.STATE_RUNNING
        ).delete()
    except Exception:  # the database may already be gone at exit
        pass
    _held.clear()


atexit.register(release_held_keys)

"""Idempotency-Key on every creating POST (contract part 3.4), as one decorator.

A row per (account, environment, key) holds a fingerprint of the request, its state and
the stored response. Claiming is a unique insert; a same-key request that finds the key
running joins by polling for up to the hold; a different body is a conflict; completed
responses replay byte-for-byte for 24 hours. Only successful (2xx) responses are kept:
an error stores nothing, so a corrected retry runs at once. A process releases the keys
it still holds when it shuts down, and a claim abandoned by a crash goes stale.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import secrets
import socket
import time
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone

from accounts.models import IdempotencyRecord
from config.api.errors import ApiError

RETENTION = timedelta(hours=24)
STALE_CLAIM = timedelta(minutes=2)
MAX_KEY_LENGTH = 255
POLL_SECONDS = 0.05
REPLAYED_HEADERS = (
    "Content-Type", "Location", "X-Service-Quota-Limit", "X-Service-Quota-Remaining", "X-Service-Quota-Reset",
)

PROCESS_OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
_held: set[int] = set()


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
    if not key.strip() or len(key) > MAX_KEY_LENGTH:
        raise ApiError(
            400,
            "invalid_idempotency_key",
            f"The Idempotency-Key must be 1 to {MAX_KEY_LENGTH} visible characters.",
        )
    return key


def _replay(record: IdempotencyRecord, *, joined: bool) -> HttpResponse:
    response = HttpResponse(bytes(record.body or b""), status=record.status_code or 200)
    for name, value in (record.headers or {}).items():
        response[name] = value
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


def _claim(account_id: str, environment: str, key: str, fingerprint: str) -> IdempotencyRecord | HttpResponse:
    """Claim the key, or return the response a holder of the key produced."""
    hold = settings.IDEMPOTENCY_JOIN_HOLD_SECONDS
    deadline = time.monotonic() + hold
    joined = False
    while True:
        now = timezone.now()
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    account_id=account_id,
                    environment=environment,
                    key=key,
                    fingerprint=fingerprint,
                    owner=PROCESS_OWNER,
                    expires_at=now + RETENTION,
                )
            _held.add(record.pk)
            return record
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


def _complete(record: IdempotencyRecord, response: HttpResponse, extra_headers: dict[str, str]) -> None:
    headers = {name: response[name] for name in REPLAYED_HEADERS if name in response}
    headers.update({k: v for k, v in extra_headers.items() if k in REPLAYED_HEADERS})
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        state=IdempotencyRecord.STATE_COMPLETED,
        status_code=response.status_code,
        headers=headers,
        body=bytes(response.content),
    )
    _held.discard(record.pk)


def release(record_pk: int) -> None:
    IdempotencyRecord.objects.filter(pk=record_pk, state=IdempotencyRecord.STATE_RUNNING).delete()
    _held.discard(record_pk)


def idempotent(handler: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Decorate a keyed view's creating handler (self, request, *args, **kwargs)."""

    @wraps(handler)
    def wrapper(view: Any, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        key = _read_key(request)
        body = request.data  # parse first: invalid JSON is 400 and claims nothing
        context = request.auth
        fingerprint = canonical_fingerprint(request.method, request.path, body)
        claimed = _claim(context.account_id, context.environment, key, fingerprint)
        if isinstance(claimed, HttpResponse):
            return claimed
        try:
            response = handler(view, request, *args, **kwargs)
        except BaseException:
            release(claimed.pk)
            raise
        if 200 <= response.status_code < 300:
            _complete(claimed, response, context.quota_headers)
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

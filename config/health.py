"""Liveness and readiness, outside the versioned API (load balancers and orchestrators)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from config.celery import app
from metering import access_log
from screening import freshness


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _check(name: str, probe) -> dict:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:  # readiness reports any failure rather than raising
        return {"name": name, "ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"name": name, "ok": True, "ms": round((time.perf_counter() - started) * 1000, 2)}


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _cache() -> None:
    cache.set("readyz:probe", "1", 5)
    if cache.get("readyz:probe") != "1":
        raise RuntimeError("cache did not return what was written")


def _broker() -> None:
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)


def readyz(request: HttpRequest) -> JsonResponse:
    checks = [_check("database", _database)]
    if settings.REDIS_URL:
        checks.append(_check("redis", _cache))
    checks.append(_check("broker", _broker))
    ready = all(check["ok"] for check in checks)
    body = {
        "status": "ready" if ready else "not_ready",
        "checks": checks,
        "access_log": _access_log(),
        "sources": _sources(),
    }
    return JsonResponse(body, status=200 if ready else 503)


def _sources() -> dict:
    """The sanctions list files whose copy may be out of date (informational: a stale list still
    screens, so it never changes readiness). One small query, without building the sanctions index."""
    try:
        editions = freshness.serving_freshness(timezone.now())
    except Exception as exc:  # the database check above already reports an unreachable database
        return {"stale": None, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"stale": [edition.as_dict() for edition in editions if edition.stale]}


def _access_log() -> dict:
    """This process's access-log backlog (informational: it never changes readiness)."""
    return access_log.stats()

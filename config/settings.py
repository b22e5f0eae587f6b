"""One settings module, driven by environment variables with working defaults.

Embedded default (nothing set): SQLite under var/, in-process cache, a Celery broker
on the filesystem, a secret key generated once under var/.  Production: set
SERVICE_MODE=production plus DATABASE_URL, REDIS_URL and SECRET_KEY.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlparse

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SERVICE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


class ImproperProductionSettings(RuntimeError):
    """Raised at start-up when production settings are unsafe."""


SERVICE_MODE = env_str("SERVICE_MODE", "development")  # development | production
IS_PRODUCTION = SERVICE_MODE == "production"
DEBUG = env_bool("DEBUG", default=False)


def _secret_key() -> str:
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    if IS_PRODUCTION:
        raise ImproperProductionSettings("SECRET_KEY must be set when SERVICE_MODE=production.")
    # Generated once and kept outside version control so sessions survive restarts.
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(64))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


if IS_PRODUCTION and DEBUG:
    raise ImproperProductionSettings("DEBUG must be off when SERVICE_MODE=production.")

SECRET_KEY = _secret_key()
# Pepper for API-key hashes; rotatable: keys hashed under an older pepper keep working
# while API_KEY_PEPPERS lists it (id:value pairs, newest first).
API_KEY_PEPPERS = env_list("API_KEY_PEPPERS") or [f"p1:{SECRET_KEY}"]

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
PUBLIC_BASE_URL = env_str("PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
MCP_BASE_URL = env_str("MCP_BASE_URL", PUBLIC_BASE_URL).rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS") or [PUBLIC_BASE_URL]
# Number of reverse proxies in front of the service whose X-Forwarded-For entries are
# trusted; 0 means the socket peer address is the client address.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "core",
    "accounts.apps.AccountsConfig",
    "metering.apps.MeteringConfig",
    "jobs",
    "screening",
    "voyages",
    "monitoring.apps.MonitoringConfig",
    "exports",
    "cargo",
    "webhooks",
    "behaviour.apps.BehaviourConfig",
    "mcp_bridge",
    "portal",
    "backoffice",  # the whole Django admin (the back office) is registered here
]

MIDDLEWARE = [
    "core.api.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.security_headers.SecurityHeadersMiddleware",  # CSP, no-store, frame/sniff headers, HSTS in production
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Authenticates keyed /api/v1 requests before anything else can answer (a 413 included).
    "metering.middleware.KeyedResponseMiddleware",
    "core.api.middleware.ApiErrorMiddleware",
    # Django's session, CSRF, user and message middleware, skipped for key-authenticated API requests.
    "metering.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "metering.middleware.CsrfViewMiddleware",
    "metering.middleware.AuthenticationMiddleware",
    "metering.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _pool_options() -> dict:
    size = env_int("DB_POOL_MAX_SIZE", 10)
    if size <= 0:
        return {}
    return {"pool": {"min_size": 1, "max_size": size, "timeout": 10}}


def _prepared_statement_options() -> dict:
    """Parameters bound on the server, and a statement a connection has run DB_PREPARE_THRESHOLD
    times prepared there: PostgreSQL then stops parsing and planning the statements every request
    repeats (a screening's eight), which was half of its database time. Both need a server
    connection kept per client connection: DB_SERVER_SIDE_BINDING=0 (or DB_PREPARE_THRESHOLD=0)
    behind a transaction-mode pooler that cannot carry prepared statements."""
    if not env_bool("DB_SERVER_SIDE_BINDING", True):
        return {}
    threshold = env_int("DB_PREPARE_THRESHOLD", 5)
    return {"server_side_binding": True, "prepare_threshold": threshold if threshold > 0 else None}


def database_from_url(url: str) -> dict:
    """Translate DATABASE_URL (sqlite:///path or postgres://user:pw@host:port/name) for Django."""
    parsed = urlparse(url)
    options = dict(parse_qsl(parsed.query))
    if parsed.scheme == "sqlite":
        # sqlite:////abs/path is absolute; sqlite:///rel/path is relative to the project.
        raw_path = unquote(parsed.path)
        name = raw_path[1:] if raw_path.startswith("//") else str(BASE_DIR / raw_path.lstrip("/"))
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": name,
            "OPTIONS": {
                # WAL lets readers proceed while one writer commits; IMMEDIATE avoids
                # lock-upgrade deadlocks between concurrent writers.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
            # The test database sits beside the main file, so two checkouts (or a CI run and a
            # developer's run with another DATABASE_URL) never share one.
            "TEST": {"NAME": str(Path(name).with_name(Path(name).stem + "-test.sqlite3"))},
        }
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        return {
            "ENGINE": "core.postgresql",  # Django's, with a borrow check that costs no round trip
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            # Connections come from psycopg's pool (DB_POOL_MAX_SIZE per process; 0 turns it off):
            # a request borrows one and returns it, so no request pays for a new connection and
            # none leaks under ASGI thread pools. Each borrowed connection is checked first, so a
            # database restart costs no request a dead connection. CONN_MAX_AGE must stay 0 with it.
            "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 0),
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {**_pool_options(), **_prepared_statement_options(), **options},
        }
    raise ValueError(f"Unsupported DATABASE_URL scheme: {parsed.scheme!r}")


DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'service.sqlite3'}")
DATABASES = {"default": database_from_url(DATABASE_URL)}
DATABASE_IS_SQLITE = DATABASES["default"]["ENGINE"].endswith("sqlite3")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "svc"),
            # While Redis is unreachable the cache misses instead of failing the request: the key
            # lookup reads the database, the keyless check screens afresh (see README, "Outages").
            "OPTIONS": {
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 1,
                "SOCKET_TIMEOUT": 1,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "svc"}}

# Celery: Redis when REDIS_URL (or CELERY_BROKER_URL) is set, otherwise a broker on the
# filesystem so the embedded default needs no server.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_FILESYSTEM_BROKER_DIR = VAR_DIR / "celery-broker"
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "filesystem://"
    for sub in ("in", "processed", "control"):
        (CELERY_FILESYSTEM_BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_FILESYSTEM_BROKER_DIR / "in"),
        "data_folder_out": str(CELERY_FILESYSTEM_BROKER_DIR / "in"),
        "processed_folder": str(CELERY_FILESYSTEM_BROKER_DIR / "processed"),
        # Broadcast (control) messages too, or kombu writes them under ./control in the cwd.
        "control_folder": str(CELERY_FILESYSTEM_BROKER_DIR / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis redelivers a message its worker took but never acknowledged (a killed worker) after
    # the visibility timeout. It must outlast the longest task on the broker (a daily source
    # refresh takes minutes); voyage batch items come back sooner through their lease and the
    # sweep (VOYAGE_BATCH_* below), so this is the backstop, not the recovery path.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_SECONDS", 900),
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Voyage batches: each accepted route is one task holding a lease on its item while it runs; the
# sweep (every JOBS_SWEEP_SECONDS) re-sends items queued or running past their lease,
# fails an item after VOYAGE_BATCH_ITEM_MAX_ATTEMPTS lost runs, and ends a batch still unfinished
# VOYAGE_BATCH_DEADLINE_SECONDS after creation (unfinished items failed deadline_exceeded, refunded).
VOYAGE_BATCH_ITEM_LEASE_SECONDS = env_int("VOYAGE_BATCH_ITEM_LEASE_SECONDS", 120)
VOYAGE_BATCH_ITEM_MAX_ATTEMPTS = env_int("VOYAGE_BATCH_ITEM_MAX_ATTEMPTS", 3)
VOYAGE_BATCH_DEADLINE_SECONDS = env_int("VOYAGE_BATCH_DEADLINE_SECONDS", 1800)
# Screening batches (screening/batches.py): the same flow and sweep, one task per hull.
SCREENING_BATCH_ITEM_LEASE_SECONDS = env_int("SCREENING_BATCH_ITEM_LEASE_SECONDS", 120)
SCREENING_BATCH_ITEM_MAX_ATTEMPTS = env_int("SCREENING_BATCH_ITEM_MAX_ATTEMPTS", 3)
SCREENING_BATCH_DEADLINE_SECONDS = env_int("SCREENING_BATCH_DEADLINE_SECONDS", 1800)
# How often beat sweeps every job kind (voyage and screening batches, exports); the variable's
# earlier name, VOYAGE_BATCH_SWEEP_SECONDS, is still read when the new one is not set.
JOBS_SWEEP_SECONDS = env_int("JOBS_SWEEP_SECONDS", env_int("VOYAGE_BATCH_SWEEP_SECONDS", 60))
# Automatic resolution (screening/resolution.py): a due follow-up is claimed under this lease before
# it is re-screened; a run that dies mid-attempt leaves it to the next beat tick once the lease lapses.
FOLLOW_UP_LEASE_SECONDS = env_int("FOLLOW_UP_LEASE_SECONDS", 120)

# Webhook deliveries (webhooks/delivery.py). Retries wait these many seconds after each failed
# attempt (plus or minus 10 % jitter): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so a delivery
# is attempted 8 times over about 27.5 hours before it is dead.
WEBHOOK_RETRY_DELAYS_SECONDS = tuple(
    int(part) for part in env_str("WEBHOOK_RETRY_DELAYS_SECONDS", "60,300,1800,7200,18000,36000,36000").split(",")
)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10)  # the whole POST, connect to last byte
WEBHOOK_LEASE_MARGIN_SECONDS = env_int("WEBHOOK_LEASE_MARGIN_SECONDS", 20)  # lease = timeout + margin
WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024  # of each answer, kept with the attempt
WEBHOOK_SWEEP_SECONDS = env_int("WEBHOOK_SWEEP_SECONDS", 10)  # due retries wait at most this long for the sweep
WEBHOOK_REDISPATCH_AFTER_SECONDS = env_int("WEBHOOK_REDISPATCH_AFTER_SECONDS", 120)
WEBHOOK_SWEEP_BATCH = 1000

# Exports (exports/): files written by workers under EXPORT_DIR (shared by web and worker processes),
# removed EXPORT_RETENTION_HOURS after completion (the record stays, status expired).
# How long screening records, match decisions, the access log and every loaded list edition's file
# are kept at least (OFAC's record-keeping rule: 10 years since March 2025). Nothing in the service
# deletes any of them; an operator's own purge must keep this much (docs/production.md, "Backups").
RECORD_RETENTION_DAYS = env_int("RECORD_RETENTION_DAYS", 3653)
EDITION_RETENTION_DAYS = env_int("EDITION_RETENTION_DAYS", 3653)
EXPORT_DIR = Path(os.environ.get("EXPORT_DIR", VAR_DIR / "exports"))
EXPORT_RETENTION_HOURS = env_int("EXPORT_RETENTION_HOURS", 24)
EXPORT_ITEM_LEASE_SECONDS = env_int("EXPORT_ITEM_LEASE_SECONDS", 900)
EXPORT_ITEM_MAX_ATTEMPTS = env_int("EXPORT_ITEM_MAX_ATTEMPTS", 3)
EXPORT_DEADLINE_SECONDS = env_int("EXPORT_DEADLINE_SECONDS", 7200)

# Monitors (monitoring/runs.py): a run is leased to one worker; lost runs are re-run up to the max.
MONITOR_RUN_LEASE_SECONDS = env_int("MONITOR_RUN_LEASE_SECONDS", 300)
MONITOR_RUN_MAX_ATTEMPTS = env_int("MONITOR_RUN_MAX_ATTEMPTS", 3)
MONITOR_SCHEDULE_BATCH = 20_000  # slots opened per tick
MONITOR_TICK_SECONDS = env_int("MONITOR_TICK_SECONDS", 60)
VESSEL_MONITORS_PER_ACCOUNT = 50  # hulls per self-serve account and environment (contract 8)
CORRIDOR_MONITORS_PER_KEY = 10  # live corridor monitors (contract 8)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True

# Requests larger than this are refused with 413 request_too_large (documented in the README).
MAX_REQUEST_BODY_BYTES = env_int("MAX_REQUEST_BODY_BYTES", 1_048_576)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES

SERVICE_API_VERSION = "2026-10-08"

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.ServiceJSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.api.renderers.JSONContentNegotiation",
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.ServiceJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_VERSIONING_CLASS": None,
}

from core.changelog import as_markdown as changelog_markdown  # noqa: E402  (plain data, no Django)
from screening.name_rules import quality_markdown  # noqa: E402  (plain data, no Django)

SPECTACULAR_SETTINGS = {
    "TITLE": "Vessel Sanctions Screening and Voyage Risk API",
    # Redoc draws each heading of the description as a section of its sidebar, before the operation groups;
    # config.openapi_reference adds the Notices section before the changelog (the tags and x-tagGroups that
    # group the operations, and the webhook verification section, are added by the hooks below).
    "DESCRIPTION": (
        "Screen a hull by IMO number and assess the risk of a sea voyage. "
        "Every error answers in the envelope {code, message, request_id}. "
        "Output is decision support, not navigation, safety, legal, insurance or "
        "sanctions-compliance advice.\n\n" + quality_markdown() + "\n\n" + changelog_markdown()
    ),
    "VERSION": SERVICE_API_VERSION,
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVERS": [{"url": PUBLIC_BASE_URL}],
    "WEBHOOKS": "config.openapi_webhooks.WEBHOOKS",  # one import path to the list: every event type
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "BearerKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "API key: svc_test_… selects the test environment, svc_live_… the live one.",
            }
        }
    },
    # One name per choice set several components share (drf-spectacular otherwise names a set by a hash,
    # or gives one set two names, and warns). An import path where the set is a module-level name (a
    # model's nested Status cannot be imported by path: listed); tests/platform/test_openapi_warnings.py
    # fails when a set drifts from its entry and the warning returns.
    "ENUM_NAME_OVERRIDES": {
        "SanctionsStatusEnum": "screening.verdict.Verdict.values",
        "SanctionsVerdictEnum": ["GREEN", "AMBER", "RED"],  # an answer, never INCOMPLETE
        "JobStatusEnum": ["queued", "running", "completed", "partial", "failed"],
        "JobItemStatusEnum": ["queued", "running", "rejected", "succeeded", "failed"],
        "MonitorRunStatusEnum": "monitoring.models.RunStatus.values",
        "CorridorMonitorStatusEnum": ["active"],
        "DeliveryStatusEnum": ["pending", "sending", "delivered", "dead"],
        "ExportFileFormatEnum": ["csv", "jsonl"],
        "DecisionOutcomeEnum": ["cleared", "confirmed"],
        "MatchSourceEnum": "screening.api.schema.MATCH_SOURCES",
        "RecordTypeEnum": ["vessel", "entity"],
        "CountryCodeEnum": "cargo.api.schema.COUNTRY_CODES",
        "EventTypeEnum": "config.openapi_webhooks.PUBLISHED_EVENT_TYPES",
        "OpacityEnum": "monitoring.api.vessels.OPACITY_BANDS",
        "VettingGradeEnum": "monitoring.api.vessels.GRADES",
        "BehaviourEventKindEnum": "behaviour.api.schema.EVENT_KINDS",
        "BehaviourSeverityEnum": "behaviour.api.schema.SEVERITIES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api.openapi.add_shared_components",
        "core.api.openapi.group_operations",  # tags and x-tagGroups: operations first, webhooks after
        "config.openapi_reference.add_reference_sections",  # Notices and "Verifying webhook signatures"
        "core.api.strict_input.close_request_bodies",  # additionalProperties: false on every request body
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # A key sent by mistake where it does not belong (a URL) never reaches a log line.
    "filters": {"redact_keys": {"()": "core.log_redaction.RedactKeys"}},
    # One stream, one format: every line (Django, gunicorn, uvicorn, Celery) goes to stdout.
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "plain",
            "filters": ["redact_keys"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}

if IS_PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# Sign-up and key pages (portal): browser logins are django.contrib.auth users.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login"
LOGIN_REDIRECT_URL = "/keys"
LOGOUT_REDIRECT_URL = "/login"
CSRF_FAILURE_VIEW = "portal.views.csrf_failure"
# Mail (confirmation and password-reset links): files under var/mail by default, SMTP when EMAIL_HOST is set.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=bool(EMAIL_HOST))
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend",
)
EMAIL_FILE_PATH = Path(os.environ.get("EMAIL_FILE_PATH", VAR_DIR / "mail"))
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Vessel Sanctions Screening <no-reply@localhost>")

# Shared in-flight pool per kind of work (screenings, assessments) across all customers.
SERVICE_POOL_SIZE = env_int("SERVICE_POOL_SIZE", 64)
# Access-log entries are written by a background thread in batches ("async") or inline ("sync").
ACCESS_LOG_MODE = env_str("ACCESS_LOG_MODE", "async")
# Entries waiting for the database (kept through an outage, per process); past this the oldest
# are dropped and counted (/readyz "access_log": pending, dropped, rejected).
ACCESS_LOG_MAX_PENDING = env_int("ACCESS_LOG_MAX_PENDING", 100_000)
# How long a same-key request waits for the original before 409 idempotency_in_progress.
IDEMPOTENCY_JOIN_HOLD_SECONDS = env_int("IDEMPOTENCY_JOIN_HOLD_SECONDS", 30)

# How often every source with an official URL is asked whether its file changed (a conditional
# GET: an unchanged file costs a 304 and no parsing; a changed one is loaded). The manual full
# refresh is the task screening.refresh_sources (`manage.py refresh_sources`).
SOURCE_POLL_SECONDS = env_int("SOURCE_POLL_SECONDS", 600)

# AIS (behaviour/): raw positions in partitioned Parquet under AIS_STORE_DIR, read through DuckDB
# (docs/production.md, "The AIS position store"); summaries, links and events in the database.
AIS_STORE_DIR = Path(os.environ.get("AIS_STORE_DIR", VAR_DIR / "ais"))
# Files dropped here are loaded by the worker (`behaviour.load_dropped_files`, every AIS_DROP_POLL_SECONDS)
# and moved to `loaded/` or `failed/` beside them; empty turns the drop folder off.
AIS_DROP_DIR = env_str("AIS_DROP_DIR", "")
AIS_DROP_POLL_SECONDS = env_int("AIS_DROP_POLL_SECONDS", 300)
# A loader whose worker died holds its file this long at most (a day of DMA data loads in minutes).
AIS_LOAD_LEASE_SECONDS = env_int("AIS_LOAD_LEASE_SECONDS", 3600)
# Each load re-runs the detectors over the days it touched, reading this much more on each side
# (a gap or meeting that crosses midnight is seen whole).
AIS_DETECTION_MARGIN_HOURS = env_int("AIS_DETECTION_MARGIN_HOURS", 24)
AIS_DUCKDB_THREADS = env_int("AIS_DUCKDB_THREADS", 1)
AIS_DUCKDB_MEMORY_LIMIT = env_str("AIS_DUCKDB_MEMORY_LIMIT", "1GB")
# How many days of raw positions are kept (whole day partitions are deleted past it by
# `behaviour.prune_positions`); summaries and events stay. 0 keeps everything.
AIS_POSITION_RETENTION_DAYS = env_int("AIS_POSITION_RETENTION_DAYS", 400)

# Static beat schedule; django-celery-beat copies it into the database where operators can edit it.
CELERY_BEAT_SCHEDULE = {
    "purge-idempotency-keys": {"task": "metering.purge_idempotency_keys", "schedule": 3600.0},
    # INCOMPLETE screenings enrolled for automatic resolution: attempts whose slot has come.
    "run-due-follow-ups": {"task": "screening.run_due_follow_ups", "schedule": 300.0},
    # Every list with an official URL: a conditional GET per file (screening/polling.py); a 304 costs no parsing.
    "poll-sources": {"task": "screening.poll_sources", "schedule": float(SOURCE_POLL_SECONDS)},
    # Job items (voyage batches, ...) lost with a worker or a broker restart are re-sent; overdue jobs end.
    "sweep-jobs": {"task": "jobs.sweep", "schedule": float(JOBS_SWEEP_SECONDS)},
    # Webhook deliveries: retries that came due, attempts lost with their worker.
    "sweep-webhook-deliveries": {"task": "webhooks.sweep", "schedule": float(WEBHOOK_SWEEP_SECONDS)},
    # Monitors: open the runs whose slot has come; recover lost and deferred runs.
    "tick-monitors": {"task": "monitoring.tick", "schedule": float(MONITOR_TICK_SECONDS)},
    # Export files past their retention.
    "remove-expired-exports": {"task": "exports.remove_expired", "schedule": 3600.0},
    # AIS files dropped into AIS_DROP_DIR (nothing when it is not set); loads whose loader stopped.
    "load-dropped-ais-files": {"task": "behaviour.load_dropped_files", "schedule": float(AIS_DROP_POLL_SECONDS)},
    # Raw AIS positions past AIS_POSITION_RETENTION_DAYS, a whole day partition at a time.
    "prune-ais-positions": {"task": "behaviour.prune_positions", "schedule": 86400.0},
}

# Outbound HTTP (core/outbound.py) refuses private, loopback, link-local, CGNAT, multicast and
# reserved addresses. Tests turn this on to reach their own servers on 127.0.0.1 / ::1 (loopback
# only, nothing else private); production refuses to start with it on.
OUTBOUND_ALLOW_LOOPBACK = env_bool("OUTBOUND_ALLOW_LOOPBACK", default=False)
if IS_PRODUCTION and OUTBOUND_ALLOW_LOOPBACK:
    raise ImproperProductionSettings("OUTBOUND_ALLOW_LOOPBACK must be off when SERVICE_MODE=production.")

# Live registers read when all five register stores are silent: base URL per register
# (LIVE_REGISTER_URL_<NAME>, e.g. LIVE_REGISTER_URL_USCG_PSIX); empty means not configured.
LIVE_REGISTER_URLS = {
    name: env_str(f"LIVE_REGISTER_URL_{name.upper()}")
    for name in ("classsoc_vessel_register", "itf_ship_lookup", "iacs_vessels_in_class", "uscg_psix")
}
LIVE_REGISTER_BUDGET_SECONDS = float(env_str("LIVE_REGISTER_BUDGET_SECONDS", "3"))
# How long an uncached keyless check waits for one of the 4 shared screening slots.
KEYLESS_SLOT_WAIT_SECONDS = float(env_str("KEYLESS_SLOT_WAIT_SECONDS", "10"))

# Live weather forecast for voyage assessments (voyages.layers.weather); empty: not configured,
# and assessments list weather_forecast in missing_sources with a lower confidence.
WEATHER_FORECAST_URL = env_str("WEATHER_FORECAST_URL", "")
WEATHER_FORECAST_BUDGET_SECONDS = float(env_str("WEATHER_FORECAST_BUDGET_SECONDS", "2"))

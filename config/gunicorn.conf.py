"""gunicorn settings for the REST API and pages (`gunicorn -c config/gunicorn.conf.py config.wsgi:application`).

keepalive: idle keep-alive connections are kept 75 s, longer than a load balancer's usual 60 s idle
timeout, so the balancer, not gunicorn, closes an idle connection (a server closing first turns a
reused connection into a transport error or a 502). Put the balancer's idle timeout below this.
limit_request_line: gunicorn's own refusals (an HTML 414) start past 8,190 bytes; the service
answers longer URLs than it reads (1,024-character paths, 4,096-character queries) itself, in the
JSON envelope, well below that.
control_socket: gunicorn (25.1+) serves `gunicornc` on a Unix socket from its master. Its default is one
path per host ($XDG_RUNTIME_DIR/gunicorn.ctl, else ~/.gunicorn/gunicorn.ctl), so a second gunicorn on the
host (another service, a USR2 re-exec, a drill's extra web server) took the first one's socket over, and
whichever stopped first removed the other's. Here each master names its own, after its process id, in
the same folder (`gunicornc -s <path>`; the master logs "Control socket listening at <path>");
GUNICORN_CONTROL_SOCKET names a fixed path instead.
logconfig_dict: gunicorn's own lines (gunicorn.error: booting, workers, signals) on stdout in the format
of the service's LOGGING (config/settings.py), so every line of every process reads alike; no access
lines (as before: the service keeps its own access log).
"""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread"
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE_SECONDS", "75"))
timeout = 60
graceful_timeout = 30
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def _control_socket() -> str:
    named = os.environ.get("GUNICORN_CONTROL_SOCKET")
    if named:
        return named
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = runtime if runtime and os.path.isdir(runtime) else os.path.join(os.path.expanduser("~"), ".gunicorn")
    # This file is read by the master (again on HUP, in the same process): its id, one socket per master.
    return os.path.join(folder, f"gunicorn-{os.getpid()}.ctl")


control_socket = _control_socket()

# The format of config/settings.py's LOGGING ("plain"); tests/platform/test_log_format.py holds them equal.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": LOG_FORMAT}},
    "handlers": {"stdout": {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stdout"}},
    "root": {"level": "INFO", "handlers": ["stdout"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["stdout"], "propagate": False, "qualname": "gunicorn.error"},
        # No per-request lines from gunicorn, as before (the service keeps its own access log).
        "gunicorn.access": {
            "level": "WARNING",
            "handlers": ["stdout"],
            "propagate": False,
            "qualname": "gunicorn.access",
        },
    },
}

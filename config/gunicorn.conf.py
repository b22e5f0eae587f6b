"""gunicorn settings for the REST API and pages (`gunicorn -c config/gunicorn.conf.py config.wsgi:application`).

keepalive: idle keep-alive connections are kept 75 s, longer than a load balancer's usual 60 s idle
timeout, so the balancer, not gunicorn, closes an idle connection (a server closing first turns a
reused connection into a transport error or a 502). Put the balancer's idle timeout below this.
limit_request_line: gunicorn's own refusals (an HTML 414) start past 8,190 bytes; the service
answers longer URLs than it reads (1,024-character paths, 4,096-character queries) itself, in the
JSON envelope, well below that.
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

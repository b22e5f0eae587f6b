"""The Celery app: Redis broker in production, a filesystem broker on the embedded default."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


@setup_logging.connect
def service_logging(loglevel: int | str | None = None, **_kwargs: object) -> None:
    """Workers and beat log through the service's LOGGING (config/settings.py), in the one format every
    process uses, instead of Celery's own "[time: LEVEL/Process]" handler; --loglevel sets Celery's loggers."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger("celery").setLevel(loglevel)


app = Celery("service")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

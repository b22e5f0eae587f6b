"""Beat-driven housekeeping of the keyed lane (thin: services do the work)."""

from celery import shared_task

from metering import access_log, idempotency


@shared_task(name="metering.purge_idempotency_keys")
def purge_idempotency_keys() -> int:
    return idempotency.purge_expired()


@shared_task(name="metering.flush_access_log")
def flush_access_log() -> int:
    return access_log.flush()

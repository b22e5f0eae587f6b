"""Sending the messages of committed work: a broker that refuses one message is not asked again for
the rest of the batch (each try would cost the caller its connection retries); the sweep re-sends."""

from __future__ import annotations

import logging
import socket

from celery import Celery

from core.task_sending import send_each


def _dead_redis_url() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


def test_a_refusing_broker_is_tried_once_and_the_rest_is_left_to_the_sweep(caplog):
    app = Celery("dead-broker", broker=_dead_redis_url())
    app.conf.broker_connection_retry = False
    app.conf.broker_connection_max_retries = 0
    app.conf.task_publish_retry = False

    @app.task(name="tests.noop")
    def noop(value: int) -> int:
        return value

    with caplog.at_level(logging.WARNING, logger="service.tasks"):
        sent = send_each(noop, ((n,) for n in range(20)), "test item")
    assert sent == 0
    refusals = [r for r in caplog.records if r.name == "service.tasks"]
    assert len(refusals) == 1 and "(0,)" in refusals[0].getMessage()


def test_a_working_broker_takes_every_message(tmp_path):
    app = Celery("folder-broker", broker="filesystem://")
    folder = str(tmp_path)
    app.conf.broker_transport_options = {"data_folder_in": folder, "data_folder_out": folder}

    @app.task(name="tests.noop")
    def noop(value: int) -> int:
        return value

    assert send_each(noop, ((n,) for n in range(5)), "test item") == 5
    assert len(list(tmp_path.iterdir())) == 5

"""Liveness and readiness outside the versioned API."""

import pytest

pytestmark = pytest.mark.django_db


def test_healthz_reports_the_process_up(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_checks_the_database_and_broker(client):
    response = client.get("/readyz")
    body = response.json()
    names = {check["name"] for check in body["checks"]}
    assert {"database", "broker"} <= names
    assert response.status_code == 200, body
    assert body["status"] == "ready"
    # This process's access-log backlog: informational, it never changes readiness.
    assert set(body["access_log"]) == {"pending", "dropped", "rejected"}
    assert all(isinstance(value, int) for value in body["access_log"].values())


def test_readyz_is_503_when_a_dependency_is_unreachable(client, settings, monkeypatch):
    from config.celery import app

    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:1/0")
    response = client.get("/readyz")
    assert response.status_code == 503
    broker = next(check for check in response.json()["checks"] if check["name"] == "broker")
    assert broker["ok"] is False

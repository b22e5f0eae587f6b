"""An assessment sent with the hull's `imo` lists the AIS anomalies driver, which never moves the score."""

from __future__ import annotations

import pytest

from tests.support.published_schema import Published
from tests.voyages.test_assessments import assess, key  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

ROUTE = {"origin": "NLRTM", "destination": "SGSIN"}


@pytest.mark.slow
def test_the_ais_driver_is_listed_last_with_weight_zero_and_the_score_is_unchanged(
    client,
    key,  # noqa: F811
    assess,  # noqa: F811
    ais_store,
):
    plain = assess(key, ROUTE).json()
    response = assess(key, ROUTE, imo="IMO 9074729")
    published = Published.served_by(client)
    named = published.check("/api/v1/voyage-assessments", "post", response)
    assert not published.failures, published.failures
    assert named["imo"] == "9074729" and "imo" not in plain
    assert named["drivers"][:-1] == plain["drivers"]
    driver = named["drivers"][-1]
    assert driver["source"] == "ais_behaviour" and driver["label"] == "AIS anomalies"
    assert driver["weight_pct"] == 0 and driver["contribution_pct"] == 0.0 and driver["sets_floor"] is False
    assert driver["relative_rank"] == len(named["drivers"])
    assert driver["event_count"] is None and driver["signal_score"] == 0
    assert "No AIS of IMO 9074729" in driver["summary"]
    assert named["score"] == plain["score"] and named["risk_level"] == plain["risk_level"]


@pytest.mark.parametrize("imo", ["9074728", "90747", 9074729, "IMO 9074729 and 9300776"])
def test_an_imo_that_is_not_a_valid_hull_number_is_a_422_naming_it(key, assess, imo):  # noqa: F811
    response = assess(key, ROUTE, imo=imo)
    assert response.status_code == 422
    assert [violation["field"] for violation in response.json()["field_violations"]] == ["imo"]

"""Two reviewers deciding on the same match at the same instant (PostgreSQL: SQLite serialises writes)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from django.db import connection

from accounts.models import Account
from core.api.errors import ApiError
from screening import decisions, demo
from screening.models import MatchDecision

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_concurrent_decisions_on_one_match_store_one_and_answer_the_other_409(demo_world, issue_key):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises the two writes")
    issue_key("live", email="two-reviewers@example.com")
    account_id = Account.objects.get(email="two-reviewers@example.com").pk
    owner = SimpleNamespace(account_id=account_id, environment="live")
    values = {
        "imo": demo.AMBER_NAME_ONLY, "source": "ofac_sdn", "source_record_id": "990002", "outcome": "cleared",
        "reason": "Different hull", "expires_at": None,
    }  # fmt: skip
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def decide(reviewer: str) -> None:
        try:
            barrier.wait(10)
            outcomes.append(decisions.record_decision(owner, {**values, "reviewer": reviewer}))
        except ApiError as error:
            outcomes.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=decide, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    saved = [o for o in outcomes if isinstance(o, decisions.Saved)]
    refused = [o for o in outcomes if isinstance(o, ApiError)]
    assert len(saved) == 1 and len(refused) == 1, outcomes
    assert refused[0].status == 409 and refused[0].code == "decision_exists"
    assert MatchDecision.objects.filter(imo=demo.AMBER_NAME_ONLY, revoked_at__isnull=True).count() == 1

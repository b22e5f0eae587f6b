"""In-flight ceilings: 6 screenings / 2 assessments per customer, and the shared pool."""

import contextlib
import threading
import time

import pytest
from django.test import Client

from core.api.errors import ApiError
from metering import concurrency
from tests.accounts import urls as test_urls

pytestmark = [pytest.mark.urls("tests.accounts.urls")]


def test_the_seventh_screening_in_flight_is_concurrency_limit():
    with contextlib.ExitStack() as held:
        for _ in range(6):
            held.enter_context(concurrency.customer_slot("screening", "acc", "test"))
        with pytest.raises(ApiError) as error:
            with concurrency.customer_slot("screening", "acc", "test"):
                pass
    assert error.value.code == "concurrency_limit"
    with concurrency.customer_slot("screening", "acc", "test"):
        assert concurrency.in_use(concurrency.customer_pool("screening", "acc")) == 1


def test_the_screening_ceiling_is_per_customer_across_both_environments():
    """Contract part 8: 6 screenings in flight per customer, live and test together."""
    with contextlib.ExitStack() as held:
        for environment in ["test"] * 3 + ["live"] * 3:
            held.enter_context(concurrency.customer_slot("screening", "acc", environment))
        for environment in ("live", "test"):
            with pytest.raises(ApiError) as error:
                with concurrency.customer_slot("screening", "acc", environment):
                    pass
            assert error.value.code == "concurrency_limit"
            assert "live and test together" in error.value.message


def test_the_assessment_ceiling_is_per_customer_across_both_environments():
    with concurrency.customer_slot("assessment", "acc", "live"):
        with concurrency.customer_slot("assessment", "acc", "test"):
            with pytest.raises(ApiError) as error:
                with concurrency.customer_slot("assessment", "acc", "test"):
                    pass
    assert error.value.code == "concurrency_limit"


def test_two_assessments_in_flight_is_the_customer_ceiling():
    with concurrency.customer_slot("assessment", "acc", "live"):
        with concurrency.customer_slot("assessment", "acc", "live"):
            with pytest.raises(ApiError) as error:
                with concurrency.customer_slot("assessment", "acc", "live"):
                    pass
    assert error.value.code == "concurrency_limit"


def test_a_full_service_pool_is_service_concurrency_limit(settings):
    settings.SERVICE_POOL_SIZE = 1
    with concurrency.customer_slot("screening", "one", "test"):
        with pytest.raises(ApiError) as error:
            with concurrency.customer_slot("screening", "two", "test"):
                pass
    assert error.value.code == "service_concurrency_limit"
    assert concurrency.in_use(concurrency.customer_pool("screening", "two")) == 0


def test_slots_expire_so_a_crashed_request_never_leaks_one():
    for _ in range(2):
        assert concurrency.try_claim("assessment:crash:test", 2, ttl=1)
    assert concurrency.try_claim("assessment:crash:test", 2, ttl=1) is None
    time.sleep(1.1)
    assert concurrency.try_claim("assessment:crash:test", 2, ttl=1) is not None


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_beyond_six_get_429_concurrency_limit(issue_key, keyed):
    raw = issue_key()
    test_urls.release_slow.clear()
    statuses = []

    def call(index):
        response = Client().post(
            "/api/v1/_test/metered",
            data={"imo": "9074729", "slow": True},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"c{index}",
            **keyed(raw),
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.time() + 5
    while len(statuses) < 2 and time.time() < deadline:
        time.sleep(0.02)
    test_urls.release_slow.set()
    for thread in threads:
        thread.join(15)
    assert sorted(statuses) == [201] * 6 + [429] * 2


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_on_a_test_and_a_live_key_share_the_customer_ceiling(issue_key, keyed):
    """Eight real requests in flight, four on each environment's key of one account: six run."""
    test_key = issue_key("test", email="both@example.com")
    live_key = issue_key("live", email="both@example.com")
    test_urls.release_slow.clear()
    statuses = []

    def call(index, raw):
        response = Client().post(
            "/api/v1/_test/metered",
            data={"imo": "9074729", "slow": True},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"b{index}",
            **keyed(raw),
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=call, args=(i, test_key if i % 2 else live_key)) for i in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.time() + 5
    while len(statuses) < 2 and time.time() < deadline:
        time.sleep(0.02)
    test_urls.release_slow.set()
    for thread in threads:
        thread.join(15)
    assert sorted(statuses) == [201] * 6 + [429] * 2

"""Full voyage assessment latency: in-process (route + layers + scoring + document) and over HTTP.

    .venv/bin/python bench/assessment_bench.py [--pairs 300] [--http 100]

In-process times voyages.services.compute_document for random routable port pairs. The HTTP
part posts assessments through Django's test client against the configured DATABASE_URL
(run with DATABASE_URL=postgres://... for the PostgreSQL figure); it needs a migrated database.
"""

from __future__ import annotations

import argparse
import random
import time

from common import report, setup_django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--http", type=int, default=100)
    args = parser.parse_args()
    setup_django()
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.utils import timezone

    from core.api.errors import ApiError
    from voyages.ports import get_catalogue
    from voyages.requests import RouteRequest
    from voyages.routing import RouteNotFound
    from voyages.services import compute_document

    call_command("migrate", verbosity=0)
    catalogue = get_catalogue()
    rng = random.Random(11)
    samples = []
    compute_document(
        RouteRequest(catalogue.get_port("NLRTM"), catalogue.get_port("SGSIN")), assessment_id="warm", now=timezone.now()
    )
    for _ in range(args.pairs):
        origin, destination = rng.sample(catalogue.ports, 2)
        started = time.perf_counter()
        try:
            compute_document(RouteRequest(origin, destination), assessment_id="vas_bench", now=timezone.now())
        except (RouteNotFound, ApiError):
            continue
        samples.append((time.perf_counter() - started) * 1000)
    report("assessment in-process (compute_document)", samples)

    if args.http:
        setup_test_environment()
        from accounts.services import issue_key

        _, _, raw = issue_key(email="bench@example.com", environment="live")
        client = Client()
        http = []
        for number in range(args.http):
            origin, destination = rng.sample(catalogue.ports, 2)
            started = time.perf_counter()
            response = client.post(
                "/api/v1/voyage-assessments",
                data={"route": {"origin": origin.locode, "destination": destination.locode}},
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {raw}",
                HTTP_IDEMPOTENCY_KEY=f"bench-{time.time()}-{number}",
            )
            http.append((time.perf_counter() - started) * 1000)
            assert response.status_code in {201, 422, 429}, response.content[:300]
        report("assessment over HTTP stack (POST, DB write)", http)


if __name__ == "__main__":
    main()

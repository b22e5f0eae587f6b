"""Issue 12 item 13 / issue 17 item 4: every "Get a free key" link leads to the sign-up page, which says how a key
is obtained.

The links: the 401 message, the keyless errors (message and example block), and the pages' header and
footer links (vessel report, its error page, voyage report, the key page itself).
"""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from screening import datastate, demo

pytestmark = pytest.mark.django_db

URL = re.compile(r"https?://[^\s)\"'<>]+")


def _links_in(text: str, base: str) -> set[str]:
    """Links to this service's pages in a text (API call examples under /api/ are not links to follow)."""
    urls = {url.rstrip(".,;") for url in URL.findall(text) if url.startswith(base)}
    return {url for url in urls if not url[len(base) :].startswith("/api/")}


def _free_key_hrefs(html: str) -> set[str]:
    """hrefs of anchors whose text (or the sentence before them) offers a free key."""
    hrefs = set()
    for match in re.finditer(r'<a [^>]*href="([^"]+)"[^>]*>(.*?)</a>', html, re.S):
        href, text = match.groups()
        before = html[max(0, match.start() - 120) : match.start()]
        if "free" in (text + before).lower() and "key" in (text + before).lower():
            hrefs.add(href)
    return hrefs


def _assert_key_page(client, url: str, base: str) -> None:
    assert url.startswith(base), url
    path = url[len(base) :] or "/"
    response = client.get(path)
    assert response.status_code == 200, (url, response.status_code)
    page = response.content.decode()
    assert "How to get an API key" in page
    # Issue 17: the page is the self-serve sign-up form (e-mail, password, confirmation by mail).
    assert 'action="/signup"' in page and 'name="email"' in page and 'name="password"' in page
    assert "Authorization: Bearer" in page


def test_the_signup_url_answers_200_with_how_a_key_is_obtained(client, settings):
    from metering.auth import signup_url

    _assert_key_page(client, signup_url(), settings.PUBLIC_BASE_URL)


def test_the_401_message_links_to_the_key_page(client, settings):
    body = client.get("/api/v1/usage").json()
    assert body["code"] == "unauthorized"
    links = _links_in(body["message"], settings.PUBLIC_BASE_URL)
    assert links, body["message"]
    for url in links:
        _assert_key_page(client, url, settings.PUBLIC_BASE_URL)


def test_keyless_errors_link_to_the_key_page(client, settings):
    invalid = client.get("/api/v1/vessels/12345/check").json()
    assert invalid["code"] == "invalid_imo"
    links = _links_in(str(invalid), settings.PUBLIC_BASE_URL)
    throttled = None
    for _ in range(30):
        response = client.get("/api/v1/ports", {"query": "Rotterdam"})
        if response.status_code == 429:
            throttled = response.json()
            break
    assert throttled is not None and throttled["code"] == "rate_limit_exceeded"
    links |= _links_in(throttled["message"], settings.PUBLIC_BASE_URL)
    assert links
    for url in links:
        _assert_key_page(client, url, settings.PUBLIC_BASE_URL)


def test_keyless_pause_and_feed_messages_link_to_the_key_page(client, settings):
    from metering import ratelimit
    from screening import keyless

    hourly = ratelimit.peek(keyless.HOURLY_SPEC, "keyless", "198.51.100.7")
    texts = [keyless.example_block()["keyed_alternative"]]
    burst = None
    for _ in range(30):
        try:
            keyless.refuse_over_rate("198.51.100.7", "req_x", hourly)
        except keyless.KeylessRefused as refused:
            burst = refused
            break
    assert burst is not None
    texts.append(burst.message)
    links = set().union(*(_links_in(text, settings.PUBLIC_BASE_URL) for text in texts))
    assert links
    for url in links:
        _assert_key_page(client, url, settings.PUBLIC_BASE_URL)


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()


def _page_links(html: str, base: str) -> set[str]:
    hrefs = _free_key_hrefs(html)
    assert hrefs, "the page offers no free-key link"
    return {href if href.startswith("http") else base + href for href in hrefs}


def test_page_header_and_footer_links_lead_to_the_key_page(client, settings, world, issue_key, keyed):
    base = settings.PUBLIC_BASE_URL
    pages = [
        client.get(f"/vessels/{demo.GREEN_CLEAN}/report"),
        client.get("/vessels/12345/report"),  # the report's error page
        client.get("/signup"),
    ]
    key = issue_key("test")
    assessment = client.post(
        "/api/v1/voyage-assessments",
        data={"route": {"origin": "NLRTM", "destination": "DEHAM"}},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="links-1",
        **keyed(key),
    ).json()
    report_path = assessment["report_url"][len(base) :]
    pages.append(client.get(report_path))
    for response in pages:
        assert response.status_code in (200, 400), response.status_code
        for url in _page_links(response.content.decode(), base):
            _assert_key_page(client, url, base)


def test_keys_names_the_same_page(client):
    response = client.get("/keys")
    assert response.status_code == 200 and b"How to get an API key" in response.content

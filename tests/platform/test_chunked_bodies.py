"""Chunked request bodies under uvicorn (config.asgi: bin/run's one process and production's /mcp),
through the real server over raw HTTP/1.1 (issue 25 item 5): a chunked body is read like any other,
up to MAX_REQUEST_BODY_BYTES, and one past the limit is refused 413 request_too_large in the
envelope as soon as the limit is passed, without waiting for (or keeping) the rest; Content-Length
bodies keep working and keep their 413."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from tests.platform.test_production_server import Connection
from tests.support.server import running_service

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 1_048_576  # MAX_REQUEST_BODY_BYTES, the default the server runs with
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def uvicorn(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock(), running_service() as url:
        yield urlsplit(url).port


def chunked(body: bytes, size: int = 16_384, *, last: bool = True) -> bytes:
    """`body` in chunks of `size` bytes, with the terminating zero-length chunk when `last`."""
    parts = [body[at : at + size] for at in range(0, len(body), size)]
    encoded = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts)
    return encoded + (b"0\r\n\r\n" if last else b"")


def screening_headers(key: str, idempotency_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Idempotency-Key": idempotency_key}


def find_port_call(query: str = "Rotterdam") -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "find_port", "arguments": {"query": query, "limit": 1}},
        }
    ).encode()


def assert_too_large(status: int, headers: dict[str, str], answer: bytes, request_id: str | None = None) -> None:
    assert status == 413, answer
    assert headers["content-type"] == "application/json"
    document = json.loads(answer)
    assert document["code"] == "request_too_large" and str(LIMIT) in document["message"]
    assert document["request_id"] and document["request_id"] == headers["x-request-id"]
    if request_id is not None:
        assert document["request_id"] == request_id


def next_request_is_served(connection: Connection) -> None:
    """The connection is still usable after a refusal (or was closed cleanly, with the header saying so)."""
    connection.request("GET", "/healthz")
    assert connection.response()[0] == 200


# -- /api/v1 ------------------------------------------------------------------------------------------


def test_a_chunked_screening_request_is_read_whole_and_created(uvicorn, issue_key):
    key = issue_key()
    body = b'{"imo": "IMO 9074729", "customer_reference": "chunked"}'
    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/api/v1/screenings",
        {**screening_headers(key, "chunked-1"), "Transfer-Encoding": "chunked"},
        chunked(body, 10),
    )
    status, _, answer = connection.response()
    assert status == 201, answer
    document = json.loads(answer)
    assert document["imo"] == "9074729" and document["customer_reference"] == "chunked"
    next_request_is_served(connection)
    connection.close()


def test_a_chunked_body_just_over_the_limit_is_413_in_the_envelope(uvicorn, issue_key):
    key = issue_key()
    body = b'{"imo": "9074729", "customer_reference": "' + b"x" * LIMIT + b'"}'
    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/api/v1/screenings",
        {
            **screening_headers(key, "chunked-big"),
            "Transfer-Encoding": "chunked",
            "X-Request-Id": "req-chunked-too-large",
        },
        chunked(body),
    )
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer, "req-chunked-too-large")
    next_request_is_served(connection)
    connection.close()


def test_a_chunked_body_is_refused_once_past_the_limit_without_waiting_for_the_rest(uvicorn, issue_key):
    """A 64 MB upload is not read to its end: the answer comes while the client is still sending."""
    key = issue_key()
    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/api/v1/screenings",
        {**screening_headers(key, "chunked-endless"), "Transfer-Encoding": "chunked"},
        chunked(b"x" * (LIMIT + 65_536), 65_536, last=False),  # the first 1.06 MB of a body that goes on
    )
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer)
    connection.close()


def test_content_length_bodies_are_still_read_and_still_413_past_the_limit(uvicorn, issue_key):
    key = issue_key()
    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/api/v1/screenings",
        screening_headers(key, "sized-1"),
        b'{"imo": "9074729", "customer_reference": "sized"}',
    )
    status, _, answer = connection.response()
    assert status == 201, answer
    assert json.loads(answer)["customer_reference"] == "sized"
    connection.close()

    connection = Connection(uvicorn)
    body = b'{"imo": "9074729", "customer_reference": "' + b"x" * LIMIT + b'"}'
    connection.request("POST", "/api/v1/screenings", screening_headers(key, "sized-big"), body)
    status, headers, answer = connection.response()
    assert status == 413 and json.loads(answer)["code"] == "request_too_large"
    assert headers["x-request-id"] == json.loads(answer)["request_id"]
    connection.close()


def test_a_declared_content_length_past_the_limit_is_413_before_the_body_is_read(uvicorn, issue_key):
    """A 64 MB Content-Length is answered from the header: authenticated first, then 413, not spooled."""
    connection = Connection(uvicorn)
    head = "\r\n".join(
        ["POST /api/v1/screenings HTTP/1.1", "Host: 127.0.0.1", "Content-Length: 67108864"]
        + [f"{name}: {value}" for name, value in screening_headers(issue_key(), "declared-big").items()]
    )
    connection.send(head.encode() + b"\r\n\r\n" + b"x" * 65_536)  # and nothing more of the 64 MB
    status, headers, answer = connection.response()
    assert status == 413 and json.loads(answer)["code"] == "request_too_large", answer
    assert "67108864 bytes" in json.loads(answer)["message"] and "x-ratelimit-limit" in headers
    connection.close()

    connection = Connection(uvicorn)
    connection.send(head.replace("Bearer ", "Bearer svc_test_wrong").encode() + b"\r\n\r\n" + b"x" * 65_536)
    assert connection.response()[0] == 401  # a bad key is still told so first
    connection.close()


# -- /mcp ---------------------------------------------------------------------------------------------


def test_a_chunked_mcp_tool_call_is_answered(uvicorn):
    connection = Connection(uvicorn)
    connection.request("POST", "/mcp", {**MCP_HEADERS, "Transfer-Encoding": "chunked"}, chunked(find_port_call(), 20))
    status, _, answer = connection.response()
    assert status == 200, answer
    reply = json.loads(answer)
    assert reply["id"] == 7 and "error" not in reply, reply
    assert reply["result"]["isError"] is False, reply
    assert "NLRTM" in json.dumps(reply["result"]), reply
    next_request_is_served(connection)
    connection.close()


def test_an_oversized_chunked_mcp_body_is_413_in_the_envelope(uvicorn):
    call = find_port_call("x" * (LIMIT + 1))
    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/mcp",
        {**MCP_HEADERS, "Transfer-Encoding": "chunked", "X-Request-Id": "req-mcp-too-large"},
        chunked(call),
    )
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer, "req-mcp-too-large")
    assert headers["x-content-type-options"] == "nosniff"  # /mcp's security headers, on the refusal too
    next_request_is_served(connection)
    connection.close()

    connection = Connection(uvicorn)
    connection.request(
        "POST",
        "/mcp",
        {**MCP_HEADERS, "Transfer-Encoding": "chunked"},
        chunked(b"x" * (LIMIT + 65_536), 65_536, last=False),
    )
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer)
    connection.close()


def test_mcp_content_length_bodies_are_read_and_413_past_the_limit(uvicorn):
    connection = Connection(uvicorn)
    connection.request("POST", "/mcp", MCP_HEADERS, find_port_call())
    status, _, answer = connection.response()
    assert status == 200 and json.loads(answer)["result"]["isError"] is False, answer
    connection.close()

    connection = Connection(uvicorn)
    connection.request("POST", "/mcp", MCP_HEADERS, find_port_call("x" * (LIMIT + 1)))
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer)
    connection.close()

    connection = Connection(uvicorn)  # 64 MB declared, 64 KiB sent: answered from the header alone
    head = "\r\n".join(
        ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Length: 67108864"]
        + [f"{name}: {value}" for name, value in MCP_HEADERS.items()]
    )
    connection.send(head.encode() + b"\r\n\r\n" + b"x" * 65_536)
    status, headers, answer = connection.response()
    assert_too_large(status, headers, answer)
    assert "67108864 bytes" in json.loads(answer)["message"]
    connection.close()

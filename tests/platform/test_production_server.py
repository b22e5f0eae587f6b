"""The shipped gunicorn configuration, through the real server (issue 18 defects 2-4): idle keep-alive
connections survive longer than a balancer's idle timeout is usually set below, a refused body never
breaks the next request on its connection, chunked bodies are read with the same size limit, and long
URLs are answered by the service in its envelope."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

import pytest

from tests.support.server import running_service

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def gunicorn(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock(), running_service({"MAX_REQUEST_BODY_BYTES": "65536"}, server="gunicorn") as url:
        yield urlsplit(url).port


class Connection:
    """One raw keep-alive HTTP/1.1 connection, so reuse is exactly what the test says."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""

    def send(self, raw: bytes) -> None:
        self.sock.sendall(raw)

    def request(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body and "Transfer-Encoding" not in (headers or {}):
            lines.append(f"Content-Length: {len(body)}")
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def response(self) -> tuple[int, dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                raise ConnectionError("closed before a response")
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in header_lines)}
        if headers.get("transfer-encoding", "").lower() == "chunked":
            return int(status_line.split()[1]), headers, self._chunked_body()
        return int(status_line.split()[1]), headers, self._take(int(headers.get("content-length", "0")))

    def _take(self, length: int) -> bytes:
        while len(self.buffer) < length:
            if not self._fill():
                raise ConnectionError("closed mid-body")
        taken, self.buffer = self.buffer[:length], self.buffer[length:]
        return taken

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            if not self._fill():
                raise ConnectionError("closed mid-body")
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _chunked_body(self) -> bytes:
        body = b""
        while True:
            size = int(self._line().split(b";")[0], 16)
            if size == 0:
                self._line()  # the empty line after the last chunk (no trailers are sent)
                return body
            body += self._take(size)
            self._line()

    def closed_by_server(self) -> bool:
        self.sock.settimeout(5)
        try:
            return self.sock.recv(1) == b""
        except (ConnectionResetError, TimeoutError):
            return False

    def close(self) -> None:
        self.sock.close()


def test_an_idle_keep_alive_connection_is_still_served_after_several_seconds(gunicorn):
    connection = Connection(gunicorn)
    connection.request("GET", "/healthz")
    assert connection.response()[0] == 200
    time.sleep(4)  # gunicorn's default keep-alive (2 s) closed it here
    connection.request("GET", "/healthz")
    status, headers, _ = connection.response()
    assert status == 200 and headers.get("connection", "keep-alive").lower() != "close"
    connection.close()


def test_after_a_413_the_next_request_on_the_connection_is_served_or_the_connection_was_closed_cleanly(
    gunicorn, issue_key
):
    key = issue_key("live")
    connection = Connection(gunicorn)
    oversized = b'{"imo": "' + b"9" * 100_000 + b'"}'
    connection.request(
        "POST", "/api/v1/screenings",
        {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Idempotency-Key": "big"}, oversized,
    )  # fmt: skip
    status, headers, body = connection.response()
    assert status == 413 and json.loads(body)["code"] == "request_too_large"
    if headers.get("connection", "").lower() == "close":
        assert connection.closed_by_server()
    else:
        connection.request("GET", "/healthz")
        assert connection.response()[0] == 200
    connection.close()


def test_a_chunked_body_is_read_like_any_other_and_an_oversized_one_is_413(gunicorn, issue_key):
    key = issue_key("live")
    body = b'{"imo": "IMO 9074729", "customer_reference": "chunked"}'
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:])) + b"0\r\n\r\n"
    headers = {
        "Authorization": f"Bearer {key}", "Content-Type": "application/json", "Idempotency-Key": "chunked-1",
        "Transfer-Encoding": "chunked",
    }  # fmt: skip
    connection = Connection(gunicorn)
    connection.request("POST", "/api/v1/screenings", headers, chunks)
    status, _, answer = connection.response()
    assert status == 201, answer
    assert json.loads(answer)["imo"] == "9074729" and json.loads(answer)["customer_reference"] == "chunked"
    connection.close()

    big = b"x" * 70_000
    connection = Connection(gunicorn)
    connection.request(
        "POST", "/api/v1/screenings", {**headers, "Idempotency-Key": "chunked-2"},
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big),
    )  # fmt: skip
    status, _, answer = connection.response()
    assert status == 413 and json.loads(answer)["code"] == "request_too_large"
    connection.request("GET", "/healthz")  # gunicorn drains the unread rest: the connection stays usable
    assert connection.response()[0] == 200
    connection.close()


def test_a_url_longer_than_the_service_reads_is_answered_by_the_service_in_json(gunicorn, issue_key):
    connection = Connection(gunicorn)
    connection.request(
        "GET", "/api/v1/screenings?cursor=" + "a" * 6000, {"Authorization": f"Bearer {issue_key('live')}"}
    )
    status, headers, body = connection.response()
    assert status == 414 and headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "uri_too_long"
    connection.close()

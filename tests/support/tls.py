"""Self-signed certificates and a real local HTTPS receiver for tests that call out."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def self_signed_certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A certificate for `name` (a DNS name or an IP address) and its key, written under `folder`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    try:
        alternative: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        alternative = x509.DNSName(name)
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([alternative]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class HttpsReceiver:
    """A webhook receiver on https://127.0.0.1:<port> with a certificate for 127.0.0.1.

    `answers` is consumed one per request (status code, or (status code, seconds to wait first));
    when it is empty every request gets `default_status`. Every request is kept in `received`.
    Point REQUESTS_CA_BUNDLE at `certificate` so the service trusts it (and nothing else).
    """

    certificate: Path
    server: ThreadingHTTPServer
    default_status: int = 200
    answers: list = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.server.server_address[1]}"

    def next_answer(self) -> tuple[int, float]:
        with self.lock:
            answer = self.answers.pop(0) if self.answers else self.default_status
        return (answer, 0.0) if isinstance(answer, int) else answer

    def record(self, received: Received) -> None:
        with self.arrived:
            self.received.append(received)
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.received)} of {count} requests arrived in {timeout} s")
                self.arrived.wait(left)
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_https_receiver(folder: Path) -> HttpsReceiver:
    cert, key = self_signed_certificate(folder, "127.0.0.1")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two small writes

        def log_message(self, *args):  # noqa: ANN002
            pass

        def do_POST(self):  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            status, wait = receiver.next_answer()
            receiver.record(Received(self.path, dict(self.headers.items()), body, time.time()))
            if wait:
                time.sleep(wait)
            answer = json.dumps({"received": True, "status": status}).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except OSError:  # the caller gave up (timeout) first
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    receiver = HttpsReceiver(cert, server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver

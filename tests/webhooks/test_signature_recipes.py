"""Issue 13 item 3: the reference page's verification recipes, taken out of the published document (the
"Verifying webhook signatures" section Redoc draws, issue 30) and run against
signatures the service makes (webhooks.delivery.signature_header): Python in this process, Node in a
subprocess (skipped without `node`)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import time

import pytest

from webhooks.delivery import signature_header

pytestmark = pytest.mark.django_db

NEW = "whsec_" + "a1" * 32
OLD = "whsec_" + "b2" * 32
BODY = b'{"id":"evt_01JTEST","type":"webhook.test","data":{"message":"caf\xc3\xa9"}}'


SECTION = "Verifying webhook signatures"  # a tag of the OpenAPI document, drawn by Redoc on /api/v1/docs
FENCES = {"python": "## Python (standard library only)", "node": "## Node.js (node:crypto only)"}


def _section(client) -> str:
    document = client.get("/api/v1/openapi.json")
    assert document.status_code == 200
    tags = {tag["name"]: tag for tag in document.json()["tags"]}
    assert tags[SECTION].get("x-traitTag") is True
    return tags[SECTION]["description"]


def _recipe(client, name: str) -> str:
    found = re.search(rf"^{re.escape(FENCES[name])}\n+```[a-z]+\n(.*?)^```$", _section(client), re.S | re.M)
    assert found, f"no {name} recipe in the reference page's section"
    return found.group(1)


def _cases() -> list[tuple[str, str, str, bytes, bool]]:
    """(what, secret, header, body, accepted?) signed now, or 10 minutes ago for the stale case."""
    now = int(time.time())
    return [
        ("one secret", NEW, signature_header([NEW], now, BODY), BODY, True),
        ("rotation: the new secret", NEW, signature_header([NEW, OLD], now, BODY), BODY, True),
        ("rotation: the old secret", OLD, signature_header([NEW, OLD], now, BODY), BODY, True),
        ("a tampered body", NEW, signature_header([NEW], now, BODY), BODY.replace(b"test", b"tost"), False),
        ("a wrong secret", "whsec_" + "c3" * 32, signature_header([NEW], now, BODY), BODY, False),
        ("a stale timestamp", NEW, signature_header([NEW], now - 600, BODY), BODY, False),
        ("a future timestamp", NEW, signature_header([NEW], now + 600, BODY), BODY, False),
        ("no v1", NEW, f"t={now}", BODY, False),
        ("no t", NEW, signature_header([NEW], now, BODY).split(",", 1)[1], BODY, False),
        ("garbage", NEW, "nonsense", BODY, False),
    ]


def test_the_page_has_the_section_with_the_header_format_and_the_schedule(client):
    page = _section(client)
    assert "X-Service-Signature: t=<unix>,v1=<hex>[,v1=<hex>]" in page
    assert "X-Service-Event-Id" in page and "410 Gone" in page
    assert "8 attempts" in page and "1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h" in page


def test_the_python_recipe_accepts_real_signatures_and_rejects_the_rest(client):
    source = _recipe(client, "python")
    assert re.findall(r"^(?:import|from) (\S+)", source, re.M) == ["hashlib", "hmac", "time"]  # stdlib only
    namespace: dict = {}
    exec(compile(source, "recipe.py", "exec"), namespace)  # noqa: S102 - the page's own snippet
    verify = namespace["verify_signature"]
    results = {what: verify(secret, header, body) for what, secret, header, body, _ in _cases()}
    assert results == {what: accepted for what, _, _, _, accepted in _cases()}


def test_the_node_recipe_accepts_real_signatures_and_rejects_the_rest(client, tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    source = _recipe(client, "node")
    assert re.findall(r"require\(\"([^\"]+)\"\)", source) == ["node:crypto"]  # node:crypto only
    assert "timingSafeEqual" in source
    (tmp_path / "recipe.js").write_text(source)
    (tmp_path / "run.js").write_text(
        'const { verifySignature } = require("./recipe.js");\n'
        'const cases = JSON.parse(require("node:fs").readFileSync(0, "utf8"));\n'
        "const out = {};\n"
        'for (const c of cases) out[c.what] = verifySignature(c.secret, c.header, Buffer.from(c.body, "base64"));\n'
        "process.stdout.write(JSON.stringify(out));\n"
    )
    cases = _cases()
    payload = [
        {"what": what, "secret": secret, "header": header, "body": base64.b64encode(body).decode()}
        for what, secret, header, body, _ in cases
    ]
    ran = subprocess.run(
        [node, str(tmp_path / "run.js")], input=json.dumps(payload).encode(), capture_output=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    assert json.loads(ran.stdout) == {what: accepted for what, _, _, _, accepted in cases}

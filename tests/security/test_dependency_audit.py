"""bin/audit: how it judges pip-audit's and npm audit's reports (a finding fails, no advisory data skips).

The reports are in the tools' own JSON shapes (pip-audit 2.10 `--format json`, npm 9+ `audit --json`);
the "unreachable" ones are what this machine's registry mirror and npm endpoint really answer.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
from pathlib import Path

import pytest

AUDIT_SCRIPT = Path(__file__).resolve().parent.parent.parent / "bin" / "audit"


@pytest.fixture(scope="module")
def audit():  # type: ignore[no-untyped-def]
    loader = importlib.machinery.SourceFileLoader("bin_audit", str(AUDIT_SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("bin_audit", loader))
    sys.modules["bin_audit"] = module  # its dataclasses look their module up there
    try:
        loader.exec_module(module)
        yield module
    finally:
        del sys.modules["bin_audit"]


def test_the_pinned_audit_tool_is_pip_audit():
    pins = (AUDIT_SCRIPT.parent.parent / "requirements-audit.txt").read_text()
    assert any(line.startswith("pip_audit==") or line.startswith("pip-audit==") for line in pins.splitlines())


def test_a_known_vulnerability_fails_the_audit_and_is_listed(audit):
    report = {
        "dependencies": [
            {"name": "django", "version": "5.2.0", "vulns": [
                {"id": "PYSEC-2025-1", "fix_versions": ["5.2.1"], "aliases": ["CVE-2025-0001"], "description": "…"}]},
            {"name": "celery", "version": "5.7.0", "vulns": []},
        ],
        "fixes": [],
    }  # fmt: skip
    result = audit.read_pip_audit_report(report)
    assert result.outcome == audit.FOUND
    assert "VULNERABLE django 5.2.0: PYSEC-2025-1 (fixed in 5.2.1)" in result.lines
    accepted = audit.read_pip_audit_report(report, frozenset({"CVE-2025-0001"}))
    assert accepted.outcome == audit.PASSED and any("accepted" in line for line in accepted.lines)


def test_a_clean_report_passes(audit):
    report = {"dependencies": [{"name": "celery", "version": "5.7.0", "vulns": []}], "fixes": []}
    assert audit.read_pip_audit_report(report).outcome == audit.PASSED


def test_no_advisory_data_for_any_requirement_is_a_skip_not_a_pass(audit):
    report = {
        "dependencies": [
            {"name": "amqp", "skip_reason": "Dependency not found on PyPI and could not be audited: amqp (5.4.2)"},
            {"name": "celery", "skip_reason": "Dependency not found on PyPI and could not be audited: celery (5.7.0)"},
        ],
        "fixes": [],
    }
    result = audit.read_pip_audit_report(report)
    assert result.outcome == audit.SKIPPED and "none of the 2 requirements" in result.lines[0]


def test_npm_audit_findings_fail_and_an_unreachable_endpoint_skips(audit):
    unreachable = {"message": "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
                   "error": {"summary": "", "detail": ""}}  # fmt: skip
    assert audit.read_npm_audit_report(json.dumps(unreachable)).outcome == audit.SKIPPED
    found = {
        "auditReportVersion": 2,
        "vulnerabilities": {"body-parser": {
            "name": "body-parser", "severity": "high", "isDirect": False, "range": "<1.20.3", "fixAvailable": True,
            "via": [{"source": 1099520, "name": "body-parser", "title": "body-parser vulnerable to denial of service",
                     "url": "https://github.com/advisories/GHSA-qwcr-r2fm-qrc7", "severity": "high"}]}},
        "metadata": {"vulnerabilities": {"info": 0, "low": 0, "moderate": 0, "high": 1, "critical": 0, "total": 1},
                     "dependencies": {"total": 95}},
    }  # fmt: skip
    result = audit.read_npm_audit_report(json.dumps(found))
    assert result.outcome == audit.FOUND
    assert any(line.startswith("VULNERABLE body-parser (high") and "denial of service" in line for line in result.lines)
    clean = {"vulnerabilities": {}, "metadata": {"vulnerabilities": {"total": 0}, "dependencies": {"total": 95}}}
    assert audit.read_npm_audit_report(json.dumps(clean)).outcome == audit.PASSED

"""Issue 30 item 6: bin/run installs the runtime requirements only; the test, type-check and lint tools
live in requirements-dev.txt, which bin/test and CI add."""

from __future__ import annotations

import ast
import re
from importlib import metadata
from pathlib import Path

from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent.parent
NOT_SERVICE_CODE = {"tests", "bench", "docs", "var", "node_modules", ".venv", ".git"}
DEV_TOOLS = {"pytest", "pytest-django", "pytest-xdist", "ruff", "mypy", "playwright", "schemathesis", "hypothesis",
             "django-stubs", "djangorestframework-stubs", "factory-boy", "faker", "pypdf"}  # fmt: skip
SERVERS = {"uvicorn", "gunicorn", "celery"}  # started by bin/run and the Procfile, not imported


def pins(name: str) -> dict[str, str]:
    lines = (ROOT / name).read_text().splitlines()
    found = {}
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+-]+", line), f"{name}: not an exact pin: {line}"
        package, _, version = line.partition("==")
        found[canonicalize_name(package)] = version
    return found


def service_imports() -> set[str]:
    modules: set[str] = set()
    for path in ROOT.rglob("*.py"):
        if NOT_SERVICE_CODE & set(path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    modules |= {entry.split(".")[0] for entry in [*settings.INSTALLED_APPS, *settings.MIDDLEWARE]}
    return modules


def runtime_closure(names: set[str]) -> set[str]:
    """The distributions `names` need at run time (their requirements, without extras), transitively."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.distribution(name).requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def test_runtime_and_development_requirements_are_disjoint_exact_pins():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert runtime and dev
    assert not set(runtime) & set(dev)


def test_the_runtime_set_holds_no_test_or_lint_tool():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert not DEV_TOOLS & set(runtime)
    assert DEV_TOOLS <= set(dev)


def test_the_runtime_set_holds_everything_the_service_imports_and_runs_with():
    by_module = metadata.packages_distributions()
    imported = {canonicalize_name(d) for module in service_imports() for d in by_module.get(module, [])}
    needed = runtime_closure(imported | SERVERS)
    missing = needed - set(pins("requirements.txt"))
    assert not missing, f"needed at run time but only in requirements-dev.txt (or nowhere): {sorted(missing)}"


def test_bin_run_installs_the_runtime_set_and_bin_test_both():
    run, test, setup = ((ROOT / "bin" / name).read_text() for name in ("run", "test", "setup"))
    assert re.search(r'^"\$ROOT/bin/setup"$', run, re.M)
    assert re.search(r'^"\$ROOT/bin/setup" --dev', test, re.M)
    assert "-r requirements.txt -r requirements-dev.txt" in setup

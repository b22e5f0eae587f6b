"""The apps depend on each other in one direction (issue 26): core at the bottom, config at the top.

Read from the source (every import, also those inside functions, except `if TYPE_CHECKING:` blocks):
no import circle between apps or between the modules of one app, and no app imports one above it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# Lowest first. An app may import apps of its own layer or below. webhooks sits low because every
# emitter writes to its event outbox (webhooks.events.emit) in its own transaction; the OpenAPI
# document's webhooks section, which imports the emitters, is wired in config (config/openapi_webhooks.py).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("accounts",),
    ("metering",),
    ("webhooks",),
    ("jobs",),
    ("screening",),
    ("voyages",),
    ("behaviour",),
    ("monitoring", "cargo", "exports", "portal", "mcp_bridge", "backoffice"),
    ("config",),
)
LAYER_OF = {app: level for level, apps in enumerate(LAYERS) for app in apps}


def _modules() -> dict[str, Path]:
    found = {}
    for app in LAYER_OF:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported(tree: ast.AST) -> list[str]:
    """Every module named by an import in `tree`, outside `if TYPE_CHECKING:` blocks."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking_block(child):
                continue
            if isinstance(child, ast.Import):
                names.extend(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names.append(child.module)
                names.extend(f"{child.module}.{alias.name}" for alias in child.names)
            visit(child)

    visit(tree)
    return names


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for target in _imported(ast.parse(path.read_text())):
            if target in modules and target != name:
                edges[name].add(target)
    return edges


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in list(edges):
        if node not in index:
            connect(node)
    return found


def _app(module: str) -> str:
    return module.split(".")[0]


def test_no_import_circle_between_apps():
    apps: dict[str, set[str]] = defaultdict(set)
    for source, targets in _graph().items():
        apps[_app(source)].update(_app(target) for target in targets if _app(target) != _app(source))
    assert _circles(apps) == []


def test_no_import_circle_inside_an_app():
    assert _circles(_graph()) == []


def test_no_app_imports_an_app_above_it():
    upward = sorted(
        f"{source} imports {target}"
        for source, targets in _graph().items()
        for target in targets
        if LAYER_OF[_app(target)] > LAYER_OF[_app(source)]
    )
    assert upward == []


def test_every_app_of_the_service_has_a_layer():
    apps = {path.parent.name for path in ROOT.glob("*/apps.py")}
    assert apps - set(LAYER_OF) == set()


def test_the_checks_see_a_circle_and_an_upward_import():
    edges = {"a.x": {"b.y"}, "b.y": {"a.z"}, "a.z": set()}
    assert _circles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]
    assert _circles(edges) == []  # modules of two apps importing each other are a circle of apps, not modules
    assert _imported(ast.parse("if TYPE_CHECKING:\n    import core.api\ndef f():\n    import jobs.flow\n")) == [
        "jobs.flow"
    ]


def test_the_type_checker_reads_every_app():
    import tomllib

    checked = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    assert sorted(checked) == sorted(LAYER_OF)

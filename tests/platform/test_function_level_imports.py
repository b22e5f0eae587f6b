"""Function-level imports of project modules stay only where they must, and each says why.

Project rule: a module of an app imports the project modules it uses at the top. An import inside
a function is kept only where the lazy import saves start-up time (or breaks an unavoidable cycle, or
waits for Django's app registry), and a comment on that line or the line before says so. The apps
walked are those of the import layers (tests/platform/test_import_layers.py), migrations aside.
"""

from __future__ import annotations

import ast

from tests.platform.test_import_layers import LAYER_OF, ROOT, _modules


def _unexplained(source: str) -> list[tuple[int, str]]:
    """(line, text) of each import of a project module inside a function with no comment on it or above it."""
    lines = source.splitlines()
    found: set[tuple[int, str]] = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] if node.level == 0 else ["."]  # a relative import is ours
            else:
                continue
            if not any(module == "." or module.split(".")[0] in LAYER_OF for module in modules):
                continue
            line = lines[node.lineno - 1]
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            if "#" not in line and not above.startswith("#"):
                found.add((node.lineno, line.strip()))
    return sorted(found)


def test_every_function_level_import_of_a_project_module_says_why():
    unexplained = [
        f"{path.relative_to(ROOT)}:{lineno}: {text}"
        for path in sorted(_modules().values())
        for lineno, text in _unexplained(path.read_text())
    ]
    assert unexplained == [], "move these to the top of the module, or say on or above the line why they are lazy"


def test_the_check_sees_an_unexplained_import():
    source = (
        "import json\n"
        "def f():\n"
        "    import json\n"  # not a project module
        "    from core import outbound\n"
        "    # lazy: costs start-up time\n"
        "    from voyages import routing\n"
        "    from screening.verdict import X  # lazy: breaks a cycle\n"
        "    def inner():\n"
        "        import metering.auth\n"
        "    from . import sibling\n"
    )
    assert _unexplained(source) == [
        (4, "from core import outbound"),
        (9, "import metering.auth"),
        (10, "from . import sibling"),
    ]

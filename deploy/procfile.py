"""Read the Procfile and turn one process's command into an argument list, with an environment.

The Procfile is what production runs (honcho or foreman pass each line to a shell; the systemd
units in deploy/systemd run the same text under `/bin/sh -c`). The drills and the load bench start
their gunicorn and Celery worker from it through this module, so the shipped commands are the ones
they exercise. Only the shell forms the Procfile uses are understood: `${NAME:-default}`,
`${NAME}` and `$NAME`, and shell quoting; anything else a shell would interpret (pipes, `&&`,
redirections, command substitution) is refused rather than passed on literally.

    python -m deploy.procfile                 # the process names, one a line
    python -m deploy.procfile show web        # the command as it would run in this environment
    python -m deploy.procfile run worker      # replace this process with it (what a supervisor runs)
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROCFILE = ROOT / "Procfile"

# honcho and foreman accept the same shape: a name of letters, digits, '_' or '-', a colon, a command.
_LINE = re.compile(r"^(?P<name>[A-Za-z0-9_-]+):\s*(?P<command>\S.*)$")
_REFERENCE = re.compile(
    r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}$]*))?\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)
# Characters a shell would act on that shlex would silently keep as text.
_SHELL_SYNTAX = re.compile(r"[|;&<>`]|\$\(")


class ProcfileError(ValueError):
    """The Procfile is malformed or names no such process."""


def read_procfile(path: Path = PROCFILE) -> dict[str, str]:
    """Process name -> command text, in file order; comments and blank lines are skipped."""
    processes: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ProcfileError(f"{path}:{number}: not 'name: command': {raw!r}")
        name = match.group("name")
        if name in processes:
            raise ProcfileError(f"{path}:{number}: process {name!r} is defined twice")
        processes[name] = match.group("command").strip()
    return processes


def expand(command: str, environment: Mapping[str, str]) -> list[str]:
    """The argument list a POSIX shell would run for `command` under `environment`.

    `${NAME:-default}` takes the default when NAME is unset or empty, as the shell does; an unset
    `$NAME` or `${NAME}` is empty. Values are substituted before splitting, so a value holding a
    space becomes two arguments, as it would unquoted in a shell (the Procfile never quotes them).
    """
    if _SHELL_SYNTAX.search(command):
        raise ProcfileError(f"shell syntax this reader does not run: {command!r}")
    if "$" in _REFERENCE.sub("", command):
        raise ProcfileError(f"a '$' this reader does not understand: {command!r}")

    def substitute(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        value = environment.get(name, "")
        if match.group("default") is not None and not value:
            return match.group("default")
        return value

    return shlex.split(_REFERENCE.sub(substitute, command))


def command_for(
    name: str,
    environment: Mapping[str, str],
    extra: Sequence[str] = (),
    procfile: Path = PROCFILE,
) -> list[str]:
    """Process `name`'s argument list under `environment`, with `extra` arguments appended.

    The program is looked up on the environment's PATH (as a shell would), so a caller puts the
    virtualenv's bin folder first to run its gunicorn, uvicorn or celery.
    """
    processes = read_procfile(procfile)
    if name not in processes:
        raise ProcfileError(f"the Procfile has no {name!r} process (it has {', '.join(processes)})")
    arguments = expand(processes[name], environment) + list(extra)
    program = _which(arguments[0], environment.get("PATH", os.defpath))
    if program is None:
        raise ProcfileError(f"{arguments[0]!r} ({name}) is not on PATH {environment.get('PATH', '')!r}")
    return [program, *arguments[1:]]


def _which(program: str, path: str) -> str | None:
    if "/" in program:
        return os.path.abspath(program) if os.access(program, os.X_OK) else None
    for folder in path.split(os.pathsep):
        candidate = Path(folder or ".") / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def with_virtualenv_path(environment: Mapping[str, str], python: str = sys.executable) -> dict[str, str]:
    """`environment` with the folder of `python` (a virtualenv's bin) first on PATH."""
    folder = str(Path(python).parent)
    rest = environment.get("PATH", os.defpath)
    return {**environment, "PATH": f"{folder}{os.pathsep}{rest}" if rest else folder}


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("\n".join(read_procfile()))
        return 0
    if len(argv) < 2 or argv[0] not in {"show", "run"}:
        print(__doc__, file=sys.stderr)
        return 2
    action, name, *extra = argv
    # The programs come from the virtualenv of the Python running this module, as in bin/run.
    environment = with_virtualenv_path(os.environ)
    arguments = command_for(name, environment, extra)
    if action == "show":
        print(shlex.join(arguments))
        return 0
    os.chdir(ROOT)  # the commands name config/gunicorn.conf.py and the `config` package relative to it
    os.execve(arguments[0], arguments, environment)
    return 1  # not reached: execvp replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

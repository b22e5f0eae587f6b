"""Process start time and memory: a management command, and a serving worker after real work.

    .venv/bin/python bench/process_bench.py [--root TREE] [--runs 5] [--workers 1] [--json]

(1) `manage.py check` run --runs times as a fresh process: wall time (median and best), CPU
    time and peak RSS (ru_maxrss of the child, from os.wait4).
(2) gunicorn (`config.wsgi:application`, --workers workers x 4 threads, default 1) on a fresh
    SQLite database with the demo world: each worker's RSS, PSS and private memory
    (/proc/PID/status and smaps_rollup) after start, after its first POST /api/v1/screenings, its
    first POST /api/v1/voyage-assessments (NLRTM to SGSIN: builds the sea network and the port
    catalogue, sampling the land mask) and the assessment's report page (the server-drawn map).

--root runs another checkout (e.g. a `git worktree` of an older commit with .venv symlinked) with
its own .venv; the database is a temporary SQLite file, the var dir is the tree's own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run_timed(cmd: list[str], cwd: Path, env: dict) -> dict:
    """Run a child to completion: wall seconds, CPU seconds, peak RSS (MB)."""
    started = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {child.stderr.read().decode()[-2000:]}")
    child.stderr.close()
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024}


def command_start(root: Path, env: dict, runs: int) -> dict:
    python = str(root / ".venv" / "bin" / "python")
    run_timed([python, "manage.py", "check"], root, env)  # warm the page cache and .pyc files
    samples = [run_timed([python, "manage.py", "check"], root, env) for _ in range(runs)]
    walls = [s["wall_s"] for s in samples]
    return {
        "runs": runs,
        "wall_median_s": statistics.median(walls),
        "wall_best_s": min(walls),
        "cpu_median_s": statistics.median(s["cpu_s"] for s in samples),
        "max_rss_mb": max(s["max_rss_mb"] for s in samples),
    }


def memory_of(pid: int) -> dict:
    """RSS and high-water mark (status), PSS and private bytes (smaps_rollup), in MB."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in {"VmRSS", "VmHWM", "RssAnon", "RssFile"}:
                out[key] = int(value.split()[0]) / 1024
    try:
        with open(f"/proc/{pid}/smaps") as handle:
            mapping = ""
            for line in handle:
                first = line.split(maxsplit=1)[0]
                if "-" in first and not first.endswith(":"):
                    mapping = line.rstrip().rsplit(" ", 1)[-1]
                elif first == "Rss:" and "landmask" in mapping:
                    out["LandMask"] = out.get("LandMask", 0.0) + int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in {"Pss", "Private_Clean", "Private_Dirty"}:
                    out[key] = int(value.split()[0]) / 1024
        out["Private"] = out.pop("Private_Clean", 0.0) + out.pop("Private_Dirty", 0.0)
    except OSError:
        pass
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url: str, method: str = "GET", body: dict | None = None, headers: dict | None = None) -> tuple:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Connection": "close", **(headers or {})})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=300) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


def worker_pids(master: int) -> list[int]:
    try:
        with open(f"/proc/{master}/task/{master}/children") as handle:
            return sorted(int(p) for p in handle.read().split())
    except OSError:
        return []


def serving_worker(root: Path, env: dict, workers: int) -> dict:
    python = str(root / ".venv" / "bin" / "python")
    scratch = Path(tempfile.mkdtemp(prefix="process_bench_"))
    env = {**env, "DATABASE_URL": f"sqlite:///{scratch / 'bench.sqlite3'}", "ACCESS_LOG_MODE": "sync"}
    for args in (["migrate", "--noinput", "-v0"], ["seed_demo"]):
        run_timed([python, "manage.py", *args], root, env)
    issued = subprocess.run(
        [python, "manage.py", "issue_key", "--email", "bench@example.com", "--environment", "test"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    key = issued.stdout.strip().splitlines()[-1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env["PUBLIC_BASE_URL"] = base
    server = subprocess.Popen(
        [
            str(root / ".venv" / "bin" / "gunicorn"),
            "config.wsgi:application",
            "-w",
            str(workers),
            "--threads",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "--timeout",
            "300",
            "--log-level",
            "warning",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    stages: dict[str, dict[int, dict]] = {}
    timings: dict[str, list[float]] = {}
    try:
        deadline = time.monotonic() + 180
        started = time.perf_counter()
        while True:
            try:
                if request(f"{base}/healthz")[0] == 200 and len(worker_pids(server.pid)) == workers:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("gunicorn did not come up")
            time.sleep(0.1)
        timings["first /healthz answered after start (s)"] = [time.perf_counter() - started]
        pids = worker_pids(server.pid)
        time.sleep(1.0)
        stages["started"] = {pid: memory_of(pid) for pid in pids}
        auth = {"Authorization": f"Bearer {key}"}
        number = 0
        # With --workers N each step is sent N times (one connection each); which worker takes
        # a connection is the kernel's choice, so a worker may serve a step twice and another none.
        for step in ("screening", "assessment", "report page"):
            for _ in range(workers):
                number += 1
                began = time.perf_counter()
                if step == "screening":
                    status, body, _ = request(
                        f"{base}/api/v1/screenings",
                        "POST",
                        {"imo": "9300776"},
                        {**auth, "Idempotency-Key": f"pb-{number}"},
                    )
                    assert status in (200, 201), (status, body[:300])
                elif step == "assessment":
                    status, body, _ = request(
                        f"{base}/api/v1/voyage-assessments",
                        "POST",
                        {
                            "route": {
                                "origin": "NLRTM",
                                "destination": "SGSIN",
                                "vessel_type": "container",
                                "dwt_tonnes": 120000,
                            }
                        },
                        {**auth, "Idempotency-Key": f"pb-{number}"},
                    )
                    assert status in (200, 201, 202), (status, body[:300])
                    document = json.loads(body)
                    report = _find_report(document)
                else:
                    assert report, "the assessment has no report_url"
                    status, body, _ = request(report)
                    assert b"route-map" in body, "the report page drew no map"
                    assert status == 200, (status, body[:300])
                timings.setdefault(f"{step} (s)", []).append(time.perf_counter() - began)
            time.sleep(0.5)
            stages[f"after {step}"] = {pid: memory_of(pid) for pid in pids}
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)
    return {"workers": workers, "stages": stages, "timings": timings}


def _find_report(document: object) -> str | None:
    if isinstance(document, dict):
        for value in document.values():
            if isinstance(value, str) and value.endswith("/report") and "voyage-assessments" in value:
                return value
            found = _find_report(value)
            if found:
                return found
    elif isinstance(document, list):
        for value in document:
            found = _find_report(value)
            if found:
                return found
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=HERE)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.setdefault("PYTHONDONTWRITEBYTECODE", "")
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    label = f"{root} @ {commit.stdout.strip()}{' + working tree' if dirty.stdout.strip() else ''}"
    print(f"process bench: {label}  ({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f})")

    command = command_start(root, env, args.runs)
    print(
        f"manage.py check      wall median {command['wall_median_s']:.2f} s  best {command['wall_best_s']:.2f} s  "
        f"cpu {command['cpu_median_s']:.2f} s  peak RSS {command['max_rss_mb']:.0f} MB  ({args.runs} runs)"
    )
    serving = serving_worker(root, env, args.workers)
    for name, values in serving["timings"].items():
        print(f"  {name:<44} {' '.join(f'{v:.2f}' for v in values)}")
    print(f"gunicorn, {args.workers} worker(s) x 4 threads, per worker (MB): RSS (anon + file) / PSS / private")
    for stage, per_pid in serving["stages"].items():
        cells = "   ".join(
            f"pid {pid}: {m['VmRSS']:.0f} ({m.get('RssAnon', 0):.0f}+{m.get('RssFile', 0):.0f}) / "
            f"{m.get('Pss', 0):.0f} / {m.get('Private', 0):.0f}"
            + (f" (land mask pages {m['LandMask']:.0f})" if "LandMask" in m else "")
            for pid, m in per_pid.items()
        )
        print(f"  {stage:<22} {cells}")
    final = serving["stages"]["after report page"]
    print(
        f"serving worker RSS after first screening + assessment + report: max {max(m['VmRSS'] for m in final.values()):.0f} MB"
        f" (peak {max(m['VmHWM'] for m in final.values()):.0f} MB)"
    )
    if args.json:
        print(json.dumps({"root": label, "command": command, "serving": serving}, default=str))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

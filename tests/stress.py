"""README command 2 on a busy machine: the tests beside N CPU-bound processes, the result reported.

Why: a verdict that depends on the machine's load fails a contributor's run for nothing (a
count read at a fixed moment, a wall-clock bound, a grace in seconds). This runs a command while
``--load N`` processes spin on the cores, ``--runs K`` times in a row, and prints each run's time, exit status
and pytest's closing line; exit status 1 if any run failed. The default command is README command 2
itself, read from the README (venv, install, ``python -m pytest``), in this checkout.

    .venv/bin/python tests/stress.py --load 2 --runs 3
    .venv/bin/python tests/stress.py --load 4 -- .venv/bin/python -m pytest tests/test_capture.py

Each run's log is kept in ``reports/stress/run-K.log``; ``reports/stress.md`` lists the runs.
Each run has an empty store of its own (``FIELDNOTES_STORE`` in a new temporary folder), as a
fresh clone has: a second run that found the first run's page results would not run the pages.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports" / "stress"


def command_2(readme: Path = ROOT / "README.md") -> str:
    """README command 2 as the README writes it (the line after its comment), which .ci/run runs."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("# 2. Install and run every test"))
    return lines[at + 1].strip()


def spin() -> None:
    """One busy core: pure Python arithmetic, forever (ended by the parent)."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


def closing_line(log: str) -> str:
    lines = [line.strip("= ").strip() for line in log.splitlines() if line.strip()]
    return next((line for line in reversed(lines) if " in " in line and ("passed" in line or "failed" in line
                                                                        or "error" in line)), lines[-1] if lines else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside the command")
    parser.add_argument("--runs", type=int, default=1, help="runs in a row")
    parser.add_argument("command", nargs="*", help="the command (default: .venv/bin/python -m pytest)")
    args = parser.parse_args()
    command = args.command or ["bash", "-c", command_2()]
    OUT.mkdir(parents=True, exist_ok=True)
    rows, failed = [], 0
    for k in range(1, args.runs + 1):
        load = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.load)]
        for p in load:
            p.start()
        start = time.monotonic()
        path = OUT / f"run-{k}.log"  # written as the run goes: follow it with tail -f
        try:
            with path.open("wb") as out, tempfile.TemporaryDirectory(prefix="stress-store-") as store:
                done = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                      env=dict(os.environ, NO_MKDOCS_2_WARNING="1", FIELDNOTES_STORE=store))
        finally:
            for p in load:
                p.kill()
                p.join()
        seconds = time.monotonic() - start
        log = path.read_text(encoding="utf-8", errors="replace")
        row = (k, seconds, done.returncode, closing_line(log))
        rows.append(row)
        failed += done.returncode != 0
        print(f"run {k}: {seconds:.0f} s, exit {done.returncode}: {row[3]}", flush=True)
        write_report(command, args.load, rows)  # after each run: a long series cut short keeps its runs
    return 1 if failed else 0


def write_report(command: list[str], load: int, rows: list[tuple[int, float, int, str]]) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    lines = [f"# Stress: `{command[-1] if command[:2] == ['bash', '-c'] else ' '.join(command)}` "
             f"beside {load} CPU-bound processes, {os.cpu_count()} cores, commit {commit}", "",
             "| run | seconds | exit | pytest's closing line |", "|---:|---:|---:|---|"]
    lines += [f"| {k} | {s:.0f} | {rc} | {line} |" for k, s, rc, line in rows]
    (ROOT / "reports" / "stress.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

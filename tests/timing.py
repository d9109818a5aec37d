"""Where a test run's time goes: a pytest plugin that writes every phase's times as JSON.

Why: ``reports/ci-time.md`` (``tests/ci_time.py``) splits README command 2 into install, build,
page blocks, notebooks and scripts, browser tests, search and the rest. pytest's own durations
hide what matters here: the site build happens inside whichever test first asks for it, and the
pages run in the background while other tests run. This plugin records, on the clock of the run:
when collection ended, each test's setup, call and teardown, each session or module fixture's
setup (the build, the browser tour), and how busy the machine's cores were every two seconds. Loaded only when asked for
(``-p timing`` with ``FIELDNOTES_TIMING=file.json``): the suite itself never depends on it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

TIMING = "FIELDNOTES_TIMING"
_events: dict = {"tests": [], "fixtures": [], "cpu": []}
_stop = threading.Event()


def _sample_cpu(every: float = 2.0) -> None:
    """The machine's busy share every ``every`` seconds (all cores, from /proc/stat): which parts
    of the run keep the cores busy and which leave them idle."""
    def read() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        idle = values[3] + values[4]  # idle + iowait
        return sum(values) - idle, sum(values)

    busy, total = read()
    while not _stop.wait(every):
        b, t = read()
        if t > total:
            _events["cpu"].append((time.time(), round((b - busy) / (t - total), 3)))
        busy, total = b, t


def pytest_sessionstart(session):
    _events["start"] = time.time()
    if os.path.exists("/proc/stat"):
        threading.Thread(target=_sample_cpu, daemon=True).start()


def pytest_collection_finish(session):
    _events["collected"] = time.time()
    _events["items"] = len(session.items)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    start = time.time()
    yield
    if fixturedef.scope in ("session", "module"):
        _events["fixtures"].append({"name": fixturedef.argname, "start": start, "seconds": time.time() - start,
                                    "test": request.node.nodeid})


def pytest_runtest_logreport(report):
    _events["tests"].append({"id": report.nodeid, "when": report.when, "start": report.start,
                             "seconds": report.stop - report.start, "outcome": report.outcome})


def pytest_sessionfinish(session, exitstatus):
    _events["end"] = time.time()
    _stop.set()
    _events["exitstatus"] = int(exitstatus)
    path = os.environ.get(TIMING)
    if path:
        Path(path).write_text(json.dumps(_events), encoding="utf-8")

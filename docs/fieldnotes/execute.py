"""The one executor: the build, the tests and the notebooks all run a page through :func:`run_page`.

Why a process per page: a block can do anything a script can (exit the interpreter, crash in
native code, start processes, change directory, set global torch state). Run in its own
interpreter (:mod:`fieldnotes.runner`), in a fresh temporary working directory and a session of
its own, the worst a block does ends with its page: the directory is deleted, every process the
page started is killed, and the caller gets a :class:`~fieldnotes.results.PageRun` saying what
happened and in which block.

Page interpreters are forked from a server process that has imported torch and numpy and
nothing else of a page (Python's multiprocessing "forkserver"): importing torch costs about a
second per page, most of a short page's run. The server is started once per process that runs
pages (a build, a test session, ``mkdocs serve``) with ``PYTHONHASHSEED=0``, so sets print in
the same order everywhere. ``FIELDNOTES_FORK=0`` starts a new interpreter per page instead.

The executor watches the interpreter's progress (a ``start`` line before each block), so a
block that ignores its time limit is killed a few seconds after it, and named.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from fieldnotes.blocks import Block
from fieldnotes.results import BlockResult, Env, PageRun, output_file

OUTPUT_CAP = 64 * 1024
"""Bytes one block may print (descriptors 1 and 2 together); more fails the block within about a
second, while it runs (a page is read, not scrolled)."""
STARTUP_SECONDS = 60.0  # python + torch import on a busy machine, before the first block
GRACE_SECONDS = 5.0  # past a block's own limit, before the executor kills the interpreter
OVERFLOW_GRACE_CPU_SECONDS = 1.0
"""Past the output cap, the CPU time the page's processes may spend before the executor kills them
(the interpreter stops such a block itself in far less). CPU time, not wall time: on a busy machine
the interpreter waits for a core, and a wall-clock grace killed blocks that were stopping, which
then reported "did not stop" instead of "was stopped"."""
OVERFLOW_GRACE_SECONDS = 30.0  # past the cap, for a block stuck where it spends no CPU and cannot be stopped
COPIED = ("snippets",)
"""Project folders copied into a page's working directory: blocks run ``snippets/x.py`` by
relative path, as a reader would from the repository root, without being able to change them."""


def run_page(blocks: list[Block], root: Path, upto: int | None = None,
             cap: int = OUTPUT_CAP, python: str | None = None, keep_going: bool = False) -> PageRun:
    """Run ``blocks[:upto]`` (all by default) in a fresh page interpreter; never raises for
    what the blocks do. ``python``: the interpreter of another environment (another torch,
    fieldnotes.matrix), started anew for the page, with this tree's fieldnotes on its path.
    ``keep_going``: run the blocks after a failed one too (the matrix wants each block's result;
    the build and the tests stop at the first failure, as later blocks depend on it)."""
    blocks = blocks[:upto] if upto is not None else blocks
    with tempfile.TemporaryDirectory(prefix="fieldnotes-page-") as scratch:
        scratch = Path(scratch)
        work, tmp = scratch / "work", scratch / "tmp"
        work.mkdir()
        tmp.mkdir()
        for name in COPIED:
            if (root / name).is_dir():
                shutil.copytree(root / name, work / name,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        job = scratch / "job.json"
        job.write_text(json.dumps({"blocks": [b.code_fields() for b in blocks], "cap": cap,
                                   "keep_going": keep_going}),
                       encoding="utf-8")
        results, log = scratch / "results.jsonl", scratch / "interpreter.log"
        with _server_lock:  # the fork server's start sets and restores SERVER_ENV in os.environ
            environ = dict(os.environ)  # (copied meanwhile by another thread: KeyError, seen in CI)
        env = dict(environ, TMPDIR=str(tmp), MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", **SERVER_ENV)
        if python:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), env.get("PYTHONPATH")]))
        proc = _start(job, results, log, work, env, python)
        progress, seen = _Progress(results), set()
        try:
            hung = _watch(proc, progress, blocks, seen, Path(output_file(results)), cap)
        finally:
            _kill_tree(proc, seen)
        return _collect(progress.poll(), log, blocks, proc.returncode, hung, Path(output_file(results)), cap,
                        keep_going)


SERVER_ENV = {
    "PYTHONHASHSEED": "0",  # sets print in the same order everywhere
    # torch's own log lines (torch._logging: dynamo's graph-break and recompile warnings) as
    # "LEVEL: message", without the time, process id and path that differ between runs and
    # machines; as Python warnings are shown as "Category: message" (fieldnotes.runner).
    "TORCH_LOGS_FORMAT": "%(levelname)s: %(message)s",
}
"""Environment of every page interpreter, set before torch is imported."""
PRELOAD = ["numpy", "torch", "fieldnotes.runner"]
PACKAGE_PARENT = Path(__file__).resolve().parents[1]  # docs/, which holds this fieldnotes package
"""What the fork server imports before it forks page interpreters (nothing a page sets up)."""
_server_lock = threading.Lock()


def _start(job: Path, results: Path, log: Path, work: Path, env: dict, python: str | None = None):
    """A page interpreter: forked from the server, or (FIELDNOTES_FORK=0, or another
    environment's ``python``) a new process."""
    if python or os.environ.get("FIELDNOTES_FORK", "1") == "0" or \
            "forkserver" not in multiprocessing.get_all_start_methods():
        with open(job, "rb") as stdin, open(log, "wb") as stdout:
            return subprocess.Popen([python or sys.executable, "-m", "fieldnotes.runner", str(results)],
                                    cwd=work, env=env, stdin=stdin, stdout=stdout,
                                    stderr=subprocess.STDOUT, start_new_session=True)
    context = multiprocessing.get_context("forkserver")
    with _server_lock:
        if not getattr(_start, "server_started", False):
            # The server inherits this process's environment when it starts: SERVER_ENV then
            # holds for every interpreter forked from it (torch reads its log format on import).
            saved = {name: os.environ.get(name) for name in SERVER_ENV}
            os.environ.update(SERVER_ENV)
            try:
                context.set_forkserver_preload(PRELOAD)
                from multiprocessing import forkserver
                forkserver.ensure_running()
            finally:
                for name, value in saved.items():
                    if value is None:
                        del os.environ[name]
                    else:
                        os.environ[name] = value
            _start.server_started = True
        from fieldnotes.runner import forked_main

        process = context.Process(target=forked_main, args=(str(job), str(results), str(log), str(work), env),
                                  name="fieldnotes-page")
        process.start()
    return _Forked(process)


class _Forked:
    """A forked page interpreter, with the part of Popen's interface the executor uses."""

    def __init__(self, process: multiprocessing.Process):
        self.process, self.pid = process, process.pid

    def poll(self) -> int | None:
        return self.process.exitcode

    @property
    def returncode(self) -> int | None:
        return self.process.exitcode

    def kill(self) -> None:
        self.process.kill()

    def wait(self) -> int | None:
        self.process.join()
        return self.process.exitcode


class _Progress:
    """Reads the interpreter's JSON lines as they are written (complete lines only)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.events = path, 0, []

    def poll(self) -> list[dict]:
        with contextlib.suppress(FileNotFoundError), open(self.path, "rb") as f:
            f.seek(self.offset)
            chunk = f.read()
            end = chunk.rfind(b"\n") + 1
            self.offset += end
            self.events += [json.loads(line) for line in chunk[:end].splitlines() if line.strip()]
        return self.events


def _watch(proc, progress: _Progress, blocks: list[Block], seen: set[psutil.Process],
           output: Path, cap: int) -> str | None:
    """Wait for the interpreter; kill it if a block (or the start-up) overruns its time, or
    keeps printing past the output cap (the interpreter stops such a block itself, unless it is
    stuck in native code). Returns why it was killed, or None if it ended by itself. ``seen``
    collects the processes it started, so that they can be killed even if the interpreter dies
    first and they are orphaned."""
    started, limit, current = time.monotonic(), STARTUP_SECONDS, None
    polls, over_since, cpu_then = 0, None, 0.0
    while proc.poll() is None:
        time.sleep(0.05)
        polls += 1
        if polls % 10 == 0:
            with contextlib.suppress(psutil.Error):
                seen.update(psutil.Process(proc.pid).children(recursive=True))
        last = progress.poll()[-1:]
        now_running = last[0]["index"] if last and last[0]["event"] == "start" else None
        if now_running != current:
            current, started, over_since = now_running, time.monotonic(), None
            limit = blocks[current].timeout + GRACE_SECONDS if current is not None else STARTUP_SECONDS
        if current is not None and _size(output) > cap:
            if over_since is None:  # what the block started so far counts from now on
                with contextlib.suppress(psutil.Error):
                    seen.update(psutil.Process(proc.pid).children(recursive=True))
                over_since, cpu_then = time.monotonic(), _cpu_seconds(proc, seen)
            if _cpu_seconds(proc, seen) - cpu_then > OVERFLOW_GRACE_CPU_SECONDS or \
                    time.monotonic() - over_since > OVERFLOW_GRACE_SECONDS:
                proc.kill()
                proc.wait()
                return (f"OutputTooLong: the block printed more than the limit of {cap // 1024} KiB per "
                        f"block ({_size(output):,} bytes) and did not stop; killed")
        if time.monotonic() - started > limit:
            proc.kill()
            proc.wait()
            if current is None:
                return f"the page's interpreter did not start within {limit:g} s"
            return (f"Timeout: the block did not finish in {blocks[current].timeout:g} s and did "
                    f"not stop at its limit; killed after {limit:g} s")
    return None


def _cpu_seconds(proc, seen: set[psutil.Process]) -> float:
    """CPU time spent so far by the interpreter, the children it has reaped and those still running."""
    total = 0.0
    with contextlib.suppress(psutil.Error):
        t = psutil.Process(proc.pid).cpu_times()
        total += t.user + t.system + t.children_user + t.children_system
    for child in list(seen):
        with contextlib.suppress(psutil.Error):
            t = child.cpu_times()
            total += t.user + t.system
    return total


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _kill_tree(proc, seen: set[psutil.Process]) -> None:
    """Kill the interpreter's process group and every process it started."""
    with contextlib.suppress(psutil.Error):
        seen.update(psutil.Process(proc.pid).children(recursive=True))
    for child in seen:
        with contextlib.suppress(psutil.Error):
            if child.is_running():  # also checks the pid was not reused
                child.kill()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _collect(events: list[dict], log: Path, blocks: list[Block], status: int, hung: str | None,
             output: Path, cap: int, keep_going: bool = False) -> PageRun:
    env = next((Env(**{k: v for k, v in e.items() if k != "event"}) for e in events
                if e["event"] == "env"), None)
    done = [BlockResult(**{k: v for k, v in e.items() if k not in ("event", "index")})
            for e in events if e["event"] == "result"]
    run = PageRun(env, done)
    if len(done) == len(blocks) and status == 0 or any(r.status == "error" for r in done) and \
            not keep_going:
        return run
    started = [e["index"] for e in events if e["event"] == "start"]
    run.problem_block = started[-1] if started else None
    if hung:
        run.problem = hung
    else:
        run.problem = _death(status)
    printed = _tail(output, cap=cap)
    if printed and run.problem_block is not None:
        run.problem += f"\nlast lines the block printed:\n{printed}"
    tail = _tail(log)
    if tail:
        run.problem += f"\nlast lines the interpreter wrote:\n{tail}"
    return run


def _death(status: int) -> str:
    if status < 0:
        name = signal.Signals(-status).name
        return f"the page's interpreter was killed by signal {name} in this block (a crash in native code?)"
    return (f"the page's interpreter exited with status {status} in this block (os._exit(), or an "
            "exit the page cannot catch); no block may end the interpreter")


def _tail(log: Path, lines: int = 15, cap: int = OUTPUT_CAP) -> str:
    """The last lines of the first ``cap`` bytes of a file (a block that printed gigabytes costs
    no memory here)."""
    try:
        with open(log, "rb") as f:
            text = f.read(cap).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    kept = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join("    " + line for line in kept)

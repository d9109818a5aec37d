"""The page interpreter: runs one page's blocks like a notebook, in order, in one namespace.

Started by :mod:`fieldnotes.execute` as ``python -m fieldnotes.runner RESULTS`` with the job
(the blocks' code and markers) as JSON on stdin, in a fresh temporary working directory and a
session of its own. It writes JSON lines to RESULTS: the environment, then ``start`` before
each block and its :class:`~fieldnotes.results.BlockResult` after it, flushed at once, so the
executor knows which block was running if this process dies or hangs.

Every block starts from the same state on every machine: seeded RNGs, default print options,
one CPU thread (:func:`reset_state`). What it shows is what a reader running it would see:
file descriptors 1 and 2, whoever writes to them (:class:`Capture`). A block fails, with what
it printed so far, when it raises (unless marked to), exits the interpreter, prints more than
the output cap (it is stopped while it runs), exceeds its time limit, or leaves a process
running. Asserts are rewritten as pytest rewrites them, so a failed ``assert a == b`` shows
both values (not in a block marked to raise: it shows what a reader running it sees).
"""

from __future__ import annotations

import ast
import base64
import contextlib
import ctypes
import faulthandler
import io
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
import warnings
from dataclasses import asdict

import psutil
from _pytest.assertion.rewrite import rewrite_asserts  # pytest's own assert rewriting

from fieldnotes.results import BLOCK_FILE, BlockResult, Env, output_file

SEED = 0
LEFTOVER_GRACE = 2.0  # seconds a process started by a block may take to exit after it
INFRASTRUCTURE = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")
"""Helper processes Python's multiprocessing keeps for the whole interpreter (they stop with
it): not counted as processes a block left running."""


class BlockTimeout(BaseException):  # not an Exception: a block's `except Exception` cannot eat it
    pass


def reset_state() -> None:
    """What every page starts from: seeded RNGs, default print options, float32, grad on."""
    os.environ.setdefault("MPLBACKEND", "Agg")  # figures are captured, never shown in a window
    import numpy as np
    import torch

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_printoptions(profile="default")
    np.set_printoptions(legacy=False)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    # Not torch.use_deterministic_algorithms(False): it is the default in a new interpreter, and
    # the call costs 0.9 s (it imports torch's compiler stack).
    # One thread: pages run in parallel on few cores, and float sums then add up in the same
    # order on every machine.
    torch.set_num_threads(1)


def environment() -> Env:
    """Which torch and device produce the outputs (shown on every page)."""
    import torch

    cuda = torch.cuda.is_available()
    return Env(torch=torch.__version__, python=platform.python_version(),
               device=torch.cuda.get_device_name(0) if cuda else f"CPU ({platform.machine()})",
               cuda=cuda)


def page_namespace() -> dict:
    """A page's globals: those of a real module named ``__main__``, as in a script, so that
    classes defined on a page can be pickled (``torch.save``, DataLoader workers)."""
    module = types.ModuleType("__main__")
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    return module.__dict__


class OutputOverflow(BaseException):  # raised in the block when it prints past the cap
    pass


class Capture:
    """What a block shows, as a reader running it would see it: file descriptors 1 and 2.

    While a block runs, both descriptors point at one file (``O_APPEND``: writes of this
    interpreter, of a subprocess, of ``os.system`` and of C code land in the order they happen),
    and ``sys.stdout`` / ``sys.stderr`` are real, unbuffered text streams over them (``buffer``,
    ``encoding``, ``fileno()``; ``isatty()`` is False, as in a script whose output is piped).
    C's stdio buffers are flushed when the block ends, as Jupyter flushes at a cell's end.
    Between blocks the descriptors go back to the interpreter's log (what the executor shows
    if the interpreter dies). The file is on disk, not in memory: a block that prints without
    end costs this process nothing, and :meth:`watch` stops it once it passes the cap.
    """

    def __init__(self, path: str, cap: int):
        self.path, self.cap = path, cap
        self.log = (os.dup(1), os.dup(2))
        self.active = False
        self.streams: tuple = ()

    def start(self) -> None:
        # A new file, not the last block's emptied: a process that outlives its block and writes
        # late (a helper of a script the block ran) writes into the old one, not into this output.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self._flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        out = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
        err = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                               errors="backslashreplace", write_through=True)
        self.streams = (out, err)
        sys.stdout, sys.stderr = out, err
        self.active = True

    def text(self) -> tuple[str, int]:
        """What the block has shown so far (at most the cap, as text) and its size in bytes."""
        self._flush()
        size = os.path.getsize(self.path)
        with open(self.path, "rb") as f:
            data = f.read(self.cap)
        return _plain(data.decode("utf-8", "replace")), size

    def stop(self) -> None:
        self._flush()
        self.active = False
        os.dup2(self.log[0], 1)
        os.dup2(self.log[1], 2)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def _flush(self) -> None:
        for stream in (*self.streams, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(Exception):
            _LIBC.fflush(None)  # C code's buffered printf, as a process flushes at its exit

    def watch(self, main_thread: int, interval: float = 0.05) -> None:
        """In a thread of its own: once the block's output passes the cap, kill what it started
        (a ``yes`` in a subprocess) and raise :class:`OutputOverflow` in it. The executor kills
        the interpreter if the block still does not stop (C code that never returns)."""
        fired = False
        while True:
            time.sleep(interval)
            if not self.active:
                fired = False
                continue
            with contextlib.suppress(OSError):
                if not fired and os.path.getsize(self.path) > self.cap:
                    fired = True
                    _overflow.set()
                    # The signal first: pending when a subprocess the block waits for dies, it
                    # is raised in the block, not after it.
                    signal.pthread_kill(main_thread, signal.SIGALRM)
                    _kill_all(psutil.Process().children(recursive=True))


_LIBC = ctypes.CDLL(None)
_overflow = threading.Event()  # set by Capture.watch; read by the SIGALRM handler


def _too_much(size: int, cap: int, stopped: bool = False) -> str:
    printed = f"{size:,} bytes when it was stopped" if stopped else f"{size:,} bytes"
    return (f"OutputTooLong: the block printed {printed}, more than the limit of "
            f"{cap // 1024} KiB per block; print less, or summarise (a shape, a few values, a sum)")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    # Only "Category: message": paths and line numbers inside torch differ between machines,
    # and torch's C++ warnings end with the path of the machine that built the wheel.
    message = re.sub(r"\s*\(Triggered internally at [^)]*\.\)", "", str(message))
    print(f"{category.__name__}: {message}", file=sys.stderr)


def _plain(text: str) -> str:
    """Without terminal colour codes (some torch errors are bold), which a page cannot show."""
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def _figures() -> list[str]:
    """Every matplotlib figure the block left open, as base64 PNG; then closes them all."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    images = []
    for number in plt.get_fignums():
        png = io.BytesIO()
        plt.figure(number).savefig(png, format="png", metadata={"Software": None})
        images.append(base64.b64encode(png.getvalue()).decode("ascii"))
    plt.close("all")
    return images


def _compile(code: str, display_last: bool, rewrite: bool = True):
    """The block's code with pytest's assert rewriting (``rewrite``: not in a block that shows an
    error on purpose, whose output is what a reader running it sees, and Python's own asserts
    explain nothing); a notebook cell's final expression is split off to be shown, as Jupyter
    shows it."""
    tree = ast.parse(code, filename=BLOCK_FILE)
    last = None
    if display_last and tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), BLOCK_FILE, "eval")
    if rewrite:
        rewrite_asserts(tree, code.encode(), module_path=None, config=None)
    return compile(tree, BLOCK_FILE, "exec"), last


def run_block(block: dict, namespace: dict, cuda: bool, capture: Capture) -> BlockResult:
    """Run one block in ``namespace``, its output in ``capture``; never raises for errors
    inside the block (:class:`BlockTimeout` and :class:`OutputOverflow` go to the caller)."""
    if block["gpu"] and not cuda:
        return BlockResult("needs-gpu")
    if block["syntax"] == "bash":
        return _run_bash(block, capture)
    try:
        code, last = _compile(block["code"], block["display_last"], rewrite=not block["raises"])
    except SyntaxError as e:
        return BlockResult("error", error=f"SyntaxError: {e.msg}", line=e.lineno)
    if block.get("file"):  # shown here, run by a bash block: only check that it compiles
        return BlockResult("ok")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")  # plt.show()
        warnings.showwarning = _show_warning
        try:
            exec(code, namespace)
            if last is not None:
                value = eval(last, namespace)
                if value is not None:
                    print(repr(value))
        except (BlockTimeout, OutputOverflow):
            raise
        except BaseException as e:  # SystemExit and KeyboardInterrupt are a block's errors too
            _figures()
            return _expected_or_error(block, e, capture)
    images = _figures()
    printed, size = capture.text()
    if size > capture.cap:
        return BlockResult("error", printed, error=_too_much(size, capture.cap))
    if block["raises"]:
        return BlockResult("error", printed,
                           error=f"expected {block['raises']}, but the block ran without raising it "
                                 "(the claim no longer holds)")
    return BlockResult("ok", printed, images)


def _expected_or_error(block: dict, e: BaseException, capture: Capture) -> BlockResult:
    printed, size = capture.text()
    if size > capture.cap:
        return BlockResult("error", printed, error=_too_much(size, capture.cap))
    name = type(e).__name__
    shown = _plain(f"{name}: {e}".rstrip())
    if block["raises"] and block["raises"] in {c.__name__ for c in type(e).__mro__}:
        if block["match"] is None or re.search(block["match"], str(e)):
            return BlockResult("ok", printed + shown + "\n")
        return BlockResult("error", printed, error=f"{shown} does not match {block['match']!r}")
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == BLOCK_FILE]
    tb = e.__traceback__.tb_next if e.__traceback__ else None  # drop run_block's own frame
    detail = "".join(traceback.format_exception(type(e), e, tb)[-12:])
    if isinstance(e, SystemExit):
        shown += (" (the block called sys.exit(); a page runs as one script, so no block may end "
                  "the interpreter: raise an exception, or mark the block raises(SystemExit))")
    return BlockResult("error", printed, error=shown, line=frames[-1].lineno if frames else None,
                       detail=_plain(detail))


def _run_bash(block: dict, capture: Capture) -> BlockResult:
    """Run a bash block in its own process group, from the page's working directory, writing
    to the block's descriptors 1 and 2 (the capture file: a background child that keeps them
    open cannot hold the block). With the ``raises`` marker the command must fail: its output
    is shown, a success is the error."""
    # `python`, `torchrun` ... are those of this interpreter's environment, activated or not.
    env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]))
    proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", block["code"]], env=env,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=block["timeout"])
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        proc.wait()
        return BlockResult("error", capture.text()[0],
                           error=f"Timeout: the command did not finish in {block['timeout']:g} s")
    except BaseException:  # OutputOverflow: the command goes with the block
        _kill_group(proc.pid)
        proc.wait()
        raise
    output, size = capture.text()
    if size > capture.cap:
        return BlockResult("error", output, error=_too_much(size, capture.cap))
    if block["raises"]:
        if proc.returncode == 0:
            return BlockResult("error", output, error="expected the command to fail (raises marker), "
                                                      "but it exited with status 0")
        if block["match"] and not re.search(block["match"], output):
            return BlockResult("error", output, error=f"the output does not match {block['match']!r}")
        return BlockResult("ok", output + f"[exit status {proc.returncode}]\n")
    if proc.returncode:
        return BlockResult("error", output, error=f"CalledProcessError: bash exited with status {proc.returncode}")
    return BlockResult("ok", output)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _is_helper(p: psutil.Process) -> bool:
    return any(name in " ".join(p.cmdline()) for name in INFRASTRUCTURE)


def _helpers() -> set[int]:
    """The pids of multiprocessing's helpers (INFRASTRUCTURE) running now."""
    found = set()
    for p in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if p.status() != psutil.STATUS_ZOMBIE and _is_helper(p):
                found.add(p.pid)
    return found


def _own_helpers() -> set[int]:
    """The helpers of this interpreter's own multiprocessing (they run until it exits)."""
    import multiprocessing.forkserver
    import multiprocessing.resource_tracker

    pids = {getattr(multiprocessing.resource_tracker._resource_tracker, "_pid", None),
            getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None)}
    return {pid for pid in pids if pid}


def _leftovers(helpers_before: set[int] = frozenset()) -> list[psutil.Process]:
    """Processes started during the page that still run (zombies and multiprocessing's own
    helpers aside), after giving them LEFTOVER_GRACE seconds to finish. A helper that started
    during the block is waited for too, within the same grace, but never counted: one a script
    of the block started stops once the script is gone, and what it writes last (the resource
    tracker's leaked-semaphore warning) belongs to this block's output, not the next one's; one
    this interpreter keeps (started by the block's own code) is not waited for."""
    deadline = time.monotonic() + LEFTOVER_GRACE
    while True:
        alive, helpers, known = [], False, helpers_before | _own_helpers()
        for p in psutil.Process().children(recursive=True):
            try:
                if p.status() == psutil.STATUS_ZOMBIE:
                    continue
                if _is_helper(p):
                    helpers = helpers or p.pid not in known
                else:
                    alive.append(p)
            except psutil.Error:
                continue
        if (not alive and not helpers) or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _describe(processes: list[psutil.Process]) -> str:
    names = []
    for p in processes[:3]:
        with contextlib.suppress(psutil.Error):
            # a path by its last part: the message, kept in the version matrix's data, names no machine
            words = [os.path.basename(w) if w.startswith("/") else w for w in " ".join(p.cmdline()).split()]
            names.append(f"pid {p.pid}: {' '.join(words)[:80] or p.name()}")
    return "; ".join(names) + (f"; and {len(processes) - 3} more" if len(processes) > 3 else "")


def _kill_all(processes: list[psutil.Process]) -> None:
    for p in processes:
        with contextlib.suppress(psutil.Error):
            p.kill()


def _become_subreaper() -> None:
    """Orphans of this page's processes (a daemon's double fork) become this process's
    children, so that none can outlive the page unseen (Linux; elsewhere a no-op)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


_armed = False  # a block is running: SIGALRM may stop it (a late signal after it is ignored)


def _alarm(signum, frame):
    """SIGALRM: the block's time limit (setitimer), or its output past the cap (Capture.watch)."""
    if not _armed:
        return
    if _overflow.is_set():
        raise OutputOverflow
    raise BlockTimeout


def forked_main(job_path: str, results_path: str, log_path: str, cwd: str, env: dict) -> None:
    """Entry of a page interpreter forked from the executor's server (fieldnotes.execute), which
    has already imported torch: become a session of its own, write to the page's log, work in
    the page's folder, with the page's environment; then as :func:`main`."""
    os.setsid()
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # the server looked it up before TMPDIR named the page's folder
    with open(job_path, encoding="utf-8") as f:
        main(results_path, json.load(f))


def main(results_path: str, job: dict | None = None) -> None:
    global _armed
    job = job if job is not None else json.load(sys.stdin)
    cap = job["cap"]
    capture = Capture(output_file(results_path), cap)
    # A segfault names the block's line in the interpreter's log, which the executor reads.
    faulthandler.enable(file=capture.log[1])
    _become_subreaper()
    sys.argv = ["page"]
    reset_state()
    env = environment()
    namespace = page_namespace()
    signal.signal(signal.SIGALRM, _alarm)
    threading.Thread(target=capture.watch, args=(threading.main_thread().ident,), daemon=True,
                     name="fieldnotes-output-cap").start()
    with open(results_path, "w", encoding="utf-8") as out:
        def emit(event: str, **data) -> None:
            out.write(json.dumps({"event": event, **data}) + "\n")
            out.flush()

        emit("env", **asdict(env))
        for index, block in enumerate(job["blocks"]):
            _overflow.clear()
            helpers_before = _helpers()
            capture.start()
            emit("start", index=index)
            try:
                _armed = True
                if block["syntax"] == "python":
                    signal.setitimer(signal.ITIMER_REAL, block["timeout"])
                result = run_block(block, namespace, env.cuda, capture)
                _armed = False
            except BlockTimeout:
                _armed = False
                result = BlockResult("error", capture.text()[0],
                                     error=f"Timeout: the block did not finish in {block['timeout']:g} s")
            except OutputOverflow:
                _armed = False
                printed, size = capture.text()
                result = BlockResult("error", printed, error=_too_much(size, cap, stopped=True))
            finally:
                _armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
            left = _leftovers(helpers_before)
            if left:
                named = _describe(left)  # before they are killed: a zombie has no command line
                _kill_all(left)
                if result.status != "error":
                    result = BlockResult("error", result.output, error=(
                        f"LeftProcessRunning: the block left {len(left)} process(es) running "
                        f"({named}); wait for what a block starts "
                        "(Popen.wait(), Pool.join(), a `wait` after `cmd &`) before it ends"))
            capture.stop()
            emit("result", index=index, **asdict(result))
            if result.status == "error" and not job.get("keep_going"):
                break  # later blocks depend on this one
    _kill_all(psutil.Process().children(recursive=True))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip interpreter shutdown: threads a page left (gloo, DataLoader) cannot hang it


if __name__ == "__main__":
    main(sys.argv[1])

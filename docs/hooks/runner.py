"""Run a page's blocks like a notebook: in order, in one namespace, each with a time limit.

The build runs this file as a fresh subprocess per page (``python runner.py RESULTS``, the
blocks as JSON on stdin), so no state leaks between pages or languages and a hang can be
killed; the tests call :func:`run_block` in-process. Both start a page with
:func:`reset_state`, so both see the same seeded, deterministic outputs.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED = 0


@dataclass
class Result:
    status: str  # "ok" | "error" | "needs-gpu"
    output: str = ""
    error: str = ""  # "path:line: Type: message" when status == "error"
    images: list[str] = field(default_factory=list)  # PNGs (base64) of the figures it drew


class BlockTimeout(BaseException):  # not caught as an error of the block
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
    torch.use_deterministic_algorithms(False)
    # One thread: pages run in parallel on few cores, and float sums then add up in the same
    # order on every machine.
    torch.set_num_threads(1)


def environment() -> dict:
    """Which torch and device produced the outputs (shown on every page)."""
    import torch

    cuda = torch.cuda.is_available()
    return {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "device": torch.cuda.get_device_name(0) if cuda else f"CPU ({platform.machine()})",
        "cuda": cuda,
    }


def _show_warning(message, category, filename, lineno, file=None, line=None):
    # Only "Category: message": paths and line numbers inside torch differ between machines,
    # and torch's C++ warnings end with the path of the machine that built the wheel.
    message = re.sub(r"\s*\(Triggered internally at [^)]*\.\)", "", str(message))
    print(f"{category.__name__}: {message}", file=sys.stderr)


def page_namespace() -> dict:
    """A page's globals: those of a real module named ``__main__``, as in a script, so that
    classes defined on a page can be pickled (``torch.save``, DataLoader workers)."""
    module = types.ModuleType("__main__")
    module.__dict__["__page_module__"] = module
    return module.__dict__


def run_block(block: dict, namespace: dict, cuda: bool) -> Result:
    """Run one block in ``namespace``; never raises for errors inside the block."""
    if block["gpu"] and not cuda:
        return Result("needs-gpu")
    if block["syntax"] == "bash":
        return _run_bash(block)
    if block.get("file"):  # shown here, run by a bash block: only check that it compiles
        try:
            compile(block["code"], block["file"], "exec")
        except SyntaxError as e:
            return Result("error", "", f"{block['file']}:{e.lineno}: SyntaxError: {e.msg}")
        return Result("ok")
    buffer = io.StringIO()
    try:
        # Padded so that tracebacks name the page and its real line numbers.
        code = compile("\n" * block["lineno"] + block["code"], block["page"], "exec")
    except SyntaxError as e:
        return Result("error", "", f"{_origin(block, e.lineno)}: SyntaxError: {e.msg}")
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), \
            warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")  # plt.show()
        warnings.showwarning = _show_warning
        real_main = sys.modules.get("__main__")
        sys.modules["__main__"] = namespace.get("__page_module__", real_main)
        try:
            exec(code, namespace)
        except Exception as e:
            _figures()
            return _expected_or_error(block, e, _plain(buffer.getvalue()))
        finally:
            sys.modules["__main__"] = real_main
    images = _figures()
    if block["raises"]:
        return Result("error", _plain(buffer.getvalue()),
                      f"{block['page']}:{block['lineno']}: expected {block['raises']}, "
                      "but the block ran without raising it (the claim no longer holds)")
    return Result("ok", _plain(buffer.getvalue()), images=images)


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


def _expected_or_error(block: dict, e: Exception, printed: str) -> Result:
    name = type(e).__name__
    shown = _plain(f"{name}: {e}".rstrip())
    if block["raises"] and block["raises"] in {c.__name__ for c in type(e).__mro__}:
        if block["match"] is None or re.search(block["match"], str(e)):
            return Result("ok", printed + shown + "\n")
        return Result("error", printed, f"{block['page']}:{block['lineno']}: {shown} "
                      f"does not match {block['match']!r}")
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == block["page"]]
    where = _origin(block, frames[-1].lineno if frames else None)
    tb = e.__traceback__.tb_next if e.__traceback__ else None  # drop run_block's own frame
    detail = "".join(traceback.format_exception(type(e), e, tb)[-12:])
    return Result("error", printed, f"{where}: {shown}\n{detail}")


def _origin(block: dict, line: int | None) -> str:
    """Where line ``line`` of the compiled (padded) block comes from: page or included file."""
    origins = block["origins"]
    k = (line or 0) - block["lineno"]
    if 0 < k <= len(origins):
        return origins[k - 1]
    return f"{block['page']}:{block['lineno']}"


def _run_bash(block: dict) -> Result:
    """Run a bash block from the repository root, in its own process group, so that a hang
    is killed with everything it started (torchrun's workers too). With the ``raises``
    marker the command must fail: its output is shown, and a success is the error."""
    where = f"{block['page']}:{block['lineno']}"
    # `python`, `torchrun` ... are those of this interpreter's environment, activated or not.
    env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]))
    proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", block["code"]], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=block["timeout"])
        output = _plain(output)
    except BaseException as e:  # our time limit, or pytest-timeout's
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            return Result("error", "", f"{where}: timed out after {block['timeout']:g} s")
        raise
    if block["raises"]:
        if proc.returncode == 0:
            return Result("error", output, f"{where}: expected the command to fail "
                          "(raises marker), but it exited with status 0")
        if block["match"] and not re.search(block["match"], output):
            return Result("error", output, f"{where}: the output does not match {block['match']!r}")
        return Result("ok", output + f"[exit status {proc.returncode}]\n")
    if proc.returncode:
        return Result("error", output, f"{where}: bash exited with status {proc.returncode}")
    return Result("ok", output)


def _alarm(signum, frame):
    raise BlockTimeout


def main(results_path: str) -> None:
    """Subprocess entry: blocks as JSON on stdin, one JSON result per line to ``results_path``."""
    blocks = json.load(sys.stdin)
    reset_state()
    env = environment()
    namespace = page_namespace()
    signal.signal(signal.SIGALRM, _alarm)
    with open(results_path, "w", encoding="utf-8") as out:
        out.write(json.dumps(env) + "\n")
        out.flush()
        for block in blocks:
            signal.setitimer(signal.ITIMER_REAL, block["timeout"])
            try:
                result = run_block(block, namespace, env["cuda"])
            except BlockTimeout:
                result = Result("error", "", f"{block['page']}:{block['lineno']}: "
                                f"timed out after {block['timeout']:g} s")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            out.write(json.dumps(result.__dict__) + "\n")
            out.flush()
            if result.status == "error":
                break  # later blocks depend on this one


if __name__ == "__main__":
    main(sys.argv[1])

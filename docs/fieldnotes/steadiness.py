"""Does a page print the same thing on every run, also while the machine is busy?

Why: a page's output is stored and compared with the next run of the same code (the tests fail
a block whose output changed), so an output that depends on timing turns CI red for no fault
of the submission. Launch pages are the usual suspects: two ``torchrun`` agents shutting down,
a rank that fails first, a store that closes under a busy peer. This runs a page N times, one
after another, through the one executor (no store), while ``load`` processes keep the CPUs
busy, and reports every block whose output differs from the first run's, with the difference.

    python docs/site.py repeat docs/en/distributed/ddp.md --times 5 --load 2
"""

from __future__ import annotations

import difflib
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from fieldnotes.blocks import Block, find_root, read_blocks
from fieldnotes.execute import run_page
from fieldnotes.results import PageRun

LOAD_SECONDS = 3600  # a load process ends by itself after this, whatever happens to its parent
BURN = f"import time\nend = time.monotonic() + {LOAD_SECONDS}\nwhile time.monotonic() < end:\n    pass\n"


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` CPU-bound Python processes running for the duration of the block."""
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(processes)]
    try:
        yield
    finally:
        for p in burners:
            p.kill()
            p.wait()


def differences(first: PageRun, other: PageRun, blocks: list[Block]) -> list[str]:
    """Each block whose output (or figures) differs between two runs, with a unified diff."""
    found = []
    for block, a, b in zip(blocks, first.results, other.results):
        if (a.output, a.images) == (b.output, b.images):
            continue
        diff = "".join(difflib.unified_diff(a.output.splitlines(True), b.output.splitlines(True),
                                            "first run", "this run", n=1))
        found.append(f"{block.where}: the output differs from the first run's\n{diff or '(figures differ)'}")
    return found


def repeat(page: Path, times: int = 5, load: int = 2, report=print) -> int:
    """Run ``page`` ``times`` times under ``load`` busy processes; 0 if every run passed and
    printed the same as the first, else 1. ``report`` gets one line per run, then each problem."""
    root = find_root(page.parent)
    blocks = read_blocks(page, root=root)
    problems: list[str] = []
    first: PageRun | None = None
    with busy(load):
        for number in range(1, times + 1):
            start = time.monotonic()
            run = run_page(blocks, root)
            seconds = time.monotonic() - start
            error = run.first_error(blocks)
            if error:
                found = [f"run {number}: {error}"]
            elif first is None:
                first, found = run, []
            else:
                found = [f"run {number}: {d}" for d in differences(first, run, blocks)]
            verdict = ("failed" if error else "first run" if run is first else
                       f"{len(found)} block(s) differ" if found else "same as the first run")
            report(f"{page.name}: run {number}/{times} with {load} busy process(es): {seconds:.1f} s, {verdict}")
            problems += found
    for problem in problems:
        report(problem)
    return 1 if problems else 0

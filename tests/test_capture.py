"""What the page interpreter captures of a block (fieldnotes.runner.Capture), through the executor.

A reader running a block sees everything written to file descriptors 1 and 2: Python's prints,
subprocesses, ``os.system``, C code, in the order they happened. The output cap holds while a block
runs: one that prints without end stops within about a second, not at its time limit, however it
prints, and the executor reads no more of it than the cap.
"""

from __future__ import annotations

import pytest

from fieldnotes.blocks import Block
from fieldnotes.execute import OUTPUT_CAP, run_page
from sitebuild import ROOT
from test_failure_modes import SWALLOWS


def block(code: str, syntax: str = "python", timeout: float = 60.0) -> Block:
    lines = code.count("\n") + 1
    return Block("docs/en/page.md", 3, 4 + lines, "", syntax, code,
                 [f"docs/en/page.md:{4 + i}" for i in range(lines)], timeout=timeout)


def outputs(*blocks: Block) -> list[str]:
    run = run_page(list(blocks), ROOT)
    assert run.ok, run.first_error(list(blocks))
    return [r.output for r in run.results]


def test_descriptors_1_and_2_in_the_order_they_were_written():
    code = ("import os, subprocess, sys\nprint('a')\nos.system('echo b; echo c >&2')\n"
            "subprocess.run(['echo', 'd'])\nprint('e', file=sys.stderr)\nsys.stdout.write('f\\n')\n"
            "import ctypes\nctypes.CDLL(None).printf(b'g (C, flushed at the end of the block)\\n')\n")
    assert outputs(block(code)) == ["a\nb\nc\nd\ne\nf\ng (C, flushed at the end of the block)\n"]


def test_stdout_and_stderr_are_real_text_streams():
    code = ("import sys\nsys.stdout.buffer.write(b'raw bytes\\n')\n"
            "print(sys.stdout.encoding, sys.stdout.fileno(), sys.stderr.fileno(), sys.stdout.isatty(),\n"
            "      sys.stdout.writable(), type(sys.stdout.buffer).__name__ != '')\n"
            "sys.stdout.buffer.write('不是 UTF-8: '.encode() + b'\\xff\\xfe\\n')\n")
    assert outputs(block(code)) == ["raw bytes\nutf-8 1 2 False True True\n不是 UTF-8: \ufffd\ufffd\n"]


def test_a_stream_kept_from_an_earlier_block_writes_to_the_block_running_now():
    first = block("import logging, sys\nlog = logging.getLogger('page')\n"
                  "log.addHandler(logging.StreamHandler(sys.stderr))\nlog.warning('in block 1')\n")
    second = block("log.warning('in block 2')\n")
    assert outputs(first, second) == ["in block 1\n", "in block 2\n"]


def test_bash_blocks_show_stdout_and_stderr_as_before():
    assert outputs(block("echo out; echo err >&2; printf 'no newline'", "bash")) == ["out\nerr\nno newline"]


ENDLESS = {
    "python-write": "import sys\nwhile True:\n    sys.stdout.write('x' * 100)\n",
    "print-in-a-thread": "import threading\ndef spam():\n    while True:\n        print('y' * 80)\n"
                         "t = threading.Thread(target=spam, daemon=True)\nt.start()\nt.join()\n",
    "os-system": "import os\nos.system('yes')\n",
    "subprocess": "import subprocess\nsubprocess.run(['yes'])\n",
    "swallows-the-stop": SWALLOWS,
}


LIMIT = 300.0
"""The endless blocks' time limit: far beyond what stopping at the cap takes on any machine, so
which of the two stopped a block is told by the error it reports, not by the clock (a wall-clock
bound made the verdict depend on the machine's load). A block the cap misses runs to this limit and reports Timeout."""


@pytest.mark.parametrize("case", sorted(ENDLESS) + ["bash"])
def test_a_block_printing_without_end_stops_at_the_cap_not_at_its_time_limit(case):
    b = block("yes", "bash", timeout=LIMIT) if case == "bash" else block(ENDLESS[case], timeout=LIMIT)
    run = run_page([b], ROOT)
    error = run.first_error([b])
    assert error and error.startswith("docs/en/page.md:3: OutputTooLong: the block printed "), error
    assert all(len(r.output.encode()) <= OUTPUT_CAP for r in run.results), "no more than the cap is kept"

"""What running a page produced, as typed data that crosses the process boundary.

The page interpreter (:mod:`fieldnotes.runner`) writes these as JSON lines; the executor
(:mod:`fieldnotes.execute`) reads them back; the store keeps them; the build and the tests
render or report them. A result never names a page or a line: the same run serves a page and
its translation, whose lines differ. Where a block failed is a line *within the block's code*
(:attr:`BlockResult.line`); each consumer turns it into ``page:line`` with its own
:class:`~fieldnotes.blocks.Block`.
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import asdict, dataclass, field
from typing import Literal

from fieldnotes.blocks import Block

BLOCK_FILE = "<block>"
"""File name the page interpreter compiles each block under; tracebacks name it, and
:meth:`BlockResult.describe` replaces it with the page (or included file) and line."""

def output_file(results: str | Path) -> str:
    """Where the page interpreter writing ``results`` puts the running block's output (its file
    descriptors 1 and 2): the executor watches its size."""
    return f"{results}.out"


Status = Literal["ok", "error", "needs-gpu"]


@dataclass
class Env:
    """Which interpreter, torch and device produced a run (shown on every page)."""

    torch: str
    python: str
    device: str
    cuda: bool


@dataclass
class BlockResult:
    status: Status
    output: str = ""  # what the block printed (stdout and stderr, in order)
    images: list[str] = field(default_factory=list)  # PNGs (base64) of the figures it drew
    error: str = ""  # status "error": "Type: message", or what went wrong, without a location
    line: int | None = None  # the failing line within the block's code (1-based), if known
    detail: str = ""  # the traceback, its frames in the block named BLOCK_FILE

    def describe(self, block: Block) -> str:
        """``page:line: Type: message`` then the traceback, with this page's lines."""
        return f"{block.origin(self.line)}: {self.error}\n{with_origins(self.detail, block)}".rstrip()


@dataclass
class PageRun:
    """A page's run: its environment, one result per block that ran, and a page-level problem
    (the interpreter died, hung or could not start) with the index of the block it was in."""

    env: Env | None
    results: list[BlockResult]
    problem: str | None = None
    problem_block: int | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and all(r.status != "error" for r in self.results)

    def complete(self, blocks: list[Block]) -> bool:
        """Every block ran and none failed: only such a run may be stored and reused."""
        return self.ok and self.env is not None and len(self.results) == len(blocks)

    def first_error(self, blocks: list[Block]) -> str | None:
        """The first failure, described with ``blocks`` (this page's lines); None if none."""
        for block, result in zip(blocks, self.results):
            if result.status == "error":
                return result.describe(block)
        if self.problem is not None:
            where = blocks[self.problem_block].where if self.problem_block is not None \
                and self.problem_block < len(blocks) else (blocks[0].page if blocks else "page")
            block = blocks[self.problem_block] if self.problem_block is not None else None
            return f"{where}: {with_origins(self.problem, block) if block else self.problem}"
        return None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "PageRun":
        env = Env(**data["env"]) if data.get("env") else None
        return cls(env, [BlockResult(**r) for r in data["results"]], data.get("problem"),
                   data.get("problem_block"))


def with_origins(text: str, block: Block) -> str:
    """``File "<block>", line 3`` (a traceback, a faulthandler dump) as ``File "page:line"``."""
    return re.sub(rf'File "{re.escape(BLOCK_FILE)}", line (\d+)',
                  lambda m: f'File "{block.origin(int(m[1]))}"', text)

"""Read the executable code blocks of a page exactly as a reader sees them.

The build (:mod:`fieldnotes.build`) and the tests (:mod:`fieldnotes.pytest_plugin`) both call
:func:`read_blocks`, so they cannot disagree about which blocks a page has, where each
starts, or what code it holds. Fences and markers are parsed by pytest-codeblocks itself
(``extract_from_buffer``); ``--8<--`` includes are expanded by pymdownx.snippets itself,
with the options that ``mkdocs.yml`` gives it.

Paths are relative to the project root, the folder of ``mkdocs.yml``: by default the nearest
one above the working directory (:func:`find_root`), so the same code serves the repository
and the throwaway one-page projects of the fault tests.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import markdown
from pytest_codeblocks import extract_from_buffer



def find_root(start: Path | None = None, default: Path | None = None) -> Path:
    """The project root: the nearest folder at or above ``start`` (default: the working
    directory) that holds ``mkdocs.yml``; else ``default``, if given."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file():
            return folder
    if default is not None:
        return default
    raise FileNotFoundError(f"no mkdocs.yml at or above {here}: run from the project")

EXECUTED = {"python", "bash"}
"""Fence info strings that are executed. Everything else is display-only..."""

DISPLAY_ONLY = {"text", "console", "json", "yaml", "toml", "ini", "diff", "html", "markdown", "md"}
"""...but only these may be display-only: any other info string (``py``, ``pycon``,
``python title="x"``, ``sh``) is rejected, so that no block can escape the tests."""

MARKERS = {"gpu", "raises", "timeout", "file", "lint"}
DEFAULT_TIMEOUT = 60.0


class _Mark:
    """``pytest.mark.NAME(*args, **kwargs)`` as plain data (pytest's own MarkDecorator would
    take ``raises(ValueError)``, a lone class argument, for a class to decorate)."""

    def __init__(self, name: str, args: tuple = (), kwargs: dict | None = None):
        self.name, self.args, self.kwargs = name, args, kwargs or {}

    def __call__(self, *args, **kwargs) -> "_Mark":
        return _Mark(self.name, args, kwargs)

    @property
    def mark(self) -> "_Mark":
        return self


class _MarkNamespace:
    def __getattr__(self, name: str) -> _Mark:
        return _Mark(name)


_MARK_NAMESPACE = {"pytest": type("pytest", (), {"mark": _MarkNamespace()})}


class BlockError(Exception):
    """A page's blocks cannot be read; the message starts with ``path:line:``."""


@dataclass
class Block:
    """One executed fence of a page, with its code after includes are expanded."""

    page: str  # path relative to the repository root, e.g. "docs/en/topics/scatter.md"
    lineno: int  # line of the opening fence (notebooks: the cell number)
    end: int  # line of the closing fence
    indent: str  # leading whitespace of the fence (blocks inside admonitions or tabs)
    syntax: str
    code: str
    origins: list[str] = field(default_factory=list)  # "file:line" for each line of code
    gpu: bool = False
    raises: str | None = None
    file: str | None = None  # "file" marker: this block shows a file that a bash block runs
    match: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    display_last: bool = False  # notebook cell: show the value of a final expression, as Jupyter does
    lint_mistake: tuple[str, ...] = ()  # "lint" marker: pitfall ids whose rule must fire on this block...
    lint_fix: tuple[str, ...] = ()  # ...and those whose rule must stay silent (fieldnotes.lint)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.lineno}"

    def origin(self, line: int | None) -> str:
        """Where line ``line`` (1-based) of the expanded code comes from: page or included file."""
        if line is not None and 0 < line <= len(self.origins):
            return self.origins[line - 1]
        return self.where

    def code_fields(self) -> dict:
        """What the page interpreter needs, and all it needs: the same for a page and its
        translation (no page path, no line numbers), so both languages share one run."""
        return {"syntax": self.syntax, "code": self.code, "gpu": self.gpu, "raises": self.raises,
                "match": self.match, "timeout": self.timeout, "file": self.file,
                "display_last": self.display_last}


def relpath(path: Path, root: Path | None = None) -> str:
    path = Path(path).resolve()
    try:
        return path.relative_to(root or find_root(path.parent, path.parent)).as_posix()
    except ValueError:
        return path.as_posix()


def read_blocks(path: Path, snippets: dict | None = None, root: Path | None = None) -> list[Block]:
    """Every executed block of a Markdown page or notebook, in page order.

    ``snippets``: pymdownx.snippets' options (default: as ``mkdocs.yml`` gives them);
    ``root``: the project root (default: :func:`find_root` from the page)."""
    path = Path(path).resolve()
    root = root or find_root(path.parent, default=path.parent)
    if path.suffix == ".ipynb":
        return _notebook_blocks(path, root)
    text = path.read_text(encoding="utf-8")
    page = relpath(path, root)
    lines = text.splitlines()
    try:
        found = extract_from_buffer(io.StringIO(text))
    except RuntimeError as e:  # pytest-codeblocks names no file
        raise BlockError(f"{page}: {e}") from None
    expander = _snippet_expander(snippets if snippets is not None else snippet_options(root / "mkdocs.yml"),
                                 root)
    blocks = []
    for cb in found:
        where = f"{page}:{cb.lineno}"
        syntax = cb.syntax or ""
        if syntax not in EXECUTED:
            if syntax.split(" ")[0] not in DISPLAY_ONLY or cb.marks:
                raise BlockError(
                    f"{where}: fence info string {syntax!r} is neither executed "
                    f"({', '.join(sorted(EXECUTED))}) nor display-only "
                    f"({', '.join(sorted(DISPLAY_ONLY))}); write a plain ```python fence"
                )
            continue
        if cb.expected_output is not None or cb.importorskip:
            raise BlockError(f"{where}: outputs are produced by running the block; "
                             "remove pytest-codeblocks:expected-output / importorskip")
        block = Block(page, cb.lineno, _closing_line(lines, cb.lineno, where), _indent(lines[cb.lineno - 1]),
                      syntax, "")
        _apply_marks(block, cb.marks)
        block.code, block.origins = expander(cb.code, page, cb.lineno)
        if block.file is not None:
            block.file = _shown_file(block, cb.code)
        blocks.append(block)
    _check_files_are_run(blocks)
    return blocks


def _shown_file(block: Block, raw: str) -> str:
    """The path a ``file`` block shows: its only line must be one ``--8<--`` include."""
    m = re.fullmatch(r"""\s*-+8<-+\s+["']([^"':]+)["']\s*""", raw)
    if block.syntax != "python" or m is None:
        raise BlockError(f"{block.where}: a <!--pytest.mark.file--> block holds exactly one line, "
                         '--8<-- "snippets/<script>.py", so that the reader sees the file that runs')
    return m.group(1)


def _check_files_are_run(blocks: list[Block]) -> None:
    for i, block in enumerate(blocks):
        if block.file and not any(b.syntax == "bash" and block.file in b.code for b in blocks[i:]):
            raise BlockError(f"{block.where}: {block.file} is shown as a file, "
                             "but no bash block after it on this page runs it")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _closing_line(lines: list[str], lineno: int, where: str) -> int:
    opening = lines[lineno - 1].lstrip()
    ticks = len(opening) - len(opening.lstrip("`"))
    for i in range(lineno, len(lines)):
        if lines[i].lstrip().startswith("`" * ticks):
            return i + 1
    raise BlockError(f"{where}: this fence is never closed")


def _apply_marks(block: Block, marks: list[str]) -> None:
    """Turn ``<!--pytest.mark.X(...)-->`` comments into block options (evaluated as pytest does)."""
    for text in marks:
        if ">" in text:  # Markdown ends the HTML comment there: the rest shows on the page
            raise BlockError(f"{block.where}: a marker cannot contain '>': <!--{text}-->; "
                             "in a match= regex write \\x3e instead")
        try:
            mark = eval(text, _MARK_NAMESPACE).mark  # evaluated as pytest-codeblocks does
        except Exception as e:
            raise BlockError(f"{block.where}: cannot read marker <!--{text}-->: {e}") from None
        if mark.name not in MARKERS:
            raise BlockError(f"{block.where}: unknown marker <!--{text}-->; "
                             f"use one of: {', '.join('pytest.mark.' + m for m in sorted(MARKERS))}")
        if mark.name == "gpu":
            block.gpu = True
        elif mark.name == "timeout":
            block.timeout = float(mark.args[0])
        elif mark.name == "file":
            block.file = ""  # the path is read from the include line once the code is known
        elif mark.name == "lint":
            ids = {k: (v,) if isinstance(v, str) else tuple(v) for k, v in mark.kwargs.items()}
            if mark.args or not ids or set(ids) - {"mistake", "fix"} or \
                    not all(isinstance(i, str) for v in ids.values() for i in v):
                raise BlockError(f"{block.where}: write <!--pytest.mark.lint(mistake=\"PITFALL-ID\")--> "
                                 "or lint(fix=\"PITFALL-ID\") (a list for several)")
            block.lint_mistake += ids.get("mistake", ())
            block.lint_fix += ids.get("fix", ())
        elif mark.name == "raises":
            exc = mark.args[0] if mark.args else None
            if not (isinstance(exc, type) and issubclass(exc, BaseException)):
                raise BlockError(f"{block.where}: raises() needs an exception class, e.g. "
                                 "<!--pytest.mark.raises(RuntimeError, match=\"out of bounds\")-->")
            block.raises = exc.__name__
            block.match = mark.kwargs.get("match")


def snippet_options(config_file: Path) -> dict:
    """pymdownx.snippets' options as written in mkdocs.yml (none if there is no such file).

    Read once per version of the file (its path, size and modification time): mkdocs.yml is
    parsed by PyYAML's pure-Python loader (MkDocs' own, for its tags), 50 ms a time, and every
    page read asks (the test suite read it 1,700 times)."""
    if not config_file.is_file():
        return {}
    stat = config_file.stat()
    return copy.deepcopy(_snippet_options(str(config_file.resolve()), stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _snippet_options(config_file: str, size: int, mtime_ns: int) -> dict:
    from mkdocs.utils.yaml import get_yaml_loader, yaml_load

    with open(config_file, "rb") as f:
        config = yaml_load(f, get_yaml_loader()) or {}
    for ext in config.get("markdown_extensions", []):
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            return dict(ext["pymdownx.snippets"] or {})
    return {}


def _snippet_expander(options: dict, root: Path):
    """Expand ``--8<--`` lines with pymdownx.snippets and record where each line came from."""
    options = dict(options)
    options["base_path"] = [str(root / p) for p in options.get("base_path", ["."])]
    md = markdown.Markdown(extensions=["pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": options})
    pre = md.preprocessors["snippet"]

    def expand(code: str, page: str, lineno: int) -> tuple[str, list[str]]:
        out, origins = [], []
        for i, line in enumerate(code.splitlines()):
            here = f"{page}:{lineno + 1 + i}"
            if "8<" not in line:
                out.append(line)
                origins.append(here)
                continue
            try:
                expanded = pre.run([line])
            except Exception as e:  # SnippetMissingError names no page
                raise BlockError(f"{here}: {type(e).__name__}: {e}") from None
            m = re.search(r"""["']([^"']+)["']""", line)
            src = m.group(1) if m else "include"
            out.extend(expanded)
            origins.extend(f"{src} (line {k + 1} of the text included at {here})"
                           for k in range(len(expanded)))
        return "\n".join(out) + "\n", origins

    return expand


def _notebook_blocks(path: Path, root: Path) -> list[Block]:
    """Code cells of a notebook, numbered from 1; notebooks take no markers."""
    page = relpath(path, root)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    blocks = []
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        code = "".join(cell["source"])
        if code.strip():
            origins = [f"{page}: cell {number}, line {k + 1}" for k in range(code.count("\n") + 1)]
            blocks.append(Block(page, number, number, "", "python", code + "\n", origins,
                                display_last=True))
    return blocks

"""A page's code as a notebook (``.ipynb``) and a script (``.py``) a reader takes away and runs.

Why: a reader who wants to run a page should not copy block after block, nor fix up what the
page does behind the scenes. Both files are made from the page's own blocks
(:func:`fieldnotes.blocks.read_blocks`, the code the tests run), and are standalone:

* the first cell starts from the state every page starts from (:func:`fieldnotes.runner.reset_state`:
  seeds 0, default print options, one CPU thread) and shows warnings and torch's log lines as
  the page does (``Category: message``), so a run prints what the page shows;
* a bash block becomes ``sh(r\"\"\"...\"\"\")``, a small function of the first cell that runs it
  as the page does (``bash -euo pipefail``, output and errors as one stream, this Python's
  ``python`` and ``torchrun`` first on ``PATH``); one the page shows failing prints its exit status;
* a block the page shows raising: in the notebook the same code in a cell tagged
  ``raises-exception`` (Jupyter and nbclient go on after it); in the script inside
  ``try``/``except`` that prints ``Type: message``, as the page does;
* a GPU block runs under ``if torch.cuda.is_available():`` and says it was skipped otherwise;
* the files a page's code uses from ``snippets/`` are written by the file itself
  (``%%writefile`` / ``Path.write_text``): a file the page shows where the page shows it,
  the others (modules imported from ``snippets``, and what they import) in a cell after the first.

The notebook has no outputs (the page has them) and no volatile data: the same page gives the
same bytes. Its code cells do not depend on the language, so a page and its translation have the
same code and one run of it checks both (:func:`code_key`).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat

from fieldnotes.blocks import Block
from fieldnotes import languages

MEDIA_TYPES = {".txt": "text/plain; charset=utf-8", ".py": "text/x-python; charset=utf-8",
               ".ipynb": "application/x-ipynb+json; charset=utf-8", ".json": "application/json; charset=utf-8"}
"""How a server labels the site's text files (scripts, notebooks, llms.txt, pitfalls.json): with
their charset, or a browser shows a Chinese page's file as Latin-1 mojibake. GitHub Pages sends
these; Python's http.server (``docs/site.py serve``, the tests) needs them given."""

SKIPPED = "Skipped: this needs a CUDA GPU (torch.cuda.is_available() is False)"
"""What a GPU block prints where there is no GPU (the same in both languages: it is code)."""

PRELUDE = '''\
# Start as every page of PyTorch Field Notes starts, so that the code prints what the page shows.
import os
import random
import re
import warnings

os.environ.setdefault("TORCH_LOGS_FORMAT", "%(levelname)s: %(message)s")  # torch's log lines as on the page
import torch

random.seed(0)
torch.manual_seed(0)
torch.set_printoptions(profile="default")
torch.set_num_threads(1)  # float sums add up in the same order as on the page
try:
    import numpy

    numpy.random.seed(0)
except ImportError:  # torch does not need numpy
    pass


def _warning(message, category, filename, lineno, line=None):
    """A warning as the page shows it: "Category: message", without the path of the code."""
    message = re.sub(r"\\s*\\(Triggered internally at [^)]*\\.\\)", "", str(message))
    return f"{category.__name__}: {message}\\n"


warnings.simplefilter("default")
warnings.formatwarning = _warning
'''

QUIET = '''
try:  # in Jupyter: show what the code prints, not the value of a cell's last line (the page shows none)
    get_ipython().ast_node_interactivity = "none"
except NameError:
    pass
'''

SH = '''

import subprocess
import sys


def sh(command, fails=False):
    """Run a shell block of the page as the page runs it: bash -euo pipefail, output and errors
    as one stream, this Python's python and torchrun first on PATH. fails=True: the page shows
    the command failing; its exit status is printed instead of raised."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    with subprocess.Popen(["bash", "-euo", "pipefail", "-c", command], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace") as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
    status = proc.returncode
    if fails and status == 0:
        raise RuntimeError("the page shows this command failing, but it succeeded")
    if fails:
        print(f"[exit status {status}]")
    elif status:
        raise subprocess.CalledProcessError(status, command)
'''



@dataclass(frozen=True)
class Heading:
    line: int  # line of the heading in the page (notebook pages: its cell number)
    text: str
    anchor: str | None  # its explicit id ({#id}), if any


@dataclass(frozen=True)
class PageInfo:
    """What the files say about their page: title, absolute URL, language, headings."""

    title: str
    url: str
    lang: str
    headings: tuple[Heading, ...] = ()


@dataclass
class Downloads:
    notebook: str  # nbformat 4 JSON
    script: str


class DownloadError(Exception):
    """A block cannot be turned into a standalone cell; the message starts with ``page:line:``."""


_HEADING = re.compile(r"^(#{2,3})\s+(.*?)\s*(?:\{[^}]*#([\w-]+)[^}]*\})?\s*$")


def headings(path: Path) -> tuple[Heading, ...]:
    """The ``##`` and ``###`` headings of a page, outside fences (a notebook: of its Markdown cells)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found = []
        for number, cell in enumerate(cells, start=1):
            if cell["cell_type"] == "markdown":
                for line in "".join(cell["source"]).splitlines():
                    m = _HEADING.match(line)
                    if m:
                        found.append(Heading(number, m[2], m[3]))
        return tuple(found)
    found, fence = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            mark = stripped[:3]
            fence = None if fence == mark else (fence or mark)
            continue
        m = None if fence else _HEADING.match(line)
        if m:
            found.append(Heading(number, m[2], m[3]))
    return tuple(found)


def literal(text: str) -> str:
    """``text`` as a Python string literal a reader can read: a raw triple-quoted string when it
    holds the text exactly, else ``repr``. Checked: the literal evaluates to ``text``."""
    for quote in ('"""', "'''"):
        candidate = f"r{quote}{text}{quote}"
        try:
            if "\r" not in text and ast.literal_eval(candidate) == text:
                return candidate
        except (SyntaxError, ValueError):
            continue
    return repr(text)


def indented(code: str, pad: str = "    ") -> str:
    """``code`` one level deeper, except the continuation lines of multi-line strings, whose
    text would change (a docstring's, an f-string's): indenting is then exact."""
    keep: set[int] = set()  # 1-based lines inside a multi-line string token, after its first
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)) and tok.end[0] > tok.start[0]:
                keep.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return "\n".join(line if (n in keep or not line.strip()) else pad + line
                     for n, line in enumerate(code.splitlines(), start=1))


def _guarded(code: str) -> str:
    return f"if torch.cuda.is_available():\n{indented(code)}\nelse:\n    print({SKIPPED!r})"


def _exception_name(block: Block) -> str:
    """The class to catch: the marker's, if Python knows it by that name; else Exception."""
    import builtins

    name = block.raises or "Exception"
    return name if isinstance(getattr(builtins, name, None), type) else "Exception"


def _with_last_shown(code: str) -> str:
    """A notebook cell's last expression, printed as Jupyter shows it (the script has no display)."""
    tree = ast.parse(code)
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or isinstance(last.value, ast.Call):
        return code  # a call's value (print(), plt.show()) is None: Jupyter shows nothing
    lines = code.splitlines()
    head = lines[: last.lineno - 1]
    expression = ast.get_source_segment(code, last)
    return "\n".join(head + [f"print(repr({expression}))"])


def _python(block: Block, script: bool) -> str:
    code = block.code.rstrip("\n")
    if script and block.display_last:
        code = _with_last_shown(code)
    if script and block.raises:
        name = _exception_name(block)
        code = (f"try:\n{indented(code)}\nexcept {name} as e:  # the page shows {block.raises} here\n"
                f"    print(f\"{{type(e).__name__}}: {{e}}\".rstrip())\nelse:\n"
                f"    print({('expected ' + block.raises + ', as on the page; none was raised')!r})")
    return _guarded(code) if block.gpu else code


def _bash(block: Block) -> str:
    command = block.code.strip("\n")
    command = "\n" + command + "\n" if "\n" in command else command  # a long command starts on its own line
    call = f"sh({literal(command)}" + (", fails=True)" if block.raises else ")")
    return _guarded(call) if block.gpu else call


def _write_file(path: str, content: str, script: bool) -> str:
    if script:
        return f"Path({path!r}).write_text({literal(content)}, encoding=\"utf-8\")"
    return f"%%writefile {path}\n{content.rstrip(chr(10))}"


def used_files(blocks: list[Block], root: Path) -> list[str]:
    """Files of ``snippets/`` the blocks use that no block shows (``file`` marker): those named
    by path in the code, and the modules imported once ``snippets`` is on ``sys.path``,
    with the snippets' own imports, in the order first needed."""
    shown = {b.file for b in blocks if b.file}
    folder = root / "snippets"
    modules = {p.stem: f"snippets/{p.name}" for p in folder.glob("*.py")}
    found: list[str] = []

    def add(path: str) -> None:
        if path in found or path in shown or not (root / path).is_file():
            return
        found.append(path)
        if path.endswith(".py"):
            for name in _imports((root / path).read_text(encoding="utf-8")):
                if name in modules:
                    add(modules[name])

    for block in blocks:
        for path in re.findall(r"snippets/[\w./-]+", block.code):
            add(path.rstrip("."))
        if block.syntax == "python" and "snippets" in block.code and not block.file:
            for name in _imports(block.code):
                if name in modules:
                    add(modules[name])
    return found


def _imports(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module.split(".")[0])
    return names


def make(blocks: list[Block], page: PageInfo, root: Path) -> Downloads:
    """The page's notebook and script (see the module docstring)."""
    t = languages.text(page.lang)["downloads"]
    files = used_files(blocks, root)
    writes = bool(files) or any(b.file for b in blocks)
    setup = PRELUDE + (SH if any(b.syntax == "bash" for b in blocks) else "")
    setup_script = setup + ("\nfrom pathlib import Path\n" if writes else "")
    if not any(b.display_last for b in blocks):  # a Markdown page: no cell shows its last value
        setup += QUIET
    if writes:
        setup += '\nos.makedirs("snippets", exist_ok=True)\n'
        setup_script += 'Path("snippets").mkdir(exist_ok=True)\n'

    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    cells = nb.cells
    intro = t["notebook"].format(title=page.title, url=page.url)
    cells.append(nbformat.v4.new_markdown_cell(f"# {page.title}\n\n{intro}", id="intro"))
    cells.append(nbformat.v4.new_code_cell(setup.rstrip("\n"), id="setup"))
    about = textwrap.fill(t["script"].format(title=page.title, url=page.url), 100,
                          break_long_words=False, break_on_hyphens=False)
    script = [f'"""{_docstring(page.title)}\n\n{_docstring(about)}\n"""\n\n' + setup_script.rstrip("\n")]
    if files:
        cells.append(nbformat.v4.new_markdown_cell(t["files"] + " " +
                                                   ", ".join(f"`{f}`" for f in files), id="files"))
        for i, path in enumerate(files):
            content = (root / path).read_text(encoding="utf-8")
            cells.append(nbformat.v4.new_code_cell(_write_file(path, content, False), id=f"file-{i}"))
            script.append(f"# %% {path}\n" + _write_file(path, content, True))
    section, title = None, None
    for index, block in enumerate(blocks):
        heading = _section(page.headings, block.lineno)
        if heading is not None and heading != section:
            section = title = heading
            link = (t["section"].format(heading=heading.text, url=page.url, anchor=heading.anchor)
                    if heading.anchor else "")
            cells.append(nbformat.v4.new_markdown_cell(f"## {heading.text}" + (f"\n\n{link}" if link else ""),
                                                       id=f"section-{index}"))
        if block.file:
            nb_code, py_code = _write_file(block.file, block.code, False), _write_file(block.file, block.code, True)
        elif block.syntax == "bash":
            nb_code = py_code = _bash(block)
        else:
            nb_code, py_code = _python(block, False), _python(block, True)
        cell = nbformat.v4.new_code_cell(nb_code, id=f"block-{index}")
        if block.raises and block.syntax == "python":
            cell.metadata["tags"] = ["raises-exception"]
        cells.append(cell)
        script.append((f"# %% {_one_line(title.text)}" if title else "# %%") + "\n" + py_code)
        title = None
    nbformat.validate(nb)
    text = json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    code = "\n\n\n".join(script) + "\n"
    where = blocks[0].page if blocks else page.url
    for name, source in [("script", code)] + [(f"notebook cell {c.id}", c.source) for c in cells
                                               if c.cell_type == "code" and not c.source.startswith("%%")]:
        try:  # a GPU cell, never run on a CPU machine, is at least known to compile
            ast.parse(source)
        except SyntaxError as e:  # a bug here, not in the page: the page's own code compiles
            raise DownloadError(f"{where}: the generated {name} does not parse "
                                f"(line {e.lineno}: {e.msg})") from None
    return Downloads(text, code)


def _docstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _section(found: tuple[Heading, ...], line: int) -> Heading | None:
    before = [h for h in found if h.line < line]
    return before[-1] if before else None


def code_cells(notebook: str) -> list[str]:
    """The sources of a notebook's code cells, in order."""
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in json.loads(notebook)["cells"] if c["cell_type"] == "code"]


def code_key(notebook: str, script: str) -> str:
    """What decides what running the files prints: their code, not their prose. A page and its
    translation have the same key, so one run checks both."""
    code_only = re.sub(r'\A""".*?"""', "", script, flags=re.S)
    code_only = re.sub(r"^# %%.*$", "", code_only, flags=re.M)
    return hashlib.sha256(json.dumps([code_cells(notebook), code_only]).encode()).hexdigest()


def names(src_uri: str) -> str:
    """The downloads' file name (without suffix) for a page: its own name; the home page's is ``home``."""
    stem = Path(src_uri).stem
    return "home" if stem == "index" else stem


def links_html(name: str, lang: str) -> str:
    """The paragraph under a page's title that offers its files (relative: they sit beside the page)."""
    t = languages.text(lang)["downloads"]
    return (f'<p class="fn-downloads">{t["links"]} '
            f'<a href="{name}.ipynb" download>{t["link_notebook"]}</a> · '
            f'<a href="{name}.py" download>{t["link_script"]}</a>{t["links_note"]}</p>')

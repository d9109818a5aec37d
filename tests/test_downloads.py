"""Each page's notebook and script (fieldnotes.downloads): standalone, and they print what the page shows.

The mechanism first, on small pages made here (a block that must raise, a GPU block, bash that
must fail, a file the code imports, hostile strings); then the site's own: every page with code
offers both files in both languages, with the same code; each is executed (the notebook by
nbclient, the script by the interpreter) in an empty folder, and what each block prints must
equal the output its page shows. A page and its translation have the same code: one execution
checks both (fieldnotes.downloads.code_key).
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient

from fieldnotes import downloads, filerecords
from fieldnotes.blocks import read_blocks
from fieldnotes.languages import LANGS
from fieldnotes.outputs import printable
from fieldnotes.results import PageRun
from fieldnotes.runner import _plain
from fieldnotes.store import Store, default_folder, page_key
from sitebuild import FENCE, ROOT

TIMEOUT = 900  # seconds for one file: the DDP pages start a dozen torchrun launches
WORKERS = int(os.environ.get("FIELDNOTES_WORKERS") or 2)
ENV = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
ENV.pop("PYTHONHASHSEED", None)  # a reader's Python hashes at random: a page must not print set order
_NOT_SHOWN = re.compile(r"^UserWarning: FigureCanvasAgg is non-interactive, and thus cannot be shown$")
_FRAME = re.compile(r'^(\s*)File "[^"]*", line \d+, in ')
_WHERE = re.compile(r"\((?:<block>|/[^()\s]*\.py):\d+\)")


# --- running the files ---------------------------------------------------------------------

def run_script(text: str, folder: Path) -> tuple[int, str]:
    """Run a script as a reader would (``python page.py``), output and errors as one stream."""
    path = folder / "page.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], cwd=folder, env=ENV, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    return done.returncode, normalised(done.stdout.decode("utf-8", "replace"))


def run_notebook(text: str, folder: Path) -> dict[str, tuple[str, str]]:
    """Execute a notebook with nbclient (as ``jupyter execute`` does): each code cell's id -> what
    it shows, as text, (stdout, stderr): its error as ``Type: message`` and a final value's text
    are on the stderr and stdout side. Jupyter keeps the two streams apart and does not keep their
    order between them (ipykernel flushes each on its own): see :func:`interleaves`."""
    nb = nbformat.reads(text, as_version=4)
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}})
    # The kernel gets ENV as its environment (never by changing os.environ: notebooks run in
    # threads, and pytest writes PYTEST_CURRENT_TEST there meanwhile); its own stderr (start-up
    # notice, exit noise) is no cell's output.
    client.execute(env=ENV, stderr=subprocess.DEVNULL)
    shown = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        out, err = [], []
        for o in cell.outputs:
            if o.output_type == "stream":
                (out if o.name == "stdout" else err).append(o.text)
            elif o.output_type == "error":
                err.append(f"{o.ename}: {o.evalue}".rstrip() + "\n")
            elif o.output_type == "execute_result":
                out.append(o.data.get("text/plain", "") + "\n")
        shown[cell.id] = (normalised("".join(out)), normalised("".join(err)))
    return shown


def interleaves(page: str, shown: tuple[str, str]) -> bool:
    """Whether the page's output is the cell's stdout and stderr lines, each in its order, merged."""
    want, a, b = page.splitlines(), shown[0].splitlines(), shown[1].splitlines()
    if len(want) != len(a) + len(b):
        return False
    can = [[False] * (len(b) + 1) for _ in range(len(a) + 1)]
    can[0][0] = True
    for i in range(len(a) + 1):
        for j in range(len(b) + 1):
            if (i and can[i - 1][j] and a[i - 1] == want[i + j - 1]) or \
                    (j and can[i][j - 1] and b[j - 1] == want[i + j - 1]):
                can[i][j] = True
    return can[len(a)][len(b)]


def normalised(text: str) -> str:
    """Output as a page shows it (no colour codes, carriage returns as line breaks), without what
    names the file that runs, which differs by design: a traceback frame's line (``<block>`` on the
    page, the script's path elsewhere) and the source lines and carets under it (a page's blocks
    have no source file to quote), a function's ``(file:line)``; blank lines do not count."""
    kept, frame = [], None
    for line in printable(_plain(text)).splitlines():
        m = _FRAME.match(line)
        if m:
            frame = len(m[1])
            continue
        if frame is not None and len(line) - len(line.lstrip()) > frame and line.strip():
            continue  # the frame's source line, or its carets
        frame = None
        if line.strip() and not _NOT_SHOWN.match(line):
            kept.append(_WHERE.sub("(<code>)", line.rstrip()))
    return "".join(f"{line}\n" for line in kept)


def expected(blocks, run: PageRun, notebook: bool) -> list[str]:
    """What each block should print when the files run here, from the page's run."""
    want = []
    for block, result in zip(blocks, run.results):
        if block.file:
            want.append(f"Writing {block.file}\n" if notebook else "")
        elif result.status == "needs-gpu":
            want.append(downloads.SKIPPED + "\n")
        else:
            want.append(normalised(result.output))
    return want


# --- the mechanism, on pages made here -----------------------------------------------------

def _page(tmp_path: Path, body: str) -> tuple[list, downloads.Downloads]:
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    (tmp_path / "snippets").mkdir(exist_ok=True)
    page = tmp_path / "docs" / "en" / "p.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(body, encoding="utf-8")
    blocks = read_blocks(page, snippets={"base_path": [str(tmp_path)], "check_paths": True}, root=tmp_path)
    info = downloads.PageInfo("Title", "http://127.0.0.1:8000/en/p/", "en", downloads.headings(page))
    return blocks, downloads.make(blocks, info, tmp_path)


HOSTILE = "\n".join([
    "# Title", "", "## First {#first}", "",
    FENCE + "python", "x = 1", r"""print('''a\b''' + "c")""", FENCE, "",
    '<!--pytest.mark.raises(ValueError, match="bad")-->',
    FENCE + "python", 'text = """kept', '  as is"""', 'raise ValueError("bad " + text)', FENCE, "",
    "<!--pytest.mark.gpu-->",
    FENCE + "python", 'print(torch.zeros(1, device="cuda"))', FENCE, "",
    "## Second", "",
    FENCE + "python", "import warnings", 'warnings.warn("careful")', 'print("after", x)', FENCE, "",
    "<!--pytest.mark.raises(SystemExit)-->",
    FENCE + "bash", "echo 'quote " + '"' * 3 + " and " + "\\' && exit 3", FENCE, "",
])
"""A page with what a generator gets wrong: quotes of both kinds, backslashes, a multi-line string
in a block that must raise, a GPU block, a warning, a command that must fail."""


def test_a_raising_block_shows_its_error_and_the_rest_runs(tmp_path):
    blocks, made = _page(tmp_path, HOSTILE)
    run = tmp_path / "run"
    run.mkdir()
    status, out = run_script(made.script, run)
    assert status == 0, out
    assert out == ("a\u2408c\n" "ValueError: bad kept\n  as is\n" + downloads.SKIPPED + "\n"
                   "UserWarning: careful\nafter 1\n" 'quote """ and \\\n[exit status 3]\n')
    shown = run_notebook(made.notebook, run)
    assert [shown[f"block-{i}"] for i in range(len(blocks))] == [
        ("a\u2408c\n", ""), ("", "ValueError: bad kept\n  as is\n"), (downloads.SKIPPED + "\n", ""),
        ("after 1\n", "UserWarning: careful\n"), ('quote """ and \\\n[exit status 3]\n', "")]
    assert interleaves("UserWarning: careful\nafter 1\n", shown["block-3"])
    assert not interleaves("after 1\n", shown["block-3"])
    assert not interleaves("UserWarning: careful\nafter 2\n", shown["block-3"])


def test_the_notebook_is_valid_tagged_sectioned_and_the_same_every_time(tmp_path):
    blocks, made = _page(tmp_path, HOSTILE)
    nb = nbformat.reads(made.notebook, as_version=4)
    nbformat.validate(nb)
    cells = {c.id: c for c in nb.cells}
    assert cells["block-1"].metadata["tags"] == ["raises-exception"]
    assert "raises-exception" not in cells["block-0"].metadata.get("tags", [])
    assert cells["block-2"].source.startswith("if torch.cuda.is_available():")
    assert "[First](http://127.0.0.1:8000/en/p/#first)" in cells["section-0"].source
    assert cells["section-3"].source == "## Second"  # no id: no link
    assert nb.cells[0].source.startswith("# Title")
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert downloads.make(blocks, downloads.PageInfo("Title", "http://127.0.0.1:8000/en/p/", "en",
                                                     downloads.headings(tmp_path / "docs/en/p.md")),
                          tmp_path) == made


def test_a_command_that_fails_unexpectedly_stops_the_script(tmp_path):
    _, made = _page(tmp_path, f"# T\n\n{FENCE}bash\necho one; false\n{FENCE}\n\n{FENCE}python\nprint('never')\n{FENCE}\n")
    status, out = run_script(made.script, tmp_path)
    assert status != 0 and "one\n" in out and "never" not in out and "CalledProcessError" in out


def test_a_block_that_no_longer_raises_says_so(tmp_path):
    _, made = _page(tmp_path, f'# T\n\n<!--pytest.mark.raises(KeyError)-->\n{FENCE}python\nprint("fine")\n{FENCE}\n')
    assert run_script(made.script, tmp_path) == (0, "fine\nexpected KeyError, as on the page; none was raised\n")


def test_files_the_code_uses_are_written_so_the_files_stand_alone(tmp_path):
    body = (f"# T\n\n{FENCE}python\nimport sys\nsys.path.insert(0, 'snippets')\nfrom helper import answer\n"
            f"print(answer())\n{FENCE}\n\n<!--pytest.mark.file-->\n{FENCE}python\n--8<-- \"snippets/shown.py\"\n"
            f"{FENCE}\n\n{FENCE}bash\npython snippets/shown.py\n{FENCE}\n")
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "helper.py").write_text("from deeper import N\n\ndef answer():\n    return N\n")
    (tmp_path / "snippets" / "deeper.py").write_text("N = 42  # '''\\\n")
    (tmp_path / "snippets" / "shown.py").write_text('print("shown \\\\n ran")\n')
    blocks, made = _page(tmp_path, body)
    assert downloads.used_files(blocks, tmp_path) == ["snippets/helper.py", "snippets/deeper.py"]
    run = tmp_path / "elsewhere"
    run.mkdir()
    assert run_script(made.script, run) == (0, "42\nshown \\n ran\n")
    assert (run / "snippets" / "deeper.py").read_text() == "N = 42  # '''\\\n"
    (tmp_path / "other").mkdir()
    shown = run_notebook(made.notebook, tmp_path / "other")
    assert [shown[f"block-{i}"][0] for i in range(3)] == ["42\n", "Writing snippets/shown.py\n", "shown \\n ran\n"]


def test_a_recorded_run_stands_only_for_the_same_code_kind_environment_and_pins(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n", encoding="utf-8")
    env = {"python": "3.11.7", "torch": "2.13.0+cpu", "device": "CPU (x86_64)"}
    base = filerecords.key("code", "script", tmp_path, env)
    assert base == filerecords.key("code", "script", tmp_path, dict(env))
    changed = [filerecords.key("code.", "script", tmp_path, env),
               filerecords.key("code", "notebook", tmp_path, env),
               filerecords.key("code", "script", tmp_path, {**env, "torch": "2.14.1+cpu"}),
               filerecords.key("code", "script", tmp_path, {**env, "python": "3.12.1"}),
               filerecords.key("code", "script", tmp_path, {**env, "device": "NVIDIA H200 | CUDA_VISIBLE_DEVICES="})]
    (tmp_path / "requirements.txt").write_text("torch==2.14.1\n", encoding="utf-8")
    changed.append(filerecords.key("code", "script", tmp_path, env))
    assert base not in changed and len(set(changed)) == len(changed)
    with pytest.raises(ValueError, match="kind must be one of"):
        filerecords.key("code", "binary", tmp_path, env)


def test_records_are_kept_reused_written_whole_or_not_at_all_and_switched_off(tmp_path):
    (tmp_path / "tests").mkdir()
    records = filerecords.Records(tmp_path, env={})
    assert records.get("k1") is None
    records.put("k1", "a.md", "script", [0, "out\n"])
    assert records.get("k1") == ([0, "out\n"], "the store")
    assert filerecords.Records(tmp_path, env={filerecords.SWITCH: "off"}).get("k1") is None
    assert records.write([("a.md", "script", "k1"), ("b.md", "notebook", "k2")]) == ["b.md (notebook)"]
    assert not records.path.exists()  # one page without a run: nothing written
    assert records.write([("a.md", "script", "k1")]) == []
    (records.folder / "k1"[:2] / "k1.json").unlink()
    assert filerecords.Records(tmp_path, env={}).get("k1") == ([0, "out\n"], "tests/file-runs.json")
    assert filerecords.Records(tmp_path, env={filerecords.SWITCH: "off"}).get("k1") is None


def test_a_recorded_run_is_held_to_this_sessions_page(tmp_path, monkeypatch):
    """Planted faults, with the files' runs recorded: the page's output changes between runs (a
    random number), a recorded run no longer matches the page, and a page that raises where its
    files do not. Each fails, naming the page and the record."""
    from fieldnotes.execute import run_page

    body = f"# T\n\n{FENCE}python\nimport os\nprint(os.urandom(8).hex())\n{FENCE}\n\n{FENCE}python\nprint(2)\n{FENCE}\n"
    blocks, made = _page(tmp_path, body)
    (tmp_path / "run").mkdir()
    recorded = {"script": from_json("script", json.loads(json.dumps(run_script(made.script, tmp_path / "run")))),
                "notebook": from_json("notebook", json.loads(json.dumps(run_notebook(made.notebook, tmp_path / "run"))))}
    for kind in filerecords.KINDS:
        monkeypatch.setitem(_recorded, ("p.md", kind), "tests/file-runs.json")
    page_run = run_page(blocks, tmp_path)
    assert [r.status for r in page_run.results] == ["ok", "ok"], page_run
    with pytest.raises(AssertionError, match=r"docs/en/p.md as a script \(the run recorded in tests/file-runs.json\)"):
        prints_what_the_page_shows("p.md", "script", blocks, page_run, recorded["script"])
    with pytest.raises(AssertionError, match=r"docs/en/p.md:\d+ in the notebook \(the run recorded in tests/file-runs"):
        prints_what_the_page_shows("p.md", "notebook", blocks, page_run, recorded["notebook"])
    # the same run with the page's own first line: it passes, so the random line alone failed it
    first = page_run.results[0].output
    script = (0, first + "2\n")
    prints_what_the_page_shows("p.md", "script", blocks, page_run, script)
    notebook = {**recorded["notebook"], "block-0": (first, "")}
    prints_what_the_page_shows("p.md", "notebook", blocks, page_run, notebook)
    with pytest.raises(AssertionError, match=r"as a script \(the run recorded .*\(exit status 1\)"):
        prints_what_the_page_shows("p.md", "script", blocks, page_run, (1, script[1]))


@pytest.mark.parametrize("text", ["", "plain", "ends with \\", "'''\n\"\"\"", "r'''\\'", "\r\n", "中文\t\x1b"])
def test_a_literal_is_the_text_itself(text):
    import ast

    assert ast.literal_eval(downloads.literal(text)) == text


def test_indenting_keeps_multiline_strings_exact():
    code = 'x = """a\n  b"""\nif x:\n    y = f"""{x}\nc"""\n'
    scope: dict = {}
    exec("if True:\n" + downloads.indented(code), scope)
    assert scope["x"] == "a\n  b" and scope["y"] == "a\n  b\nc"


# --- the site's own pages --------------------------------------------------------------------

def _pages() -> list[str]:
    """Every page with code, relative to docs/en (both languages have the same pages)."""
    found = []
    for path in sorted((ROOT / "docs" / "en").rglob("*")):
        if path.suffix in (".md", ".ipynb") and read_blocks(path, root=ROOT):
            found.append(path.relative_to(ROOT / "docs" / "en").as_posix())
    return found


PAGES = _pages()


def _site_files(site: Path, lang: str, page: str) -> tuple[str, str]:
    folder = site / lang / ("" if page in ("index.md",) else Path(page).with_suffix("").as_posix())
    name = downloads.names(page)
    return ((folder / f"{name}.ipynb").read_text(encoding="utf-8"),
            (folder / f"{name}.py").read_text(encoding="utf-8"))


def test_every_page_with_code_links_its_notebook_and_script(built_site):
    assert built_site.status == 0, built_site.log[-3000:]
    for lang in LANGS:
        for page in PAGES:
            folder = "" if page == "index.md" else Path(page).with_suffix("").as_posix() + "/"
            html = (built_site.path / lang / folder / "index.html").read_text(encoding="utf-8")
            links = BeautifulSoup(html, "html.parser").select("p.fn-downloads a[download]")
            name = downloads.names(page)
            assert [a["href"] for a in links] == [f"{name}.ipynb", f"{name}.py"], f"docs/{lang}/{page}"
            for a in links:
                assert (built_site.path / lang / folder / a["href"]).is_file(), f"docs/{lang}/{page}: {a['href']}"


def test_both_languages_have_the_same_code(built_site):
    for page in PAGES:
        keys = {lang: downloads.code_key(*_site_files(built_site.path, lang, page)) for lang in LANGS}
        assert len(set(keys.values())) == 1, f"{page}: the languages' notebooks or scripts differ in code"


_executions: dict[tuple[str, str], Future] = {}
_pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="fieldnotes-download")
_records = filerecords.Records(ROOT)
_recorded: dict[tuple[str, str], str] = {}
"""(page, kind) -> where its run was recorded, for the files this session did not run."""


@functools.cache
def made_here(page: str) -> tuple[str, downloads.Downloads]:
    """The page's notebook and script as the build makes them (fieldnotes.downloads.make, on the
    blocks the build reads), without the build, and their code_key: what running them prints
    depends on their code only, and each test checks that the site publishes that same code."""
    path = ROOT / "docs" / "en" / page
    info = downloads.PageInfo(page, f"http://127.0.0.1/en/{page}", "en", downloads.headings(path))
    made = downloads.make(read_blocks(path, root=ROOT), info, ROOT)
    return downloads.code_key(made.notebook, made.script), made


_starting = threading.Lock()


def start_executions(pages: list[str] | None = None) -> None:
    """The notebook and script of ``pages`` (default: every page), run once for the session in a
    pool: started by conftest.py for the pages whose tests are selected, once the pages' own runs
    are done (or by the first test that needs one), so that they run beside the tests of the built
    site, not after them (reports/ci-time.md). A file whose run of the same code in the same
    environment is recorded (fieldnotes.filerecords) is not run again: the recorded run is compared
    with this session's page run as a new one would be."""
    with _starting:
        for p in PAGES if pages is None else pages:
            if (p, "script") in _executions:
                continue
            code, made = made_here(p)
            for k, text in (("notebook", made.notebook), ("script", made.script)):
                key = filerecords.key(code, k, ROOT)
                recorded = _records.get(key)
                if recorded is not None:
                    _recorded[(p, k)] = recorded[1]
                    _executions[(p, k)] = done = Future()
                    done.set_result(from_json(k, recorded[0]))
                else:
                    _executions[(p, k)] = _pool.submit(_run_and_keep, text, k, key, p)


def stop_executions() -> None:
    """At the end of the session: the runs not started yet are cancelled (a -x or a ^C)."""
    _pool.shutdown(wait=False, cancel_futures=True)


def summary() -> str | None:
    """One line for the session's summary: how many files ran, how many runs were recorded."""
    if not _executions:
        return None
    where = sorted(set(_recorded.values()))
    return (f"take-away files: {len(_executions) - len(_recorded)} of {len(_executions)} run in this session, "
            f"{len(_recorded)} recorded for the same code and environment ({', '.join(where) or 'none'}; "
            f"{filerecords.SWITCH}=off runs them all)")


def same_code_as_executed(site: Path, page: str) -> None:
    published = downloads.code_key(*_site_files(site, "en", page))
    assert published == made_here(page)[0], (
        f"docs/en/{page}: the site's notebook or script differs in code from the files made from the "
        f"page's blocks and executed here")


def _execute(site: Path, page: str, kind: str) -> Future:
    """This page's file, run once for the session; the site's files must have the same code."""
    same_code_as_executed(site, page)
    start_executions([page])
    return _executions[(page, kind)]


def _run_in_temp(text: str, kind: str):
    with tempfile.TemporaryDirectory(prefix="fieldnotes-download-") as folder:
        return run_notebook(text, Path(folder)) if kind == "notebook" else run_script(text, Path(folder))


def _run_and_keep(text: str, kind: str, key: str, page: str):
    result = _run_in_temp(text, kind)
    _records.put(key, page, kind, result)
    return result


def from_json(kind: str, result):
    """A run as JSON keeps it (lists for tuples) -> as the run returned it."""
    if kind == "script":
        return tuple(result)
    return {cell: tuple(shown) for cell, shown in result.items()}


def _page_run(page: str) -> tuple[list, PageRun]:
    blocks = read_blocks(ROOT / "docs" / "en" / page, root=ROOT)
    run = Store(default_folder(ROOT)).get(page_key(blocks, ROOT))
    if run is None:
        pytest.fail(f"docs/en/{page}: no stored run of this code; the site build stores one")
    return blocks, run


@pytest.mark.parametrize("kind", ["notebook", "script"])
@pytest.mark.parametrize("page", PAGES)
def test_the_files_print_what_the_page_shows(built_site, page, kind):
    blocks, run = _page_run(page)
    prints_what_the_page_shows(page, kind, blocks, run, _execute(built_site.path, page, kind).result())


def prints_what_the_page_shows(page: str, kind: str, blocks, run: PageRun, result) -> None:
    """The file's run (``result``, new or recorded) against this session's run of the page."""
    want = expected(blocks, run, kind == "notebook")
    recorded = f" (the run recorded in {_recorded[(page, kind)]})" if (page, kind) in _recorded else ""
    if kind == "script":
        status, out = result
        diff = "".join(difflib.unified_diff("".join(want).splitlines(True), out.splitlines(True),
                                            "the page shows", "the script prints", n=2))
        assert status == 0 and not diff, (
            f"docs/en/{page} as a script{recorded} (exit status {status}):\n{diff[-6000:]}")
        return
    for index, block in enumerate(blocks):
        got = result.get(f"block-{index}", ("", ""))
        assert interleaves(want[index], got), (
            f"docs/en/{page}:{block.lineno} in the notebook{recorded} prints\n{got[0]}\n--- and on stderr\n{got[1]}\n"
            f"--- the page shows\n{want[index]}")


def test_files_that_differ_from_the_executed_ones_fail_naming_the_page(tmp_path):
    """The files run early (from the pages, before the build) stand for the site's files only while
    their code is the same: a site whose script differs in one line fails, naming the page."""
    page = next(p for p in PAGES if p.startswith("tensors/"))
    made = made_here(page)[1]
    folder = tmp_path / "en" / Path(page).with_suffix("").as_posix()
    folder.mkdir(parents=True)
    name = downloads.names(page)
    (folder / f"{name}.ipynb").write_text(made.notebook, encoding="utf-8")
    (folder / f"{name}.py").write_text(made.script, encoding="utf-8")
    same_code_as_executed(tmp_path, page)
    (folder / f"{name}.py").write_text(made.script.replace("print(", "print('changed',", 1), encoding="utf-8")
    with pytest.raises(AssertionError, match=f"docs/en/{re.escape(page)}: the site's notebook or script differs"):
        same_code_as_executed(tmp_path, page)

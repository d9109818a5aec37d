"""Broken input must fail loudly, and say where: proved on a throwaway one-page-per-defect project.

Each case is a small page with one defect, among them a contributor's worst mistakes (a block
that exits the interpreter, crashes it, leaves a process running, prints megabytes, ignores its
time limit). The same pages go through the strict build and through pytest: both must fail
with a message naming the page file and line, in time, and leave no process and no file behind.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import psutil
import pytest

from fieldnotes.blocks import read_blocks
from fieldnotes.languages import LANGS
from fieldnotes.store import Store, default_folder, page_key
from sitebuild import FENCE, make_project, run, run_together
from fieldnotes.parity import problems as parity_problems

SWALLOWS = ("import os\n\n\ndef spam():\n    while True:\n        try:\n            os.write(1, b'x' * 1000)\n"
            "        except BaseException:\n            pass\n\n\nwhile True:\n    try:\n        spam()\n"
            "    except BaseException:\n        pass\n")
"""Catches the interpreter's stop wherever it lands (the inner loop's jump back is outside its
try), so only the executor can end it."""
BROKEN = {
    "raises.md": f"# Raises\n\n{FENCE}python\nx = 1\ny = x / 0\n{FENCE}\n",
    "hangs.md": f"# Hangs\n\n<!--pytest.mark.timeout(3)-->\n{FENCE}python\nwhile True:\n    pass\n{FENCE}\n",
    "stops-raising.md": f"# Claim\n\n<!--pytest.mark.raises(ValueError)-->\n{FENCE}python\nint('12')\n{FENCE}\n",
    "escaped-fence.md": f"# Escaped\n\n{FENCE}py\nprint('never run')\n{FENCE}\n",
    "dead-link.md": "# Dead link\n\nSee [the missing page](no-such-page.md).\n",
    "only-english.md": f"# Only English\n\n{FENCE}python\nprint(1)\n{FENCE}\n",
    # a contributor's worst mistakes
    "exits.md": f"# Exits\n\n{FENCE}python\nimport os\n\nos._exit(0)\n{FENCE}\n",
    "sys-exit.md": f"# sys.exit\n\n{FENCE}python\nimport sys\n\nsys.exit(3)\n{FENCE}\n",
    "segfault.md": f"# Segfault\n\n{FENCE}python\nimport ctypes\n\nctypes.string_at(0)\n{FENCE}\n",
    "child.md": f"# Child\n\n{FENCE}python\nimport subprocess\n\nsubprocess.Popen(['sleep', '987'])\n{FENCE}\n",
    "own-session.md": f"# Own session\n\n{FENCE}python\nimport subprocess\n\n"
                      f"subprocess.Popen(['sleep', '988'], start_new_session=True)\n{FENCE}\n",
    "background.md": f"# Background\n\n{FENCE}bash\nsleep 989 &\necho started\n{FENCE}\n",
    "prints.md": f"# Prints\n\n{FENCE}python\nprint('x' * 50_000_000)\n{FENCE}\n",
    # output past the cap, however it is printed: stopped while it runs, not at the time limit
    "endless.md": f"# Endless\n\n{FENCE}python\nimport sys\n\nwhile True:\n    sys.stdout.write('x' * 100)\n{FENCE}\n",
    "endless-system.md": f"# Endless\n\n{FENCE}python\nimport os\n\nos.system('yes')\n{FENCE}\n",
    "endless-bash.md": f"# Endless\n\n{FENCE}bash\nyes\n{FENCE}\n",
    "endless-swallows.md": f"# Endless\n\n{FENCE}python\n{SWALLOWS}{FENCE}\n",
    # a failing block whose message looks like page source: reported, never read as Markdown
    "raises-hostile.md": f"# Raises\n\n{FENCE}python\nraise ValueError('--8' + '<-- \"/etc/passwd\"')\n{FENCE}\n",
    "asserts.md": f"# Asserts\n\n{FENCE}python\na = 3\nb = 4\nassert a == b\n{FENCE}\n",
    "ignores-timeout.md": f"# Ignores its limit\n\n<!--pytest.mark.timeout(2)-->\n{FENCE}python\nimport time\n\n"
                          f"while True:\n    try:\n        time.sleep(0.1)\n    except BaseException:\n"
                          f"        pass\n{FENCE}\n",
    # not errors: a block may write files and change directory, but only in its page's own folder
    "writes.md": f"# Writes\n\n{FENCE}python\nimport os\n\nopen('written-by-a-block.txt', 'w').write('x')\n"
                 f"os.chdir('..')\nopen('written-after-chdir.txt', 'w').write('x')\n{FENCE}\n",
    "cwd.md": f"# Where it runs\n\n{FENCE}python\nimport os\n\nassert 'fieldnotes-page-' in os.getcwd(), os.getcwd()\n"
              f"assert not os.path.exists('written-by-a-block.txt')\n{FENCE}\n",
}
LEFT_RUNNING = re.compile(r"sleep 98[789]")
MISSING_SNIPPET = {"missing-snippet.md": f'# Include\n\n{FENCE}python\n--8<-- "snippets/nope.py"\n{FENCE}\n'}


_AS_MADE: dict[Path, set[str]] = {}  # each project's files when it was made


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    import nbformat

    project = make_project(tmp_path_factory.mktemp("broken"), BROKEN)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Notebook"),
                                               nbformat.v4.new_code_cell("x = 1\ny = x / 0")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for lang in LANGS:  # a notebook whose cell fails
        nbformat.write(notebook, project / "docs" / lang / "notebook.ipynb")
    _AS_MADE[project] = _files(project)
    return project


@pytest.fixture(scope="module")
def logs(broken) -> dict[str, tuple[int, str, float]]:
    """The strict build and pytest of the broken project, run at the same time."""
    build, tests = run_together([
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"],
        # a store of its own: with the build's, one would wait for the other's runs
        ["env", "FIELDNOTES_STORE=.cache/tests-store", sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         "-q", "--continue-on-collection-errors", "docs/en"],
    ], broken)
    return {"build_log": build, "pytest_log": tests}


@pytest.fixture(scope="module")
def build_log(logs) -> tuple[int, str, float]:
    return logs["build_log"]


@pytest.fixture(scope="module")
def pytest_log(logs) -> tuple[int, str, float]:
    return logs["pytest_log"]


EXPECTED = {  # what the build and pytest must each say, per defect
    "raises": ["docs/en/raises.md:5: ZeroDivisionError: division by zero"],
    "hangs": ["docs/en/hangs.md:4: Timeout: the block did not finish in 3 s"],
    "stops-raising": ["docs/en/stops-raising.md:4: expected ValueError, but the block ran without raising"],
    "escaped-fence": ["docs/en/escaped-fence.md:3: fence info string 'py' is neither executed"],
    "exits": ["docs/en/exits.md:3: the page's interpreter exited with status 0 in this block"],
    "sys-exit": ["docs/en/sys-exit.md:6: SystemExit: 3 \\(the block called sys.exit\\(\\)"],
    "segfault": ["docs/en/segfault.md:3: the page's interpreter was killed by signal SIGSEGV",
                 'File "docs/en/segfault.md:6"'],  # faulthandler's traceback, with the page's line
    "child": [r"docs/en/child.md:3: LeftProcessRunning: the block left 1 process\(es\) running \(pid \d+: sleep 987\)"],
    "own-session": [r"docs/en/own-session.md:3: LeftProcessRunning: .*sleep 988"],
    "background": [r"docs/en/background.md:3: LeftProcessRunning: .*sleep 989"],
    "prints": [r"docs/en/prints.md:3: OutputTooLong: the block printed 50,00\d,\d\d\d bytes( when it was "
               r"stopped)?, more than the limit of 64 KiB per block; print less, or summarise"],
    "endless": [r"docs/en/endless.md:3: OutputTooLong: the block printed [\d,]+ bytes when it was stopped, more "
                "than the limit of 64 KiB"],
    "endless-system": [r"docs/en/endless-system.md:3: OutputTooLong: the block printed [\d,]+ bytes when it was stopped"],
    "endless-bash": [r"docs/en/endless-bash.md:3: OutputTooLong: the block printed [\d,]+ bytes when it was stopped"],
    "endless-swallows": [r"docs/en/endless-swallows.md:3: OutputTooLong: the block printed more than the limit of "
                         r"64 KiB per block \([\d,]+ bytes\) and did not stop; killed"],
    "raises-hostile": ['docs/en/raises-hostile.md:4: ValueError: --8<-- "/etc/passwd"'],
    "asserts": ["docs/en/asserts.md:6: AssertionError: assert 3 == 4"],
    "ignores-timeout": ["docs/en/ignores-timeout.md:4: Timeout: the block did not finish in 2 s and did "
                        "not stop at its limit"],
    "notebook": ["docs/en/notebook.ipynb: cell 2, line 2: ZeroDivisionError: division by zero"],
}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("tool", ["build_log", "pytest_log"])
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_strict_build_and_pytest_fail_and_name_the_page_and_line(request, tool, case):
    status, log, _ = request.getfixturevalue(tool)
    assert status != 0
    for pattern in EXPECTED[case]:
        assert re.search(pattern, log), f"{pattern!r} not in {tool}:\n{log[-3000:]}"
    # A hanging block does not hold the build or the tests: they ended (within this test's own
    # limit), and the hang is reported at its time limit ("did not finish in 3 s"). No wall-clock
    # bound on the whole run here: on a busy machine it measured the load, not the hang.


@pytest.mark.parametrize("tool", ["build_log", "pytest_log"])
def test_bad_blocks_leave_no_process_and_no_file_behind(request, broken, tool):
    request.getfixturevalue(tool)
    left = [p for p in psutil.process_iter(["cmdline"]) if LEFT_RUNNING.search(" ".join(p.info["cmdline"] or []))]
    assert not left, f"processes left running after {tool}: {[p.info['cmdline'] for p in left]}"
    assert _files(broken) == _AS_MADE[broken], f"{tool} wrote into the project: {_files(broken) ^ _AS_MADE[broken]}"
    assert Path.cwd() == Path(request.config.invocation_params.dir), "a block changed the tests' directory"


def _files(project: Path) -> set[str]:
    """The project's files, less what the tools write on purpose (the store, the site, caches)."""
    return {p.relative_to(project).as_posix() for p in project.rglob("*")
            if not {".cache", "site", "__pycache__", ".pytest_cache"} & set(p.relative_to(project).parts)}


def test_each_problem_is_reported_once_and_the_build_shows_progress(build_log):
    """A page whose fence cannot be read used to be reported twice (the execute and the pitfall
    hooks); every page that runs gets a progress line: which, how many done of how many."""
    status, log, _ = build_log
    assert log.count("docs/en/escaped-fence.md:3: fence info string 'py'") == 1, log[-3000:]
    assert re.search(r"code: (ran|failed) docs/en/raises\.md in [\d.]+ s \[\d+/\d+ done, \d+ s\]", log), log[-3000:]


def test_failed_runs_are_not_stored(broken, build_log):
    """Only complete, passing runs are kept: a failing page runs again at the next build."""
    store = Store(default_folder(broken, env={}))  # the project's own, as its builds use
    assert store.entries(), "the passing pages' runs are stored"
    for case in set(EXPECTED) - {"escaped-fence"}:  # (that page is refused before it runs)
        page = next((broken / "docs" / "en").glob(f"{case}.*"))
        assert store.get(page_key(read_blocks(page), broken)) is None, f"{page.name}: a failed run was stored"


def test_blocks_write_and_change_directory_only_in_their_page_folder(pytest_log):
    status, log, _ = pytest_log
    assert not re.search(r"docs/en/(writes|cwd)\.md", log.split("short test summary")[-1]), log[-3000:]


def test_dead_internal_link_fails_the_strict_build(build_log):
    status, log, _ = build_log
    assert re.search(r"WARNING.*'dead-link\.md'.*'no-such-page\.md'.*not found", log), log[-3000:]


def test_missing_translation_fails_the_build_and_the_parity_check(broken, build_log):
    status, log, _ = build_log
    assert "docs/en/only-english.md has no translation: docs/zh/only-english.md is missing" in log
    assert "docs/en/only-english.md has no translation: docs/zh/only-english.md is missing" \
        in parity_problems(broken / "docs")


@pytest.mark.timeout(600)
def test_missing_snippet_fails_the_build_and_pytest(tmp_path):
    project = make_project(tmp_path, MISSING_SNIPPET)
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status != 0 and "snippets/nope.py" in log and "missing-snippet.md" in log, log[-3000:]
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en"], project)
    assert status != 0
    assert "docs/en/missing-snippet.md:4: SnippetMissingError: Snippet at path 'snippets/nope.py'" in log, log


def test_parity_check_sees_changed_code_and_anchors(tmp_path):
    project = make_project(tmp_path, {"page.md": f"# P\n\n## Part {{#part}}\n\n{FENCE}python\nprint(1)\n{FENCE}\n"})
    zh = project / "docs" / "zh" / "page.md"
    zh.write_text(f"# P\n\n## 部分 {{#bufen}}\n\n{FENCE}python\nprint(2)\n{FENCE}\n", encoding="utf-8")
    problems = "\n".join(parity_problems(project / "docs"))
    assert "page.md: block 1 differs between en and zh (code, language or markers: code): " \
           "docs/en/page.md:5 ```python 'print(1)' vs docs/zh/page.md:5 ```python 'print(2)'" in problems, problems
    zh.write_text(f"# P\n\n## 部分 {{#bufen}}\n\n{FENCE}python\nprint(1)\n{FENCE}\n", encoding="utf-8")
    problems = "\n".join(parity_problems(project / "docs"))
    assert "page.md: heading ids differ: en ['part'] vs zh ['bufen']; first difference: " \
           "docs/en/page.md:3 #part vs docs/zh/page.md:3 #bufen" in problems, problems



@pytest.mark.timeout(300)
def test_a_block_that_exits_the_interpreter_cannot_end_pytest_green(tmp_path):
    """os._exit(0) in a block used to end ``python -m pytest`` with status 0: nothing after it ran."""
    project = make_project(tmp_path, {"exits.md": BROKEN["exits.md"],
                                      "fine.md": f"# Fine\n\n{FENCE}python\nprint('still tested')\n{FENCE}\n"})
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs"], project)
    assert status == 1 and "2 failed, 2 passed" in log, log[-3000:]  # exits.md (en, zh) failed; fine.md ran


SELECT_PAGE = {"select.md": f"# Select\n\n{FENCE}python\nx = 41\n{FENCE}\n\n{FENCE}python\nprint(x + 1)\n"
                            f"assert x + 1 == 43\n{FENCE}\n",
               "select-after-a-failure.md": f"# Select\n\n{FENCE}python\nx = 1 / 0\n{FENCE}\n\n"
                                           f"{FENCE}python\nprint('never')\n{FENCE}\n"}


@pytest.mark.timeout(300)
def test_selecting_one_block_runs_the_blocks_before_it(tmp_path):
    """``-k`` or ``--lf`` on one block runs its page up to it: no NameError for a name defined earlier."""
    project = make_project(tmp_path, SELECT_PAGE)
    first = run([sys.executable, "-m", "pytest", "-q", "docs/en/select.md::line 7"], project)
    again = run([sys.executable, "-m", "pytest", "-q", "--lf", "docs/en/select.md"], project)
    for status, log, _ in (first, again):
        assert status == 1 and re.search(r"\b1 failed(, 1 deselected)? in", log) and "NameError" not in log, log[-3000:]
        assert "docs/en/select.md:9: AssertionError: assert (41 + 1) == 43" in log, log[-3000:]
    # the block selected cannot pass, nor be skipped, when an earlier one (not selected) fails
    status, log, _ = run([sys.executable, "-m", "pytest", "-q", "docs/en/select-after-a-failure.md::line 7"], project)
    assert status == 1 and "docs/en/select-after-a-failure.md:7: not reached, an earlier block failed" in log \
        and "docs/en/select-after-a-failure.md:4: ZeroDivisionError" in log, log[-3000:]


def test_a_failure_that_prints_page_source_does_not_abort_the_build(build_log):
    """An output or error used to go through pymdownx.snippets: ``--8<-- "/etc/passwd"`` aborted
    the whole build with a traceback naming no page."""
    status, log, _ = build_log
    assert "Error reading page" not in log and "SnippetMissingError" not in log, log[-3000:]

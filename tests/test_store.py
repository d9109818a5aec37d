"""The results store (fieldnotes.store): what its key holds, and how the build and the tests use it.

The build reuses a stored run when nothing that can change the outputs changed; ``--fresh``
and the tests never read it; only complete, passing runs are stored.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from fieldnotes.blocks import read_blocks
from fieldnotes.store import Store, default_folder, page_key
from sitebuild import FENCE, make_project, run

PAGE = (f"# Page\n\nSome prose.\n\n{FENCE}python\nimport torch\nx = torch.arange(3)\n{FENCE}\n\n"
        f"{FENCE}python\nprint(x * 2)\n{FENCE}\n")
SCRIPT_PAGE = f"# Script\n\n{FENCE}bash\npython snippets/tiny_script.py\n{FENCE}\n"


def key_of(project: Path, lang: str, name: str) -> str:
    return page_key(read_blocks(project / "docs" / lang / name), project)


def test_key_holds_the_code_and_the_files_it_runs_not_the_prose(tmp_path):
    project = make_project(tmp_path, {"page.md": PAGE, "script.md": SCRIPT_PAGE})
    (project / "snippets" / "tiny_script.py").write_text("print('one')\n", encoding="utf-8")
    page = project / "docs" / "en" / "page.md"
    key, script_key = key_of(project, "en", "page.md"), key_of(project, "en", "script.md")
    assert key == key_of(project, "zh", "page.md"), "a page and its translation share runs"
    page.write_text(PAGE.replace("Some prose.", "Other prose, and a line more.\n\nMore."), encoding="utf-8")
    assert key_of(project, "en", "page.md") == key, "prose is not in the key"
    page.write_text(PAGE.replace("x * 2", "x * 3"), encoding="utf-8")
    assert key_of(project, "en", "page.md") != key, "code is in the key"
    page.write_text(PAGE.replace(f"{FENCE}python\nprint", f"<!--pytest.mark.timeout(5)-->\n{FENCE}python\nprint"),
                    encoding="utf-8")
    assert key_of(project, "en", "page.md") != key, "markers are in the key"
    (project / "snippets" / "tiny_script.py").write_text("print('two')\n", encoding="utf-8")
    assert key_of(project, "en", "script.md") != script_key, "a script that a bash block runs is in the key"


def build(project: Path, *extra: str) -> tuple[int, str]:
    """``docs/site.py build``: both languages, which share runs."""
    status, log, _ = run([sys.executable, "docs/site.py", "build", "--out", "site", *extra], project)
    return status, log


def build_en(project: Path) -> tuple[int, str]:
    """The English site alone (``mkdocs build``, as ``mkdocs serve`` builds): half the cost."""
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build",
                          "--strict", "-f", "mkdocs.yml"], project)
    return status, log


def counts(log: str) -> list[tuple[int, int]]:
    """(pages ran, pages reused) of each language's build."""
    return [(int(a), int(b)) for a, b in re.findall(r"code: (\d+) pages? ran.*?, (\d+) reused", log)]


@pytest.mark.timeout(600)
def test_build_reuses_runs_reruns_only_changed_pages_and_fresh_reruns_all(tmp_path):
    project = make_project(tmp_path, {"page.md": PAGE, "other.md": PAGE.replace("x * 2", "x + 1")})
    status, log = build(project)
    assert status == 0, log[-3000:]
    assert sum(ran for ran, _ in counts(log)) == 2, log  # two pages, each run once for both languages
    status, log = build_en(project)
    assert status == 0 and counts(log) == [(0, 2)], log
    page = project / "docs" / "en" / "page.md"
    page.write_text(PAGE.replace("Some prose.", "New prose."), encoding="utf-8")
    status, log = build_en(project)
    assert counts(log) == [(0, 2)], "a prose edit re-runs nothing\n" + log
    page.write_text(PAGE.replace("x * 2", "x * 4"), encoding="utf-8")
    status, log = build_en(project)
    assert counts(log) == [(1, 1)], "a code edit re-runs that page only\n" + log
    assert "tensor([0, 4, 8])" in (project / "site" / "en" / "page" / "index.html").read_text(encoding="utf-8")
    status, log = build(project, "--fresh")
    assert status == 0 and sum(ran for ran, _ in counts(log)) == 3, "--fresh runs every page once\n" + log


@pytest.mark.timeout(600)
def test_tests_run_fresh_and_catch_a_stored_output_that_differs(tmp_path):
    """The build shows what the store holds; pytest runs the page again, and a different output
    (here: a tampered entry; in life: a page printing an address or a time) fails its block."""
    project = make_project(tmp_path, {"page.md": PAGE})
    status, log = build_en(project)
    store = Store(default_folder(project, env={}))  # the project's own, as its builds use
    entry = store.entries()[0]
    assert entry.is_relative_to(project), entry  # never an entry of the session's store
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["results"][1]["output"] = "tampered\n"
    entry.write_text(json.dumps(data), encoding="utf-8")
    status, log = build_en(project)
    assert counts(log) == [(0, 1)] and "tampered" in (project / "site" / "en" / "page" / "index.html").read_text()
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en"], project)
    assert status == 1 and "docs/en/page.md:10: the output differs from the stored run" in log, log[-3000:]
    assert "tampered" not in entry.read_text(encoding="utf-8"), "the fresh run replaced the stored one"
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en"], project)
    assert status == 0, log[-3000:]

"""Broken input must fail loudly, and say where: proved on a throwaway copy of the project.

Each case is a small page with one defect. The same pages go through the strict build and
through pytest, and both must fail with a message naming the page file and line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitebuild import FENCE, make_project, run
from test_parity import parity_problems

BROKEN = {
    "raises.md": f"# Raises\n\n{FENCE}python\nx = 1\ny = x / 0\n{FENCE}\n",
    "hangs.md": f"# Hangs\n\n<!--pytest.mark.timeout(3)-->\n{FENCE}python\nwhile True:\n    pass\n{FENCE}\n",
    "stops-raising.md": f"# Claim\n\n<!--pytest.mark.raises(ValueError)-->\n{FENCE}python\nint('12')\n{FENCE}\n",
    "escaped-fence.md": f"# Escaped\n\n{FENCE}py\nprint('never run')\n{FENCE}\n",
    "dead-link.md": "# Dead link\n\nSee [the missing page](no-such-page.md).\n",
    "only-english.md": f"# Only English\n\n{FENCE}python\nprint(1)\n{FENCE}\n",
}
MISSING_SNIPPET = {"missing-snippet.md": f'# Include\n\n{FENCE}python\n--8<-- "snippets/nope.py"\n{FENCE}\n'}


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("broken"), BROKEN)


@pytest.fixture(scope="module")
def build_log(broken) -> tuple[int, str, float]:
    return run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], broken)


@pytest.fixture(scope="module")
def pytest_log(broken) -> tuple[int, str, float]:
    return run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                "--continue-on-collection-errors", "docs/en"], broken)


EXPECTED = {  # what the build and pytest must each say, per defect
    "raises": ["docs/en/raises.md:5: ZeroDivisionError: division by zero"],
    "hangs": ["docs/en/hangs.md:4", "timed out after 3 s|Timeout \\(>3.0s\\)"],
    "stops-raising": ["docs/en/stops-raising.md:4: expected ValueError, but the block ran without raising"],
    "escaped-fence": ["docs/en/escaped-fence.md:3: fence info string 'py' is neither executed"],
}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("tool", ["build_log", "pytest_log"])
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_strict_build_and_pytest_fail_and_name_the_page_and_line(request, tool, case):
    status, log, seconds = request.getfixturevalue(tool)
    assert status != 0
    for pattern in EXPECTED[case]:
        assert re.search(pattern, log), f"{pattern!r} not in {tool}:\n{log[-3000:]}"
    assert seconds < 120, "a hanging block must not hold the build or the tests"


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
    assert "page.md: block 1 differs between en and zh" in problems
    zh.write_text(f"# P\n\n## 部分 {{#bufen}}\n\n{FENCE}python\nprint(1)\n{FENCE}\n", encoding="utf-8")
    assert "page.md: heading ids differ: en ['part'] vs zh ['bufen']" in parity_problems(project / "docs")



def test_failing_notebook_cell_fails_the_build(tmp_path):
    import nbformat

    project = make_project(tmp_path, {})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Notebook"),
                                         nbformat.v4.new_code_cell("x = 1\ny = x / 0")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for lang in ("en", "zh"):
        nbformat.write(nb, project / "docs" / lang / "broken.ipynb")
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status != 0 and "Error reading page 'broken.ipynb'" in log and "ZeroDivisionError" in log, log[-3000:]
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en"], project)
    assert status != 0 and "docs/en/broken.ipynb: cell 2, line 2: ZeroDivisionError" in log, log[-3000:]

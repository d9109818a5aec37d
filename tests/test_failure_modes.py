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

from sitebuild import ROOT
from test_parity import parity_problems

FENCE = "```"
BROKEN = {
    "raises.md": f"# Raises\n\n{FENCE}python\nx = 1\ny = x / 0\n{FENCE}\n",
    "hangs.md": f"# Hangs\n\n<!--pytest.mark.timeout(3)-->\n{FENCE}python\nwhile True:\n    pass\n{FENCE}\n",
    "stops-raising.md": f"# Claim\n\n<!--pytest.mark.raises(ValueError)-->\n{FENCE}python\nint('12')\n{FENCE}\n",
    "escaped-fence.md": f"# Escaped\n\n{FENCE}py\nprint('never run')\n{FENCE}\n",
    "dead-link.md": "# Dead link\n\nSee [the missing page](no-such-page.md).\n",
    "only-english.md": f"# Only English\n\n{FENCE}python\nprint(1)\n{FENCE}\n",
}
MISSING_SNIPPET = {"missing-snippet.md": f'# Include\n\n{FENCE}python\n--8<-- "snippets/nope.py"\n{FENCE}\n'}


def make_project(tmp: Path, pages: dict[str, str]) -> Path:
    """A copy of the project's machinery (configs, hooks, conftest) around the given pages."""
    for name in ("docs/hooks", "docs/overrides", "snippets"):
        shutil.copytree(ROOT / name, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("docs/conftest.py", "docs/site.py", "mkdocs.zh.yml"):
        shutil.copy(ROOT / name, tmp / name)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp / "mkdocs.yml").write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "", config), encoding="utf-8")
    (tmp / "mkdocs.zh.yml").write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "",
                                              (ROOT / "mkdocs.zh.yml").read_text("utf-8")), "utf-8")
    for lang in ("en", "zh"):
        (tmp / "docs" / lang).mkdir(parents=True)
        (tmp / "docs" / lang / "index.md").write_text("# Home\n", encoding="utf-8")
        for name, text in pages.items():
            if lang == "en" or name != "only-english.md":
                (tmp / "docs" / lang / name).write_text(text, encoding="utf-8")
    return tmp


def run(args: list[str], cwd: Path, timeout: float = 300) -> tuple[int, str, float]:
    start = time.monotonic()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


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


GPU_PAGE = {"gpu.md": f"# GPU\n\n<!--pytest.mark.gpu-->\n{FENCE}python\nimport torch\nprint(torch.ones(2, device='cuda'))\n{FENCE}\n"}


@pytest.mark.timeout(600)
def test_gpu_block_is_labelled_not_run_on_a_cpu_build(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the block really runs here")
    project = make_project(tmp_path, GPU_PAGE)
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status == 0, log[-3000:]
    html = (project / "site" / "en" / "gpu" / "index.html").read_text(encoding="utf-8")
    assert "Needs CUDA: not run in this build" in html
    assert "fn-output" not in html, "a GPU block that did not run must show no output"
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "docs/en/gpu.md"], project)
    assert status == 0 and "SKIPPED" in log and "needs CUDA" in log, log


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

"""What the build shows for a block: GPU blocks labelled, figures as images, scripts run by bash,
classes defined on a page picklable. One small project holds a page per case; its strict build
and its pytest run happen once, at the same time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sitebuild import FENCE, make_project, run, run_together

GPU_PAGE = f"# GPU\n\n<!--pytest.mark.gpu-->\n{FENCE}python\nimport torch\nprint(torch.ones(2, device='cuda'))\n{FENCE}\n"
FIGURE_PAGE = (f"# Figure\n\n{FENCE}python\nimport matplotlib.pyplot as plt\n"
               f"fig, ax = plt.subplots(figsize=(3, 2), dpi=60)\nax.plot([0, 1], [1, 0])\nplt.show()\n{FENCE}\n")
SCRIPT_PAGE = (f"# Script\n\n<!--pytest.mark.file-->\n{FENCE}python\n--8<-- \"snippets/hello_script.py\"\n{FENCE}\n\n"
               f"{FENCE}bash\npython snippets/hello_script.py 3\n{FENCE}\n\n"
               f"<!--pytest.mark.raises(SystemExit, match=\"invalid int\")-->\n{FENCE}bash\n"
               f"python snippets/hello_script.py three\n{FENCE}\n")
HELLO = ("import sys\n\ntry:\n    n = int(sys.argv[1])\nexcept ValueError:\n"
         "    sys.exit('invalid int')\nprint('hello ' * n)\n")
PICKLE_PAGE = (f"# Pickle\n\n{FENCE}python\nimport io\nimport torch\n\n\nclass Net(torch.nn.Module):\n"
               f"    pass\n\n\nbuf = io.BytesIO()\ntorch.save(Net(), buf)\nprint('saved', Net.__module__)\n{FENCE}\n")

# What a reader running these blocks sees: prints that look like page source, shown as printed
# (fieldnotes.outputs), and output below Python's sys.stdout (fieldnotes.runner.Capture).
HOSTILE = ['--8<-- "mkdocs.yml"', '--8<-- "/etc/passwd"', "!!! danger \"Injected\"", "    body",
           "<!-- comment --> <script>alert(1)</script>", "{{ config.site_name }}", "[^1]: note", "{: .evil }"]
HOSTILE_PAGE = f"# Hostile\n\n{FENCE}python\nprint({chr(10).join(HOSTILE)!r})\n{FENCE}\n"
CAPTURE_PAGE = (f"# Capture\n\n{FENCE}python\nimport ctypes\nimport os\nimport subprocess\nimport sys\n\n"
                f"print('python print')\nos.system('echo from os.system')\n"
                f"subprocess.run(['echo', 'from a subprocess'])\n"
                f"sys.stdout.buffer.write(b'bytes, not UTF-8: \\xff\\n')\n"
                f"print(sys.stdout.encoding, sys.stdout.fileno(), sys.stdout.isatty(), sys.stderr.fileno())\n"
                f"ctypes.CDLL(None).printf(b'from C printf\\n')\n"
                f"print('to stderr', file=sys.stderr)\n{FENCE}\n\n"
                f"{FENCE}bash\necho out; echo err >&2; echo out again\n{FENCE}\n")
CAPTURED = ("python print\nfrom os.system\nfrom a subprocess\nbytes, not UTF-8: \ufffd\nutf-8 1 False 2\n"
            "from C printf\nto stderr\n")


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, tuple[int, str, float], tuple[int, str, float]]:
    """The project, its strict build (English) and its pytest run (``-rs``: with skip reasons)."""
    project = make_project(tmp_path_factory.mktemp("build"), {
        "gpu.md": GPU_PAGE, "figure.md": FIGURE_PAGE, "script.md": SCRIPT_PAGE, "pickle.md": PICKLE_PAGE,
        "hostile.md": HOSTILE_PAGE, "capture.md": CAPTURE_PAGE})
    (project / "snippets" / "hello_script.py").write_text(HELLO, encoding="utf-8")
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Notebook"),
                                               nbformat.v4.new_code_cell(f"print({chr(10).join(HOSTILE)!r})")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for lang in ("en", "zh"):
        nbformat.write(notebook, project / "docs" / lang / "notebook.ipynb")
    build, tests = run_together([
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"],
        ["env", "FIELDNOTES_STORE=.cache/tests-store", sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         "-rs", "docs/en"],
    ], project)
    assert build[0] == 0, build[1][-3000:]
    assert tests[0] == 0, tests[1][-3000:]
    return project, build, tests


def html(project: Path, page: str) -> str:
    return (project / "site" / "en" / page / "index.html").read_text(encoding="utf-8")


def test_gpu_block_is_labelled_not_run_on_a_cpu_build(made):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the block really runs here")
    project, _, (_, log, _) = made
    page = html(project, "gpu")
    assert "Needs CUDA: not run in this build" in page
    assert "fn-output" not in page, "a GPU block that did not run must show no output"
    assert "SKIPPED [1] docs/en/gpu.md:4: needs CUDA" in log, log  # the page, not the plugin


def test_figure_drawn_by_a_block_is_shown_as_an_image(made):
    page = html(made[0], "figure")
    assert page.count('class="fn-figure" src="data:image/png;base64,') == 1
    assert "cannot be shown" not in page, "plt.show() must not leave a warning in the output"


def test_file_block_shows_the_script_that_a_bash_block_runs(made):
    page = html(made[0], "script")
    assert "hello hello hello" in page and "invalid int" in page and "[exit status 1]" in page
    assert "docs/en/script.md" not in made[2][1].split("short test summary")[-1], "its 3 blocks pass"


def test_file_block_must_be_run_by_a_bash_block(tmp_path):
    project = make_project(tmp_path, {"orphan.md": SCRIPT_PAGE.split(f"\n\n{FENCE}bash")[0] + "\n"})
    (project / "snippets" / "hello_script.py").write_text("print(1)\n", encoding="utf-8")
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en/orphan.md"], project)
    assert status != 0 and "docs/en/orphan.md:4: snippets/hello_script.py is shown as a file, " \
                           "but no bash block after it on this page runs it" in log, log


def test_a_class_defined_on_a_page_can_be_pickled_as_in_a_script(made):
    assert "saved __main__" in html(made[0], "pickle")


def outputs(project: Path, page: str) -> list[str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html(project, page), "html.parser")
    return [samp.get_text() for samp in soup.select(".fn-output samp")] or \
        [pre.get_text() for pre in soup.select(".jp-OutputArea pre")]


@pytest.mark.parametrize("page", ["hostile", "notebook"])
def test_output_that_looks_like_page_source_is_shown_as_printed(made, page):
    """A printed ``--8<-- "mkdocs.yml"`` used to publish mkdocs.yml under the block, and one naming
    /etc/passwd aborted the build; the strict build passes (``made``) and shows the lines."""
    shown = outputs(made[0], page)
    assert shown and shown[0].strip("\n") == "\n".join(HOSTILE), shown
    page_html = html(made[0], page)
    assert "site_name:" not in page_html and "root:" not in page_html
    assert 'class="admonition danger"' not in page_html and "<script>alert" not in page_html


def test_output_below_sys_stdout_is_captured_in_order(made):
    """Descriptors 1 and 2: subprocesses, os.system and C code, in the order they wrote, with
    sys.stdout a real stream (buffer, encoding, fileno, isatty)."""
    assert outputs(made[0], "capture") == [CAPTURED, "out\nerr\nout again\n"]

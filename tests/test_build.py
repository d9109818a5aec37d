"""What the build shows for a block: GPU blocks labelled, figures as images, scripts run by bash."""

from __future__ import annotations

import sys

import pytest

from sitebuild import FENCE, make_project, run


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



FIGURE_PAGE = {"figure.md": f"# Figure\n\n{FENCE}python\nimport matplotlib.pyplot as plt\n"
                            f"fig, ax = plt.subplots(figsize=(3, 2), dpi=60)\nax.plot([0, 1], [1, 0])\n"
                            f"plt.show()\n{FENCE}\n"}


@pytest.mark.timeout(600)
def test_figure_drawn_by_a_block_is_shown_as_an_image(tmp_path):
    project = make_project(tmp_path, FIGURE_PAGE)
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status == 0, log[-3000:]
    html = (project / "site" / "en" / "figure" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="fn-figure" src="data:image/png;base64,') == 1
    assert "cannot be shown" not in html, "plt.show() must not leave a warning in the output"


SCRIPT_PAGES = {
    "script.md": f"# Script\n\n<!--pytest.mark.file-->\n{FENCE}python\n--8<-- \"snippets/hello_script.py\"\n{FENCE}\n\n"
                 f"{FENCE}bash\npython snippets/hello_script.py 3\n{FENCE}\n\n"
                 f"<!--pytest.mark.raises(SystemExit, match=\"invalid int\")-->\n{FENCE}bash\n"
                 f"python snippets/hello_script.py three\n{FENCE}\n",
}
HELLO = ("import sys\n\ntry:\n    n = int(sys.argv[1])\nexcept ValueError:\n"
         "    sys.exit('invalid int')\nprint('hello ' * n)\n")


@pytest.mark.timeout(600)
def test_file_block_shows_the_script_that_a_bash_block_runs(tmp_path):
    project = make_project(tmp_path, SCRIPT_PAGES)
    (project / "snippets" / "hello_script.py").write_text(HELLO, encoding="utf-8")
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status == 0, log[-3000:]
    html = (project / "site" / "en" / "script" / "index.html").read_text(encoding="utf-8")
    assert "hello hello hello" in html and "invalid int" in html and "[exit status 1]" in html
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en/script.md"], project)
    assert status == 0 and "3 passed" in log, log


def test_file_block_must_be_run_by_a_bash_block(tmp_path):
    project = make_project(tmp_path, {"orphan.md": SCRIPT_PAGES["script.md"].split(f"\n\n{FENCE}bash")[0] + "\n"})
    (project / "snippets" / "hello_script.py").write_text("print(1)\n", encoding="utf-8")
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en/orphan.md"], project)
    assert status != 0 and "docs/en/orphan.md:4: snippets/hello_script.py is shown as a file, " \
                           "but no bash block after it on this page runs it" in log, log


PICKLE_PAGE = {"pickle.md": f"# Pickle\n\n{FENCE}python\nimport io\nimport torch\n\n\nclass Net(torch.nn.Module):\n"
                            f"    pass\n\n\nbuf = io.BytesIO()\ntorch.save(Net(), buf)\nprint('saved', Net.__module__)\n{FENCE}\n"}


@pytest.mark.timeout(600)
def test_a_class_defined_on_a_page_can_be_pickled_as_in_a_script(tmp_path):
    project = make_project(tmp_path, PICKLE_PAGE)
    status, log, _ = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/en/pickle.md"], project)
    assert status == 0, log
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status == 0, log[-3000:]
    assert "saved __main__" in (project / "site" / "en" / "pickle" / "index.html").read_text(encoding="utf-8")

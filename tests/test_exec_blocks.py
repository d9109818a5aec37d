"""What the build shows for a block: GPU blocks labelled and not run, figures as images."""

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

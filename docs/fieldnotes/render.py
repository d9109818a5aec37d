"""What a reader sees of a run: outputs under each block, GPU labels, failures, figures, the
environment note, and the outputs of a notebook's cells.

Pure functions from a page's source, its blocks and its :class:`~fieldnotes.results.PageRun`
to Markdown (or to an executed notebook): no execution and no MkDocs here.
"""

from __future__ import annotations

import json
from pathlib import Path

from fieldnotes.blocks import Block
from fieldnotes.languages import text
from fieldnotes.results import BlockResult, Env, PageRun


def render_page(source: str, blocks: list[Block], run: PageRun | None, lang: str) -> str:
    """The page's Markdown with each block's output under it and the environment note under
    the title. ``run`` None (execution switched off): the page as written."""
    if run is None or not blocks:
        return source
    t = text(lang)
    lines = source.splitlines()
    for block, result in reversed(list(zip(blocks, run.results))):
        lines[block.end:block.end] = render_result(block, result, t, run.env)
    if run.env:
        at = _after_title(lines)
        lines[at:at] = ["", '!!! info ""', "", "    " + env_note(run.env, lang), ""]
    return "\n".join(lines) + "\n"


def env_note(env: Env, lang: str) -> str:
    return text(lang)["env"].format(torch=env.torch, device=env.device, python=env.python)


def render_result(block: Block, result: BlockResult, t: dict, env: Env | None) -> list[str]:
    pad = block.indent
    if result.status == "needs-gpu":
        body = t["gpu_body"].format(device=env.device if env else "?")
        return ["", f'{pad}!!! warning "{t["gpu"]}"', "", f"{pad}    {body}", ""]
    if result.status == "error":
        return ["", f'{pad}!!! failure "{t["error"]}"', ""] + \
            fence(result.output + result.describe(block), t["output"], pad + "    ")
    lines = fence(result.output, t["output"], pad) if result.output else []
    for png in result.images:
        lines += ["", f'{pad}![{t["figure"]}](data:image/png;base64,{png}){{ .fn-figure }}']
    return lines


def fence(output: str, title: str, pad: str) -> list[str]:
    ticks = "`" * max(3, _longest_run(output, "`") + 1)
    body = [pad + line if line else "" for line in output.rstrip("\n").splitlines()]
    # Outputs stay out of the search index: nobody searches for a printed tensor's digits.
    return ["", f'{pad}{ticks} {{ .text .fn-output title="{title}" data-search-exclude="output" }}',
            *body, f"{pad}{ticks}"]


def _longest_run(s: str, ch: str) -> int:
    best = run = 0
    for c in s:
        run = run + 1 if c == ch else 0
        best = max(best, run)
    return best


def _after_title(lines: list[str]) -> int:
    """Index just after the page's first H1, else just after its front matter."""
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
    fenced = False
    for i in range(start, len(lines)):
        if lines[i].lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and lines[i].startswith("# "):
            return i + 1
    return start


def executed_notebook(path: Path, blocks: list[Block], run: PageRun, out: Path) -> Path:
    """A copy of the notebook at ``out/<its name>`` with each code cell's outputs from ``run``
    (stream text and PNG figures, as Jupyter stores them), for mkdocs-jupyter to render."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    by_cell = {b.lineno: r for b, r in zip(blocks, run.results)}
    count = 0
    for number, cell in enumerate(nb["cells"], start=1):
        if cell["cell_type"] != "code":
            continue
        result = by_cell.get(number)
        cell["outputs"], cell["execution_count"] = [], None
        if result is None:
            continue
        count += 1
        cell["execution_count"] = count
        if result.output:
            cell["outputs"].append({"output_type": "stream", "name": "stdout",
                                    "text": result.output.splitlines(keepends=True)})
        for png in result.images:
            cell["outputs"].append({"output_type": "display_data", "metadata": {},
                                    "data": {"image/png": png, "text/plain": ["<Figure>"]}})
    out.mkdir(parents=True, exist_ok=True)
    target = out / path.name
    target.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return target

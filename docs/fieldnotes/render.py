"""What a reader sees of a run: outputs under each block, GPU labels, failures, figures, the
environment note, and the outputs of a notebook's cells.

Pure functions from a page's source, its blocks and its :class:`~fieldnotes.results.PageRun`
to Markdown with slots for the outputs' HTML (:mod:`fieldnotes.outputs`), or to an executed
notebook: no execution and no MkDocs here.
"""

from __future__ import annotations

import json
from pathlib import Path

from fieldnotes.blocks import Block
from fieldnotes.languages import text
from fieldnotes.outputs import Slots, figure_html, output_html
from fieldnotes.results import BlockResult, Env, PageRun


def render_page(source: str, blocks: list[Block], run: PageRun | None, lang: str) -> tuple[str, Slots]:
    """The page's Markdown with a slot under each block for its output, the environment note
    under the title, and the slots' HTML (:mod:`fieldnotes.outputs`: an output is never read as
    Markdown). ``run`` None (execution switched off): the page as written."""
    slots = Slots()
    if run is None or not blocks:
        return source, slots
    t = text(lang)
    lines = source.splitlines()
    for block, result in reversed(list(zip(blocks, run.results))):
        lines[block.end:block.end] = render_result(block, result, t, run.env, slots)
    if run.env:
        at = _after_title(lines)
        lines[at:at] = ["", '!!! info ""', "", "    " + env_note(run.env, lang), ""]
    return "\n".join(lines) + "\n", slots


def env_note(env: Env, lang: str) -> str:
    return text(lang)["env"].format(torch=env.torch, device=env.device, python=env.python)


def render_result(block: Block, result: BlockResult, t: dict, env: Env | None, slots: Slots) -> list[str]:
    """The Markdown under one block: an admonition (our own words) and slots for what it printed."""
    pad = block.indent
    if result.status == "needs-gpu":
        body = t["gpu_body"].format(device=env.device if env else "?")
        return ["", f'{pad}!!! warning "{t["gpu"]}"', "", f"{pad}    {body}", ""]
    if result.status == "error":
        shown = output_html(result.output + result.describe(block), t["output"])
        return ["", f'{pad}!!! failure "{t["error"]}"', "", f"{pad}    {slots.add(shown, block.where)}", ""]
    parts = [output_html(result.output, t["output"])] if result.output else []
    parts += [figure_html(png, t["figure"]) for png in result.images]
    if not parts:
        return []
    return ["", pad + slots.add("\n".join(parts), block.where), ""]


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

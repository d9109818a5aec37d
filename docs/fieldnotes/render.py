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
from fieldnotes.matrix import version_key
from fieldnotes.outputs import Slots, figure_html, output_html
from fieldnotes.results import BlockResult, Env, PageRun


def render_page(source: str, blocks: list[Block], run: PageRun | None, lang: str,
                versions: dict[str, dict] | None = None, recorded: dict | None = None,
                links: str | None = None) -> tuple[str, Slots]:
    """The page's Markdown with a slot under each block for its output, the environment note
    under the title, and the slots' HTML (:mod:`fieldnotes.outputs`: an output is never read as
    Markdown). ``versions``: the version matrix's current entries for the page (version ->
    entry, fieldnotes.matrix.current): the note says where else the page was checked, and a
    block that behaves differently on a version says so under its output. ``recorded``: a GPU
    recording of the page's current code (fieldnotes.matrix.recording), shown, labelled, for
    the GPU blocks this build did not run. ``links``: HTML shown in the same note (the page's
    notebook and script). ``run`` None (execution switched off): the page as written."""
    slots = Slots()
    if run is None or not blocks:
        return source, slots
    t = text(lang)
    others = {v: e for v, e in (versions or {}).items()
              if run.env is None or v != run.env.torch.split("+")[0]}
    lines = source.splitlines()
    for index, (block, result) in reversed(list(enumerate(zip(blocks, run.results)))):
        shown = _recorded(result, recorded, index)
        lines[block.end:block.end] = (render_recorded(block, shown, recorded, t, slots) if shown else
                                      render_result(block, result, t, run.env, slots)) + \
            version_notes(block, index, others, t, slots)
    if run.env:
        at = _after_title(lines)
        note = env_note(run.env, lang) + matrix_note(others, versions is not None, t)
        extra = ["    " + slots.add(links, blocks[0].where), ""] if links else []
        lines[at:at] = ["", '!!! info ""', "", "    " + note, "", *extra]
    return "\n".join(lines) + "\n", slots


def matrix_note(others: dict[str, dict], checked: bool, t: dict) -> str:
    """Where else the page was checked (computed from the matrix data, never typed)."""
    if not others:
        return t["matrix_none"] if checked else ""
    differ = sum(any(e["results"][i]["status"] == "error" or "output" in e["results"][i] for e in others.values())
                 for i in range(len(next(iter(others.values()))["results"])))
    devices = sorted({e["device"] for e in others.values()})
    return t["matrix_note"].format(versions=t["and"].join(others[v]["torch"] for v in _versions(others)),
                                   devices=", ".join(devices),
                                   differ=t["matrix_differ"].format(n=differ) if differ else t["matrix_same"])


def version_notes(block: Block, index: int, others: dict[str, dict], t: dict, slots: Slots) -> list[str]:
    """Under a block: one collapsed note per distinct behaviour on other torch versions (the
    versions that share it named together), with what that version printed or raised."""
    groups: dict[tuple, list[str]] = {}
    for version, e in others.items():
        r = e["results"][index]
        if r["status"] == "error":
            groups.setdefault(("error", r.get("output", ""), r.get("error", "")), []).append(version)
        elif "output" in r:
            groups.setdefault(("output", r["output"], ""), []).append(version)
    lines, pad = [], block.indent
    for (kind, output, error), versions in groups.items():
        title = t["version_fails" if kind == "error" else "version_differs"].format(
            versions=t["and"].join(others[v]["torch"] for v in _versions(dict.fromkeys(versions))))
        body = output + (error + "\n" if error else "")
        admonition = "failure" if kind == "error" else "info"
        lines += ["", f'{pad}??? {admonition} {VERSION_NOTE} "{title}"', "",
                  f"{pad}    {slots.add(output_html(body, t['output']), block.where)}", ""]
    return lines


VERSION_NOTE = "fn-version"
"""Class of the notes under a block about other torch versions: kept out of the search index
(fieldnotes.outputs.unindexed), since their titles are the same few words on every page."""


def _versions(entries: dict) -> list[str]:
    return sorted(entries, key=version_key)


def _recorded(result: BlockResult, recorded: dict | None, index: int) -> dict | None:
    """The recorded result to show for a GPU block this build did not run, if there is one."""
    if result.status != "needs-gpu" or not recorded or index >= len(recorded["results"]):
        return None
    r = recorded["results"][index]
    return r if r["status"] == "ok" else None


def render_recorded(block: Block, shown: dict, recorded: dict, t: dict, slots: Slots) -> list[str]:
    """A GPU block's recorded output, under a label that says where and when it ran."""
    label = t["recorded"].format(device=recorded["device"], torch=recorded["torch"],
                                 cuda=recorded.get("cuda") or "?", date=recorded["date"])
    pad = block.indent
    body = slots.add(output_html(shown["output"], t["output"]), block.where) if shown["output"] else t["recorded_empty"]
    return ["", f'{pad}!!! note "{label}"', "", f"{pad}    {body}", ""]


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

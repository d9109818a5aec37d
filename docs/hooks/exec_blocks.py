"""MkDocs hook: run every page's code at build time and show what it printed under it.

Each page runs in its own subprocess (``runner.py``), all pages in parallel, started when
the files are known. A block that raises, or that stops raising the error it is marked to
show, is logged as a WARNING naming ``page:line``, so ``mkdocs build --strict`` fails; the
page also shows the error, for an author previewing it. A GPU-marked block on a machine
without CUDA is not run: it gets a visible "needs CUDA" label, never an output.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from mkdocs.utils.meta import get_data

sys.path.insert(0, str(Path(__file__).parent))
from blocks import ROOT, Block, BlockError, read_blocks  # noqa: E402

log = logging.getLogger("mkdocs.hooks.exec_blocks")
RUNNER = Path(__file__).with_name("runner.py")
STARTUP_SECONDS = 60  # python + torch import, on top of the blocks' own limits
SHARED_RUNS = "FIELDNOTES_SHARED_RUNS"

TEXT = {
    "en": {
        "output": "Output",
        "figure": "Figure drawn by the code above",
        "gpu": "Needs CUDA: not run in this build",
        "gpu_body": "This block needs a CUDA GPU. This build ran on {device}, so it shows no output.",
        "error": "This block failed when the site was built",
        "env": "Outputs on this page were produced when the site was built, by torch {torch} "
               "on {device} (Python {python}).",
    },
    "zh": {
        "output": "输出",
        "figure": "上方代码绘制的图",
        "gpu": "需要 CUDA：本次构建未运行",
        "gpu_body": "这段代码需要 CUDA GPU。本次构建运行在 {device} 上，因此不显示输出。",
        "error": "构建站点时这段代码运行失败",
        "env": "本页所有输出均在构建站点时实际运行得到：torch {torch}，设备 {device}，Python {python}。",
    },
}

_pool: ThreadPoolExecutor | None = None
_runs: dict[str, Future] = {}


def on_files(files, config):
    """Start executing every page as soon as the page list is known."""
    global _pool
    _pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    _runs.clear()
    snippets = config.mdx_configs.get("pymdownx.snippets", {})
    for file in files.documentation_pages():
        if file.src_uri.endswith(".md"):
            _runs[file.abs_src_path] = _pool.submit(_execute, Path(file.abs_src_path), snippets)
    return files


def on_page_markdown(markdown, page, config, files):
    run = _runs.get(page.file.abs_src_path)
    if run is None:
        return markdown
    blocks, env, results, problem = run.result()
    text = TEXT.get(config.theme["language"], TEXT["en"])
    if problem:
        log.warning(problem)
    source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    lines = source.splitlines()
    for block, result in reversed(list(zip(blocks, results))):
        lines[block.end:block.end] = _render(block, result, text, env)
    if blocks and env:
        lines[_after_title(lines):_after_title(lines)] = ["", f'!!! info ""', "",
                                                          "    " + text["env"].format(**env), ""]
    return get_data("\n".join(lines) + "\n")[0]


def on_page_content(html, page, config, files):
    """Notebooks run in mkdocs-jupyter's kernel (same interpreter): give them the same note."""
    if not page.file.src_uri.endswith(".ipynb") or "</h1>" not in html:
        return html
    env = next((run.result()[1] for run in _runs.values() if run.result()[1]), None)
    if env is None:
        return html
    text = TEXT.get(config.theme["language"], TEXT["en"])["env"].format(**env)
    note = f'<div class="admonition info"><p>{text}</p></div>'
    return html.replace("</h1>", "</h1>\n" + note, 1)


def on_post_build(config):
    if _pool:
        _pool.shutdown()


def _execute(path: Path, snippets: dict):
    """Run one page in a fresh interpreter; return (blocks, env, results, problem).

    Within one ``docs/site.py build``, the languages share runs: the zh page has the same
    code as the en page, so whichever comes second reuses the first one's successful run
    (SHARED_RUNS names a folder that lives for that build only).
    """
    try:
        blocks = read_blocks(path, snippets)
    except BlockError as e:
        return [], None, [], str(e)
    if not blocks:
        return blocks, None, [], None
    folder = os.environ.get(SHARED_RUNS)
    if not folder:
        return _run_page(blocks)
    code = [(b.syntax, b.code, b.gpu, b.raises, b.match, b.timeout, b.file) for b in blocks]
    key = hashlib.sha256(json.dumps(code).encode() + RUNNER.read_bytes()).hexdigest()
    shared = Path(folder) / f"{key}.json"
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other language waits for this run, then reuses it
        if shared.exists():
            env, results = json.loads(shared.read_text(encoding="utf-8"))
            return blocks, env, results, None
        blocks, env, results, problem = _run_page(blocks)
        if problem is None:
            shared.write_text(json.dumps([env, results]), encoding="utf-8")
        return blocks, env, results, problem


def _run_page(blocks: list[Block]):
    limit = STARTUP_SECONDS + sum(b.timeout for b in blocks)
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", encoding="utf-8") as out:
        try:
            done = subprocess.run([sys.executable, str(RUNNER), out.name], cwd=ROOT,
                                  input=json.dumps([b.to_json() for b in blocks]),
                                  capture_output=True, text=True, timeout=limit)
            crashed = done.returncode != 0
        except subprocess.TimeoutExpired:
            crashed = True
        rows = [json.loads(line) for line in out.read().splitlines()]
    env, results = (rows[0], rows[1:]) if rows else (None, [])
    problem = next((r["error"] for r in results if r["status"] == "error"), None)
    if problem is None and (crashed or len(results) < len(blocks)):
        stuck = blocks[len(results)]
        problem = (f"{stuck.where}: the page's interpreter died or hung here "
                   f"(killed after {limit:g} s)")
    return blocks, env, results, problem


def _render(block: Block, result: dict | None, text: dict, env: dict | None) -> list[str]:
    pad = block.indent
    if result is None:  # not reached: an earlier block failed
        return []
    if result["status"] == "needs-gpu":
        body = text["gpu_body"].format(**(env or {"device": "?"}))
        return ["", f'{pad}!!! warning "{text["gpu"]}"', "", f"{pad}    {body}", ""]
    if result["status"] == "error":
        return ["", f'{pad}!!! failure "{text["error"]}"', ""] + \
            _fence(result["output"] + result["error"], text["output"], pad + "    ")
    lines = _fence(result["output"], text["output"], pad) if result["output"] else []
    for png in result.get("images", []):
        lines += ["", f'{pad}![{text["figure"]}](data:image/png;base64,{png}){{ .fn-figure }}']
    return lines


def _fence(output: str, title: str, pad: str) -> list[str]:
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

"""The build's side of execution, as MkDocs events (``docs/hooks/execute.py`` connects them).

When MkDocs knows the files, every page's run is requested from :class:`~fieldnotes.runs.Runs`
(reused from the store when its key is there, else run, all in parallel); each page then
waits for its run and shows the outputs (:mod:`fieldnotes.render`). A failure is a WARNING
naming ``page:line``, so ``--strict`` fails. Notebooks run through the same executor: the
page gets a copy of the notebook with the outputs, which mkdocs-jupyter renders (its own
execution is off).

Environment switches (``docs/site.py build --fresh / --no-exec`` set them):
``FIELDNOTES_FRESH=1`` runs every page again instead of reading the store (what is published
was executed by that build); ``FIELDNOTES_EXECUTE=0`` runs nothing (the floor of a build's
cost, and a quick look at prose).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from concurrent.futures import Future
from pathlib import Path

from mkdocs.utils.meta import get_data

from fieldnotes.blocks import Block, BlockError, read_blocks, relpath
from fieldnotes.escapes import escaped
from fieldnotes import downloads, matrix, preview
from fieldnotes.outputs import SlotError, Slots, unindexed
from fieldnotes.render import VERSION_NOTE, env_note, executed_notebook, render_page
from fieldnotes.results import PageRun
from fieldnotes.runs import Runs
from fieldnotes.store import Store, default_folder

log = logging.getLogger("mkdocs.hooks.execute")

_runs: Runs | None = None
_pages: dict[str, tuple[list[Block], Future[PageRun] | None, str | None]] = {}
_notebooks: Path | None = None  # this build's executed copies of the notebooks
_slots: dict[str, Slots] = {}  # page -> its outputs' HTML, from on_page_markdown to on_page_content
_downloads: dict[str, downloads.Downloads] = {}  # site path without suffix -> the page's notebook and script


def _flag(name: str, default: str) -> bool:
    return os.environ.get(name, default).lower() not in ("0", "", "false", "no", "off")


def on_files(files, config):
    """Request every page's run as soon as the page list is known."""
    global _runs, _notebooks
    _pages.clear()
    _downloads.clear()
    root = Path(config.config_file_path).resolve().parent
    execute = _flag("FIELDNOTES_EXECUTE", "1")
    _runs = Runs(root, Store(default_folder(root)), fresh=_flag("FIELDNOTES_FRESH", "0"),
                 report=lambda line: log.info(f"code: {line}")) if execute else None
    _notebooks = Path(tempfile.mkdtemp(prefix="fieldnotes-notebooks-"))
    snippets = config.mdx_configs.get("pymdownx.snippets", {})
    found = []
    for file in files.documentation_pages():
        if not file.src_uri.endswith((".md", ".ipynb")) or preview.unchanged(file):
            continue  # (a dirty preview does not rebuild an unchanged page: nothing to run)
        try:
            blocks = read_blocks(Path(file.abs_src_path), snippets, root)
        except BlockError as e:
            _pages[file.abs_src_path] = ([], None, str(e))
            continue
        found.append((file, blocks))
    with_code = [(file, blocks) for file, blocks in found if blocks]
    futures = _runs.submit_all([blocks for _, blocks in with_code]) if _runs else []
    runs = {file.abs_src_path: run for (file, _), run in zip(with_code, futures)}
    for file, blocks in found:
        _pages[file.abs_src_path] = (blocks, runs.get(file.abs_src_path), None)
    return files


def _run_of(page) -> tuple[list[Block], PageRun | None]:
    blocks, future, problem = _pages.get(page.file.abs_src_path, ([], None, None))
    if problem:
        log.warning(problem)
    if future is None:
        return blocks, None
    run = future.result()
    error = run.first_error(blocks)
    if error:
        log.warning(error)
    return blocks, run


def on_page_markdown(markdown, page, config, files):
    blocks, run = _run_of(page)
    root = Path(config.config_file_path).resolve().parent
    data = matrix.load(root / matrix.DATA / Path(page.file.src_uri).with_suffix(".json"))
    # Kept for the pitfalls hook, which says on which versions each pitfall's proof passed.
    page.meta["fieldnotes_blocks"], page.meta["fieldnotes_versions"] = blocks, matrix.current(data, blocks, root)
    links = _take_away(page, blocks, config, root)
    if run is None:
        return markdown
    # What each block printed here, for the pitfalls hook (fieldnotes.wordings: the error's words on this torch).
    page.meta["fieldnotes_outputs"] = [r.output if r.status == "ok" else None for r in run.results]
    if page.file.src_uri.endswith(".ipynb"):  # mkdocs-jupyter renders a copy with the outputs
        folder = _notebooks / page.file.src_uri.replace("/", "__")
        page.file.abs_src_path = str(executed_notebook(Path(page.file.abs_src_path), blocks, run, folder))
        page.meta["fieldnotes_env"] = run.env
        page.meta["fieldnotes_links"] = links
        return markdown
    source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    rendered, slots = render_page(source, blocks, run, config.theme["language"],
                                  page.meta["fieldnotes_versions"], matrix.recording(data, blocks, root),
                                  links)
    _slots[page.file.abs_src_path] = slots
    return get_data(rendered)[0]


def on_page_content(html, page, config, files):
    """The outputs in their slots (fieldnotes.outputs: after Markdown, so that no output is read
    as page source); a notebook page gets the same note under its title as a Markdown page."""
    slots = _slots.pop(page.file.abs_src_path, None)
    if slots is not None:
        try:
            html = unindexed(slots.fill(html), VERSION_NOTE)
        except SlotError as e:
            log.warning(str(e))
    readable = _pages.get(page.file.abs_src_path, (None, None, None))[2] is None  # else: reported, once
    if page.file.src_uri.endswith(".md") and readable and not preview.unchanged(page.file):
        path = Path(page.file.abs_src_path)
        for problem in escaped(html, path.read_text(encoding="utf-8"), relpath(path),
                               page.meta.get("fieldnotes_blocks", [])):
            log.warning(problem)
    env = page.meta.get("fieldnotes_env")
    if env is None or "</h1>" not in html:
        return html
    note = (f'<div class="admonition info"><p>{env_note(env, config.theme["language"])}</p>'
            f'{page.meta.get("fieldnotes_links") or ""}</div>')
    return html.replace("</h1>", "</h1>\n" + note, 1)


def _take_away(page, blocks: list[Block], config, root: Path) -> str | None:
    """The page's notebook and script (fieldnotes.downloads), kept for on_post_build, which writes
    them beside the page; returns the HTML that links them (None: a page without code)."""
    if not blocks:
        return None
    lang = config.theme["language"]
    info = downloads.PageInfo(page.title or "", page.canonical_url or page.url, lang,
                              downloads.headings(Path(page.file.abs_src_path)))
    name = downloads.names(page.file.src_uri)
    try:
        made = downloads.make(blocks, info, root)
    except downloads.DownloadError as e:
        log.warning(str(e))
        return None
    _downloads[(Path(page.file.dest_uri).parent / name).as_posix()] = made
    return downloads.links_html(name, lang)


def on_post_build(config):
    for path, made in _downloads.items():
        target = Path(config.site_dir) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_suffix(".ipynb").write_text(made.notebook, encoding="utf-8")
        target.with_suffix(".py").write_text(made.script, encoding="utf-8")
    _downloads.clear()
    if _runs is not None:
        log.info(f"code: {_runs.summary()}")
        _runs.shutdown()
    if _notebooks is not None:
        shutil.rmtree(_notebooks, ignore_errors=True)

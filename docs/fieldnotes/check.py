"""``docs/site.py check PAGE...``: every check of one page, in both languages, in seconds.

Why: a contributor's change to one page used to need four commands from three README sections
(pytest on the page, the pitfall checker, the parity test, a strict build of everything) to
know it would pass CI. This runs, for each page asked for and its translation:

1. parity (:mod:`fieldnotes.parity`): the same blocks and markers, heading ids, nav place;
2. the pitfalls (:mod:`fieldnotes.pitfalls`): fields, proofs, the languages' neutral fields;
3. links (:mod:`fieldnotes.links`): from the page, and from every other page to it;
4. lint (:func:`fieldnotes.lint.page_problems`): a pitfall the checker finds in the page's code
   outside a block marked as showing it;
5. its blocks, once for both languages (:class:`fieldnotes.runs.Runs`, through the results
   store like a build: code that already passed is not run again unless ``fresh``).

No other page's code runs. CI still runs everything (README command 2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes import links, lint, parity, pitfalls
from fieldnotes.blocks import BlockError, read_blocks
from fieldnotes.languages import LANGS
from fieldnotes.pitfalls import gpu_runs as runs_gpu
from fieldnotes.progress import Console
from fieldnotes.runs import Runs
from fieldnotes.store import Store, default_folder


class PageArgError(Exception):
    """An argument that names no page of the site."""


def topic(root: Path, arg: str | Path) -> str:
    """``docs/en/nn/dropout.md``, ``docs/zh/nn/dropout.md``, ``nn/dropout.md`` or ``nn/dropout``
    -> ``nn/dropout.md`` (the page's path inside each language's folder)."""
    path = Path(arg)
    if path.is_absolute():
        absolute = path
    else:  # relative to the project root (where the README's commands run), else to here
        absolute = (root / path).resolve() if (root / path).exists() else (Path.cwd() / path).resolve()
    docs = (root / "docs").resolve()
    if absolute.is_relative_to(docs) and len(absolute.relative_to(docs).parts) > 1 \
            and absolute.relative_to(docs).parts[0] in LANGS:
        rel = Path(*absolute.relative_to(docs).parts[1:])
    else:
        rel = Path(str(arg).strip("/"))
    candidates = [rel] if rel.suffix in parity.PAGE_SUFFIXES else [rel.with_suffix(".md"), rel.with_suffix(".ipynb")]
    for c in candidates:
        if any((docs / lang / c).is_file() for lang in LANGS):
            return c.as_posix()
    raise PageArgError(f"{arg}: no such page in docs/{'/ or docs/'.join(LANGS)}/ "
                       "(give docs/en/<section>/<topic>.md, docs/zh/..., or <section>/<topic>)")


@dataclass
class Report:
    page: str
    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def check_page(root: Path, page: str, runs: Runs | None) -> Report:
    report = Report(page)
    docs = root / "docs"
    paths = {lang: docs / lang / page for lang in LANGS}

    def step(name: str, found: list[str], ok: str) -> None:
        report.problems += found
        report.lines.append(f"  {'FAIL' if found else 'ok  '} {name}: " + (f"{len(found)} problem(s)" if found else ok))
        report.lines += ["       " + p.replace("\n", "\n       ") for p in found]

    step("parity", parity.page_problems(docs, page, parity.configs_of(root)),
         "same blocks, markers, heading ids and nav place in " + ", ".join(LANGS))
    found, count = [], 0
    for lang in LANGS:
        if paths[lang].suffix != ".md" or not paths[lang].is_file():
            continue
        try:
            count = len(pitfalls.load(paths[lang], docs / lang))
            found += pitfalls.check(paths[lang], docs / lang)
        except pitfalls.PitfallError as e:
            found.append(str(e))
    step("pitfalls", list(dict.fromkeys(found)),
         f"{count} per language, each proved by code of this page" if count else "none (README: Add a pitfall)")
    found = []
    for lang in LANGS:
        if paths[lang].suffix == ".md" and paths[lang].is_file():
            found += links.problems(paths[lang], docs / lang, root)
    step("links", found, "every link from the page lands, and every link to it names an id it has")
    found = []
    for lang in LANGS:
        if paths[lang].is_file():
            try:
                found += lint.page_problems(paths[lang], root)
            except BlockError:
                pass  # the blocks step names it
    step("lint", found, "fieldnotes lint finds no pitfall in the code but where the page shows one on purpose")
    if runs is None:
        report.lines.append("  --   blocks: not run (--no-exec)")
        return report
    blocks = {}
    for lang in LANGS:
        try:
            blocks[lang] = read_blocks(paths[lang], root=root) if paths[lang].is_file() else []
        except BlockError as e:
            step("blocks", [str(e)], "")
            return report
    if not blocks.get(LANGS[0]):
        report.lines.append("  ok   blocks: none to run")
        return report
    start, ran_before = time.monotonic(), len(runs.ran)
    futures = {lang: runs.submit(b) for lang, b in blocks.items() if b}
    found = []
    for lang, future in futures.items():
        run = future.result()
        if (error := run.first_error(blocks[lang])) is not None:
            found.append(error)
            break  # the languages share one run: the other fails the same way
    n = len(blocks[LANGS[0]])
    how = (f"ran in {time.monotonic() - start:.1f} s" if len(runs.ran) > ran_before
           else "reused the stored run of this code; --fresh runs it again")
    gpu = sum(b.gpu for b in blocks[LANGS[0]]) if not runs_gpu() else 0
    step("blocks", found, (f"{n - gpu} passed in both languages" + (f", {gpu} GPU-marked not run (no CUDA here)" if gpu else "")
                           + f", {how}"))
    return report


def main(root: Path, args: list[str], fresh: bool = False, execute: bool = True,
         console: Console | None = None) -> int:
    console = console or Console()
    try:
        pages = list(dict.fromkeys(topic(root, a) for a in args))
    except PageArgError as e:
        console.line(f"error: {e}")
        return 2
    runs = Runs(root, Store(default_folder(root)), fresh=fresh,
                report=lambda line: console.status(f"code: {line}")) if execute else None
    status = 0
    try:
        for page in pages:
            report = check_page(root, page, runs)
            console.line(f"check {page} ({', '.join(f'docs/{lang}/{page}' for lang in LANGS)})")
            for line in report.lines:
                console.line(line)
            status = status or (1 if report.problems else 0)
    finally:
        if runs:
            runs.shutdown()
        console.close()
    console.line("all checks passed" if not status else "some checks failed (the lines above name file:line)")
    return status

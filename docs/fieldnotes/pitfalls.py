"""The pitfall catalogue, generated from each page's ``pitfalls:`` front matter.

Why: readers come to look a pitfall up by its symptom. A page's "Pitfalls" section, its
Material tags and its rows in the site-wide pitfall index all come from one list of data in
the page's front matter, so they cannot drift apart, and the build can check each entry:

- the fields are complete and typed (see ``FIELDS``); ids are unique across the site;
- ``proof`` names headings of the same page whose sections hold executed code (GPU-marked
  code when ``gpu: true``), so every pitfall is shown by code that ran in this build;
- ``fixed`` names the headings whose sections apply the fix: every code span of the ``fix`` text
  is in an executed block there that asserts (a Python block with an ``assert``; a shell block,
  whose exit status is checked), so the code a reader copies from a card has run and been
  checked. ``fixed: advice`` says the fix is advice, not code; its code spans may then only be
  names (``torch.take_along_dim``), never code (``x.gather(1, t)``);
- where a pitfall holds is computed, never typed: the torch this build runs (its proof code
  passed, or the build fails), and each version of the matrix (fieldnotes.matrix) on which
  every block of its proof sections passed; a version on which one fails is named as one where
  the pitfall's code does not hold;
- the language-neutral fields are identical in every translation of the page.

Any problem is a WARNING naming the page (and line), so ``mkdocs build --strict`` fails.
``python -m fieldnotes.pitfalls docs/en/PAGE.md`` checks one page in all languages and prints
what the hook renders, without building the site. ``docs/hooks/pitfalls.py`` connects the
MkDocs events below.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
import sys
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.utils.meta import get_data

from fieldnotes import matrix, preview, wordings
from fieldnotes.blocks import BlockError, find_root, read_blocks, relpath
from fieldnotes.languages import LANGS, TEXT
from fieldnotes.lint import RULES
from fieldnotes.store import environment

log = logging.getLogger("mkdocs.hooks.pitfalls")

SEVERITIES = ("security", "high", "medium", "low")  # security: a risk, not a wrong result
NEUTRAL = ("id", "apis", "severity", "gpu", "proof", "fixed")  # equal in every language
TEXTS = ("symptom", "cause", "fix")  # written in the page's language
FIELDS = {"id": str, "apis": list, "severity": str, "gpu": bool, "proof": list, "fixed": (list, str),
          "symptom": str, "cause": str, "fix": str}
ADVICE = "advice"
"""``fixed: advice``: the fix is advice (what to check, what to choose), no code to run."""
NAME = re.compile(r"[\w.]+")
"""A code span an advice fix may hold: a name (an API, an argument, a value), not code."""
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
"""A Markdown code span: a run of backticks, its text, the same run (``x`` or ``` ``a `b` c`` ```)."""
ASSERT = re.compile(r"^\s*assert\b", re.M)
INDEX_MARKER = "<!-- pitfall-index -->"
ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
HEADING = re.compile(r"^(#{1,6})\s.*?\{\s*#([\w-]+)[^}]*\}\s*$")
TORCH = version("torch").split("+")[0]

class PitfallError(Exception):
    """Bad pitfall data; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class Pitfall:
    id: str
    apis: list
    severity: str
    gpu: bool
    proof: list
    fixed: list | str  # heading ids, or ADVICE
    symptom: str
    cause: str
    fix: str
    page: str  # src_uri of the page, e.g. "nn/dropout.md"

    def neutral(self) -> tuple:
        return tuple(repr(getattr(self, f)) for f in NEUTRAL)


def load(path: Path, docs_dir: Path) -> list[Pitfall]:
    """The page's pitfalls, with every field checked; raises PitfallError."""
    text = path.read_text(encoding="utf-8")
    meta = get_data(text)[1]
    entries = meta.get("pitfalls", [])
    where = relpath(path)
    if not isinstance(entries, list):
        raise PitfallError(f"{where}:1: 'pitfalls' must be a list of entries")
    pitfalls = []
    for n, entry in enumerate(entries, 1):
        at = f"{where}:{_line_of(text, entry.get('id') if isinstance(entry, dict) else None)}: pitfall {n}"
        if not isinstance(entry, dict):
            raise PitfallError(f"{at}: each entry is a mapping of {', '.join(FIELDS)}")
        entry = dict(entry)
        if isinstance(entry.get("proof"), str):
            entry["proof"] = [entry["proof"]]
        if isinstance(entry.get("fixed"), str) and entry["fixed"] not in ("", ADVICE):
            entry["fixed"] = [entry["fixed"]]
        if "verified" in entry:
            raise PitfallError(f"{at}: remove 'verified': where a pitfall holds is computed from the runs "
                               "(the build's torch and the version matrix, docs/matrix/)")
        missing = [f for f in FIELDS if f not in entry]
        unknown = [f for f in entry if f not in FIELDS]
        if missing or unknown:
            raise PitfallError(f"{at}: missing fields {missing}, unknown fields {unknown}")
        for name, kind in FIELDS.items():
            if name == "fixed":
                continue
            if not isinstance(entry[name], kind) or (kind in (str, list) and not entry[name]):
                raise PitfallError(f"{at}: '{name}' must be a non-empty {kind.__name__}")
        if not (entry["fixed"] == ADVICE or isinstance(entry["fixed"], list) and entry["fixed"]
                and all(isinstance(a, str) and a for a in entry["fixed"])):
            raise PitfallError(f"{at}: 'fixed' must be the heading ids of the sections whose code applies the fix, "
                               f"or '{ADVICE}' for a fix that is advice, not code")
        if not ID.fullmatch(entry["id"]):
            raise PitfallError(f"{at}: id {entry['id']!r} must be lowercase-words-with-dashes")
        if entry["severity"] not in SEVERITIES:
            raise PitfallError(f"{at}: severity must be one of {SEVERITIES}")
        if "\n" in entry["symptom"].strip():
            raise PitfallError(f"{at} ({entry['id']}): the symptom is one line")
        pitfalls.append(Pitfall(**entry, page=path.relative_to(docs_dir).as_posix()))
    return pitfalls


def _line_of(text: str, pid) -> int:
    """The line of ``- id: <pid>`` in the front matter (1 if unknown)."""
    m = re.search(rf"^\s*-?\s*id:\s*['\"]?{re.escape(str(pid))}['\"]?\s*$", text, re.M) if pid else None
    return text.count("\n", 0, m.start()) + 1 if m else 1


def check_proofs(path: Path, pitfalls: list[Pitfall]) -> list[str]:
    """Each proof anchor is a heading of the page whose section runs code in this build."""
    problems = []
    if not pitfalls:
        return problems
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    headings = [(i + 1, len(m[1]), m[2]) for i, line in enumerate(lines) if (m := HEADING.match(line))]
    try:
        blocks = read_blocks(path)
    except BlockError:
        return []  # the page's blocks cannot be read: the execute hook reports it, once
    where = relpath(path)
    if any(hid == "pitfalls" for _, _, hid in headings):
        problems.append(f"{where}: remove the hand-written {{#pitfalls}} section: the build "
                        "writes it from the page's 'pitfalls:' front matter")
    ids = {hid for _, _, hid in headings}
    for p in pitfalls:
        at = f"{where}:{_line_of(text, p.id)}: pitfall {p.id}"
        if p.id in ids:
            problems.append(f"{at}: its id is also a heading id of the page")
        shown = []  # the executed blocks of all its proof sections
        for anchor in p.proof:
            span = _section(headings, anchor, len(lines))
            if span is None:
                problems.append(_unknown_anchor(where, text, p.id, "proof", anchor, headings))
                continue
            ran = [b for b in blocks if span[0] < b.lineno < span[1] and b.file is None]
            if not ran:
                problems.append(f"{at}: the section '#{anchor}' has no executed code block")
            elif p.gpu and not any(b.gpu for b in ran):
                problems.append(f"{at}: gpu is true but the section '#{anchor}' has no GPU-marked block")
            shown += ran
        if not p.gpu and shown and all(b.gpu for b in shown):
            problems.append(f"{at}: gpu is false but no proof section runs code without a GPU")
        problems += check_fix(where, text, p, headings, blocks, len(lines))
    return problems


def _unknown_anchor(where: str, text: str, pid: str, field: str, anchor: str, headings: list) -> str:
    known = [hid for _, _, hid in headings]
    close = difflib.get_close_matches(anchor, known, n=3, cutoff=0.3)
    rest = [k for k in known if k not in close]
    return (f"{where}:{_field_line(text, pid, field)}: pitfall {pid}: {field} '#{anchor}' "
            f"is not a heading id of this page; closest: {', '.join(close) or '(none)'}"
            + (f"; the others: {', '.join(rest)}" if rest else ""))


def code_spans(markdown: str) -> list[str]:
    """The text of each code span, as Markdown shows it (one space of padding at both ends dropped)."""
    return [_unpad(m[2]) for m in CODE_SPAN.finditer(markdown)]


def as_shown(markdown: str) -> str:
    """The text with each code span's backticks dropped, as a heading shows it."""
    return CODE_SPAN.sub(lambda m: _unpad(m[2]), markdown)


def _unpad(text: str) -> str:
    return text[1:-1] if len(text) > 2 and text.startswith(" ") and text.endswith(" ") else text


def asserts(block) -> bool:
    """Whether the block checks what it shows: Python code with an ``assert`` (a block marked to
    raise shows the mistake, not the fix); a shell command, whose exit status the test checks."""
    if block.raises:
        return False
    return block.syntax in ("bash", "sh", "shell", "console") or bool(ASSERT.search(block.code))


def _squeezed(code: str) -> str:
    return "".join(code.split())


def check_fix(where: str, text: str, p: Pitfall, headings: list, blocks: list, end: int) -> list[str]:
    """The fix on the card is code that ran: each code span of ``fix`` is in a block of the
    ``fixed`` sections that asserts (whitespace aside); an advice fix quotes names only."""
    at = f"{where}:{_field_line(text, p.id, 'fixed')}: pitfall {p.id}"
    spans = code_spans(p.fix)
    if p.fixed == ADVICE:
        code = [s for s in spans if not NAME.fullmatch(s)]
        return [f"{at}: the fix quotes code ({', '.join(_code(s) for s in code)}) but 'fixed' is '{ADVICE}': "
                "name the section whose block applies exactly this code and asserts the symptom is gone"] if code else []
    problems, ran = [], []
    for anchor in p.fixed:
        span = _section(headings, anchor, end)
        if span is None:
            problems.append(_unknown_anchor(where, text, p.id, "fixed", anchor, headings))
            continue
        here = [b for b in blocks if span[0] < b.lineno < span[1]]
        if not here:
            problems.append(f"{at}: the section '#{anchor}' has no executed code block")
        ran += here
    if not ran:
        return problems
    checked = [b for b in ran if asserts(b)]
    sections = ", ".join(f"'#{a}'" for a in p.fixed)
    if not checked:
        return problems + [f"{at}: no block of {sections} asserts that the symptom is gone "
                           "(an assert in a Python block; a shell block's exit status)"]
    if not spans:
        return problems + [f"{at}: the fix quotes no code: quote the code of {sections} it applies, "
                           f"or say 'fixed: {ADVICE}'"]
    for s in spans:
        if not any(_squeezed(s) in _squeezed(b.code) for b in checked):
            problems.append(f"{at}: the fix's code {_code(s)} is in no block of {sections} that asserts: "
                            "quote the code as the block runs it, or apply it there")
    return problems


def proof_blocks(source: str, blocks: list, pitfall: Pitfall) -> list[int]:
    """Indices (in the page's executed ``blocks``) of the blocks in the pitfall's proof sections."""
    lines = source.splitlines()
    headings = [(i + 1, len(m[1]), m[2]) for i, line in enumerate(lines) if (m := HEADING.match(line))]
    found = set()
    for anchor in pitfall.proof:
        span = _section(headings, anchor, len(lines))
        if span:
            found |= {i for i, b in enumerate(blocks) if span[0] < b.lineno < span[1] and b.file is None}
    return sorted(found)


def holds(pitfall: Pitfall, blocks: list[int], versions: dict[str, dict]) -> tuple[list[str], list[str]]:
    """(versions where every proof block passed, versions where one failed): this build's torch
    first (its proof passed, or the build fails), then the matrix's current entries."""
    held, failed = [TORCH], []
    for version, entry in versions.items():
        if version == TORCH:
            continue
        # GPU blocks do not run on a CPU machine, on any version: as for this build, what ran decides.
        statuses = [entry["results"][i]["status"] for i in blocks if i < len(entry["results"])
                    and entry["results"][i]["status"] != "needs-gpu"]
        if statuses and all(s == "ok" for s in statuses):
            held.append(version)
        elif "error" in statuses:
            failed.append(version)
    return sorted(held, key=matrix.version_key), sorted(failed, key=matrix.version_key)


def where_shown(path: Path, docs_dir: Path, root: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Outside a page's build (the lint page's table): each pitfall of the page at ``path`` ->
    :func:`holds`, from the page's blocks and its version-matrix data, as the page's own Pitfalls
    section says it (:func:`where_held`)."""
    pitfalls = load(path, docs_dir)
    if not pitfalls:
        return {}
    blocks = read_blocks(path, root=root)
    data = matrix.load(root / matrix.DATA / path.relative_to(docs_dir).with_suffix(".json"))
    versions = matrix.current(data, blocks, root)
    return where_held(pitfalls, path.read_text(encoding="utf-8"), blocks, versions)


def where_held(pitfalls: list[Pitfall], source: str, blocks: list, versions: dict[str, dict]) -> dict:
    """Each pitfall's id -> :func:`holds` on its proof blocks of the page ``source``."""
    return {p.id: holds(p, proof_blocks(source, blocks, p), versions) for p in pitfalls}


def _section(headings: list[tuple[int, int, str]], anchor: str, end: int) -> tuple[int, int] | None:
    for n, (line, level, hid) in enumerate(headings):
        if hid == anchor:
            stop = next((ln for ln, lv, _ in headings[n + 1:] if lv <= level), end + 1)
            return line, stop
    return None


def check_twins(path: Path, docs_dir: Path, langs: list[str]) -> list[str]:
    """The language-neutral fields (NEUTRAL) are the same, in the same order, in each translation.
    Each difference names the field and the line of it in both files."""
    mine = load(path, docs_dir)
    text = path.read_text(encoding="utf-8")
    problems = []
    for lang in langs:
        twin = docs_dir.parent / lang / path.relative_to(docs_dir)
        if lang == docs_dir.name or not twin.is_file():
            continue
        try:
            theirs = load(twin, docs_dir.parent / lang)
        except PitfallError:
            continue  # reported by that language's build
        problems += twin_differences(path, text, mine, twin, twin.read_text(encoding="utf-8"), theirs)
    return problems


def twin_differences(path: Path, text: str, mine: list[Pitfall], twin: Path, twin_text: str,
                     theirs: list[Pitfall]) -> list[str]:
    """Field by field: ``path:line: pitfall ID: 'apis' is [...] here, [...] in twin:line``."""
    root = find_root(path.parent, default=path.parents[2])  # docs/<lang>/page.md without a project
    here, there = relpath(path, root), relpath(twin, root)
    problems = []
    ids, twin_ids = [p.id for p in mine], [p.id for p in theirs]
    if ids != twin_ids:
        only_here = [i for i in ids if i not in twin_ids]
        only_there = [i for i in twin_ids if i not in ids]
        if only_here or only_there:
            problems += [f"{here}:{_line_of(text, i)}: pitfall {i} is not in {there}" for i in only_here]
            problems += [f"{there}:{_line_of(twin_text, i)}: pitfall {i} is not in {here}" for i in only_there]
        else:
            problems.append(f"{here}:1: pitfalls are in another order than in {there}: {ids} vs {twin_ids}")
    by_id = {p.id: p for p in theirs}
    for p in mine:
        q = by_id.get(p.id)
        if q is None:
            continue
        for name in NEUTRAL[1:]:
            a, b = getattr(p, name), getattr(q, name)
            if a != b:
                problems.append(f"{here}:{_field_line(text, p.id, name)}: pitfall {p.id}: '{name}' is {a!r} here, "
                                f"{b!r} in {there}:{_field_line(twin_text, p.id, name)} (language-neutral fields "
                                "are the same in every language; docs/site.py sync PAGE copies them)")
    return problems


def _field_line(text: str, pid: str, name: str) -> int:
    """The line of ``name:`` inside the entry of pitfall ``pid`` (the entry's line if not found)."""
    start = _line_of(text, pid)
    lines = text.splitlines()
    for n in range(start, len(lines)):
        line = lines[n]
        if re.match(r"^\s*-\s+id:", line) or line.strip() == "---":
            break
        if re.match(rf"^\s+{re.escape(name)}:", line):
            return n + 1
    return start


def gpu_runs() -> bool:
    """Whether this build runs GPU-marked code (it has CUDA): only then is a ``gpu: true``
    pitfall shown by code that ran here."""
    return not environment()["device"].startswith("CPU")


def errors_worded(pitfalls: list[Pitfall], source: str, blocks: list, outputs: list[str | None],
                  versions: dict[str, dict]) -> dict[str, list[list[wordings.Wording]]]:
    """Each pitfall's id -> for each raising block of its proof whose error torch versions word
    differently, the wordings (fieldnotes.wordings), from this build's ``outputs`` and the matrix."""
    found = {}
    for p in pitfalls:
        per_block = [wordings.for_block(i, blocks[i], outputs[i] if i < len(outputs) else None, TORCH, versions,
                                        matrix.PINNED) for i in proof_blocks(source, blocks, p)]
        found[p.id] = [w for n, w in enumerate(per_block) if w and w not in per_block[:n]]  # each error once
    return found


def _code(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds."""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render_section(pitfalls: list[Pitfall], lang: str, gpu: bool = False,
                   where: dict[str, tuple[list[str], list[str]]] | None = None,
                   worded: dict[str, list[list[wordings.Wording]]] | None = None) -> str:
    """The page's Pitfalls section: one h3 per pitfall (its own search result and anchor).
    ``gpu``: whether this build ran GPU-marked code; if not, a ``gpu: true`` pitfall says so
    instead of where it holds. ``where``: pitfall id -> (versions where its proof passed,
    versions where it failed), from :func:`holds`; absent: this build's torch only.
    ``worded``: pitfall id -> its errors as each version words them (:func:`errors_worded`),
    listed under the fix where versions word one differently."""
    t = TEXT[lang]
    out = [f"## {t['section']} {{#pitfalls}}", ""]
    for p in pitfalls:
        proofs = " · ".join(_links(t["proof"], p.proof) + (_links(t["fixed"], p.fixed) if p.fixed != ADVICE else []))
        held, failed = (where or {}).get(p.id, ([TORCH], []))
        facts = [f"{t['apis']}: " + ", ".join(f"`{a}`" for a in p.apis),
                 f'<span class="fn-severity fn-severity-{p.severity}">{t["severity"][p.severity]}</span>',
                 f"{t['verified']} {t['and'].join(held)}" if gpu or not p.gpu else t["not_run"]]
        if failed and (gpu or not p.gpu):
            facts.append(t["not_held"].format(versions=t["and"].join(failed)))
        if p.gpu and gpu:
            facts.append(t["needs_gpu"])
        out += [f"### {p.symptom.strip()} {{#{p.id}}}", "",
                f'<p class="fn-pitfall-facts">{" · ".join(_inline(f) for f in facts)}</p>', "",
                f"**{t['cause']}**{t['colon']}{p.cause.strip()}", "",
                f"**{t['fix']}**{t['colon']}{p.fix.strip()}", "",
                *_wordings_lines((worded or {}).get(p.id, []), t),
                *([t["lint"].format(link=_lint_link(p.page)), ""] if p.id in RULES else []),
                f"→ {proofs}", ""]
    return "\n".join(out)


def _links(label: str, anchors: list[str]) -> list[str]:
    """One link per section; numbered when there are several, so no two links read alike."""
    if len(anchors) == 1:
        return [f"[{label}](#{anchors[0]})"]
    return [f"[{label} {n}](#{a})" for n, a in enumerate(anchors, 1)]


def _wordings_lines(per_block: list[list[wordings.Wording]], t: dict) -> list[str]:
    """Markdown: each wording of each error (one error after the other), with the versions that print it."""
    if not per_block:
        return []
    return [f"**{t['wordings']}**{t['colon']}", "",
            *(f"- torch {t['and'].join(w.versions)}{t['colon']}{_code(w.message)}" for found in per_block for w in found),
            ""]


def _lint_link(page: str) -> str:
    """The lint page, relative to a pitfall's page (MkDocs turns the .md link into a URL)."""
    import posixpath

    from fieldnotes.lint import PAGE

    return posixpath.relpath(PAGE, posixpath.dirname(page) or ".") + "#rules"


def _inline(markdown: str) -> str:
    """Backticks inside the raw-HTML facts line become <code>, since Markdown is not parsed there."""
    return re.sub(r"`([^`]+)`", lambda m: f"<code>{_escape(m[1])}</code>", markdown)


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_index(groups: list[tuple[str, str, list[tuple[str, str, list[Pitfall]]]]], lang: str,
                 gpu: bool = False, device: str = "CPU", root: str = "../") -> str:
    """The index: one table per topic (nav section), rows linking to each pitfall's anchor;
    at the end, how many of them were shown by code that ran on this build (``gpu``: whether
    it ran GPU-marked code, on ``device``)."""
    t = TEXT[lang]
    total = sum(len(ps) for _, _, pages in groups for _, _, ps in pages)
    out = []
    for topic_id, topic, pages in groups:
        out += [f"## {topic} {{#{topic_id}}}", "",
                f"| {t['pitfall']} | {t['apis']} | {t['sev_col']} | {t['page']} |",
                "|---|---|---|---|"]
        for uri, title, pitfalls in pages:
            for p in pitfalls:
                label = f" <small>({t['needs_gpu'] if gpu else t['not_run']})</small>" if p.gpu else ""
                out.append(f"| [{_cell(p.symptom)}]({uri}#{p.id}){label} | "
                           f"{', '.join(f'`{_cell(a)}`' for a in p.apis)} | "
                           f"{t['sev_short'][p.severity]} | [{_cell(title)}]({uri}) |")
        out.append("")
    not_run = 0 if gpu else sum(p.gpu for _, _, pages in groups for _, _, ps in pages for p in ps)
    out.append(t["total"].format(total=total, ran=total - not_run, torch=environment()["torch"], device=device)
               + (t["total_gpu"].format(gpu=not_run) if not_run else ""))
    out += ["", f'<p class="fn-catalogue">{t["catalogue"].format(root=root)}</p>']  # root: up to the language root
    return "\n".join(out) + "\n"


def _cell(s: str) -> str:
    return s.strip().replace("|", "\\|")


# --- MkDocs events -----------------------------------------------------------------------

_pitfalls: dict[str, list[Pitfall]] = {}  # src_uri -> the page's pitfalls
_facts: dict[str, dict] = {}  # pitfall id -> where it holds and its page's URL, from on_page_markdown
CATALOGUE, SCHEMA = "pitfalls.json", "pitfalls.schema.json"
"""Written at each language's root: the catalogue as data, and its JSON Schema (docs/pitfalls.schema.json)."""


def on_files(files, config):
    _pitfalls.clear()
    _facts.clear()
    docs = Path(config.docs_dir)
    langs = [alt["lang"] for alt in config.extra.get("alternate", [])]
    seen: dict[str, str] = {}
    for file in files.documentation_pages():
        if not file.src_uri.endswith(".md"):
            continue
        path = Path(file.abs_src_path)
        try:
            pitfalls = preview.cached(path, "pitfalls", lambda: load(path, docs))
        except PitfallError as e:
            log.warning(str(e))
            continue
        for p in pitfalls:
            if p.id in seen:
                log.warning(f"{relpath(path)}: pitfall id {p.id!r} is already used in {seen[p.id]}")
            seen[p.id] = relpath(path)
        if preview.unchanged(file):  # a dirty preview: checked when it was built, and not rebuilt now
            _pitfalls[file.src_uri] = pitfalls
            continue
        for problem in check_proofs(path, pitfalls) + check_twins(path, docs, langs):
            log.warning(problem)
        _pitfalls[file.src_uri] = pitfalls
    return files


_groups: list = []


def on_nav(nav, config, files):
    """Group the pages' pitfalls by nav section, in nav order, for the index page."""
    _groups.clear()
    for section in nav.items:
        pages = [(pg.file.src_uri, pg.title) for pg in _pages(section)]
        found = [(uri, title, _pitfalls[uri]) for uri, title in pages if _pitfalls.get(uri)]
        if found:
            topic_id = found[0][0].split("/")[0]
            _groups.append((topic_id, section.title, found))
    return nav


def _pages(item):
    if getattr(item, "children", None):
        for child in item.children:
            yield from _pages(child)
    elif getattr(item, "file", None) is not None:
        yield item


@event_priority(-10)  # after execute (0), which re-reads the source; before the tags plugin (-50)
def on_page_markdown(markdown, page, config, files):
    lang = config.theme["language"] if config.theme["language"] in LANGS else "en"
    if INDEX_MARKER in markdown:
        root = "../" * page.url.count("/")
        return markdown.replace(INDEX_MARKER, render_index(_groups, lang, gpu_runs(), environment()["device"], root))
    pitfalls = _pitfalls.get(page.file.src_uri)
    if not pitfalls:
        return markdown
    page.meta["tags"] = sorted({a for p in pitfalls for a in p.apis} | set(page.meta.get("tags", [])))
    # The matrix's current entries for the page, read by the execute hook (fieldnotes.build).
    versions = page.meta.get("fieldnotes_versions", {})
    blocks = page.meta.get("fieldnotes_blocks", [])
    source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    where = where_held(pitfalls, source, blocks, versions)
    worded = errors_worded(pitfalls, source, blocks, page.meta.get("fieldnotes_outputs", []), versions)
    for p in pitfalls:
        _facts[p.id] = {"path": f"{page.url}#{p.id}", "page_title": page.title, "holds_on": where[p.id][0],
                        "fails_on": where[p.id][1],
                        "errors": [[{"torch": list(w.versions), "message": w.message} for w in found]
                                   for found in worded[p.id]]}
    return markdown.rstrip() + "\n\n" + render_section(pitfalls, lang, gpu_runs(), where, worded)


def catalogue(groups: list, facts: dict[str, dict], lang: str, site_url: str) -> dict:
    """The pitfall catalogue as data (pitfalls.json): every pitfall in the index's order, with the
    page and anchor that explain it, and where its proof code held (torch versions, device)."""
    env, gpu = environment(), gpu_runs()
    items = []
    for topic_id, topic, pages in groups:
        for uri, title, pitfalls in pages:
            for p in pitfalls:
                f = facts.get(p.id, {})
                path = f.get("path", _url_of(uri) + "#" + p.id)
                ran = gpu or not p.gpu
                items.append({
                    "id": p.id, "url": site_url.rstrip("/") + "/" + path, "path": path, "topic": topic_id,
                    "page_title": f.get("page_title", title), "apis": list(p.apis), "severity": p.severity,
                    "gpu": p.gpu, "symptom": p.symptom.strip(), "cause": " ".join(p.cause.split()),
                    "fix": " ".join(p.fix.split()),
                    "fixed_in": [] if p.fixed == ADVICE else [f"{path.partition('#')[0]}#{a}" for a in p.fixed],
                    "ran_in_this_build": ran,
                    "holds_on": {"torch": f.get("holds_on", [TORCH]) if ran else [], "device": env["device"]},
                    "fails_on": {"torch": f.get("fails_on", []) if ran else []},
                    "errors": f.get("errors", []) if ran else []})
    return {"$schema": SCHEMA, "language": lang, "site": site_url, "torch": env["torch"],
            "device": env["device"], "count": len(items), "pitfalls": items}


def _url_of(uri: str) -> str:
    stem = uri.removesuffix(".md")
    return "" if stem == "index" else stem.removesuffix("/index") + "/"


def on_post_build(config):
    """pitfalls.json and its schema at the language's root. A dirty preview rebuilds some pages
    only, so it leaves the files of its first (complete) build as they are."""
    if preview.dirty_serve() and (Path(config.site_dir) / CATALOGUE).is_file():
        return
    lang = config.theme["language"] if config.theme["language"] in LANGS else "en"
    data = catalogue(_groups, _facts, lang, config.site_url or "")
    site = Path(config.site_dir)
    site.mkdir(parents=True, exist_ok=True)
    (site / CATALOGUE).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    schema = Path(config.docs_dir).parent / SCHEMA
    if schema.is_file():
        (site / SCHEMA).write_text(schema.read_text(encoding="utf-8"), encoding="utf-8")


def check(path: Path, docs: Path) -> list[str]:
    """Every problem of one page's pitfalls (fields, proofs, the translations' neutral fields),
    and a page whose blocks cannot be read; raises PitfallError for unreadable entries."""
    pitfalls = load(path, docs)
    try:
        read_blocks(path)
    except BlockError as e:
        return [str(e)]
    return check_proofs(path, pitfalls) + check_twins(path, docs, list(LANGS))


def main(argv: list[str]) -> int:
    """Check the pitfalls of the given pages (each in every language) and print the sections."""
    status = 0
    root = find_root()
    for arg in argv:
        rel = Path(arg).resolve().relative_to(root / "docs")
        for lang in LANGS:
            docs = root / "docs" / lang
            path = docs / Path(*rel.parts[1:])
            try:
                pitfalls = load(path, docs)
                problems = check(path, docs)
            except PitfallError as e:
                pitfalls, problems = [], [str(e)]
            for problem in problems:
                print("ERROR", problem)
                status = 1
            print(f"\n===== {relpath(path)}: {len(pitfalls)} pitfalls\n")
            print(render_section(pitfalls, lang, gpu_runs()))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

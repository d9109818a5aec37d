"""``docs/site.py sync PAGE``: the other language's page brought in line with the edited one.

Why: everything language-neutral on a page (each executed block with its markers, every
heading id, the pitfalls' ``id``/``apis``/``severity``/``gpu``/``proof``/``fixed``, the nav line) is
typed twice and must stay equal (:mod:`fieldnotes.parity`). Copying it by hand is where the
languages drift. This copies it from the page you edited into its translation and leaves the
translation's prose alone: sections are matched by heading id, blocks within a section by
their code (:mod:`difflib`), pitfalls by id. What it adds in the edited page's language (a new
section, a new pitfall, a nav title) is listed, with its line, as needing translation; what
it removes is listed too (git keeps it).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes import nav, parity
from fieldnotes.blocks import Block, BlockError, read_blocks
from fieldnotes.check import PageArgError, topic
from fieldnotes.languages import CONFIGS, LANGS
from fieldnotes.pitfalls import NEUTRAL

MARKER = re.compile(r"^\s*<!--\s*pytest[.-].*-->\s*$")
ENTRY = re.compile(r"^(\s*)-\s+id:\s*['\"]?([\w-]+)['\"]?\s*$")


class SyncError(Exception):
    pass


@dataclass
class Span:
    """Lines [start, end) of a file (0-based)."""
    start: int
    end: int


def _front_matter(lines: list[str]) -> Span:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return Span(0, i + 1)
    return Span(0, 0)


def _block_spans(lines: list[str], blocks: list[Block]) -> list[Span]:
    """Each executed block's lines: its marker comments, the fence, the code, the closing fence."""
    spans = []
    for b in blocks:
        start = b.lineno - 1
        while start > 0 and MARKER.match(lines[start - 1]):
            start -= 1
        spans.append(Span(start, b.end))
    return spans


@dataclass
class Section:
    id: str | None  # None: the text before the first heading
    span: Span
    blocks: list[int]  # indices into the page's blocks


def _sections(path: Path, lines: list[str], blocks: list[Block], body_start: int) -> list[Section]:
    heads = parity.headings(path)
    bounds = [(None, body_start)] + [(h.id, h.line - 1) for h in heads]
    out = []
    for n, (hid, start) in enumerate(bounds):
        end = bounds[n + 1][1] if n + 1 < len(bounds) else len(lines)
        inside = [i for i, b in enumerate(blocks) if start <= b.lineno - 1 < end]
        out.append(Section(hid, Span(start, end), inside))
    return out


def _entry_chunks(lines: list[str], fm: Span) -> tuple[int, int, dict[str, Span], list[str]]:
    """The ``pitfalls:`` list in the front matter: (start, end) of the list, each entry's span by
    id, the ids in order. (-1, -1, ...) if the page has no pitfalls key."""
    key = next((i for i in range(fm.start + 1, max(fm.end - 1, 0)) if re.match(r"^pitfalls:", lines[i])), None)
    if key is None:
        return -1, -1, {}, []
    end = next((i for i in range(key + 1, fm.end - 1) if re.match(r"^\S", lines[i]) and not lines[i].startswith("#")),
               fm.end - 1)
    starts = [(i, m[2]) for i in range(key + 1, end) if (m := ENTRY.match(lines[i]))]
    chunks = {}
    for n, (i, pid) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else end
        while stop > i + 1 and (not lines[stop - 1].strip() or lines[stop - 1].lstrip().startswith("#")):
            stop -= 1  # trailing comments and blank lines belong to no entry
        chunks[pid] = Span(i, stop)
    return key, end, chunks, [pid for _, pid in starts]


def _field_span(lines: list[str], chunk: Span, name: str) -> Span | None:
    """Lines of one field inside an entry (a value may continue on more-indented lines)."""
    first = lines[chunk.start]
    indent = len(first) - len(first.lstrip()) + 2  # "- id:" -> fields at the dash + 2
    for i in range(chunk.start, chunk.end):
        text = lines[i][indent:] if i > chunk.start else lines[i][indent:]
        if re.match(rf"^{re.escape(name)}:", text):
            j = i + 1
            while j < chunk.end and (len(lines[j]) - len(lines[j].lstrip()) > indent or not lines[j].strip()):
                j += 1
            return Span(i, j)
    return None


def sync(root: Path, edited: Path) -> tuple[list[str], list[str]]:
    """Rewrite the translation(s) of ``edited``; return (changes, what needs translating)."""
    page = topic(root, edited)
    if not page.endswith(".md"):
        raise SyncError(f"{page}: sync works on Markdown pages (a notebook's cells are edited in Jupyter)")
    edited = Path(edited) if Path(edited).is_absolute() or not (root / edited).exists() else root / edited
    docs = (root / "docs").resolve()
    rel = edited.resolve().relative_to(docs) if edited.resolve().is_relative_to(docs) else None
    source_lang = rel.parts[0] if rel and rel.parts[0] in LANGS else None
    if source_lang is None:
        raise SyncError(f"{edited}: name the page you edited with its language, e.g. docs/en/{page}")
    src = root / "docs" / source_lang / page
    changes, todo = [], []
    for lang in LANGS:
        if lang == source_lang:
            continue
        dst = root / "docs" / lang / page
        if not dst.is_file():
            raise SyncError(f"docs/{lang}/{page} does not exist: docs/site.py new makes both languages")
        c, t = _sync_file(root, src, dst, page)
        changes += c
        todo += t
        c, t = _sync_nav(root, source_lang, lang, page)
        changes += c
        todo += t
    return changes, todo


def _sync_file(root: Path, src: Path, dst: Path, page: str) -> tuple[list[str], list[str]]:
    s_lines = src.read_text(encoding="utf-8").splitlines()
    d_lines = dst.read_text(encoding="utf-8").splitlines()
    try:
        s_blocks, d_blocks = read_blocks(src, root=root), read_blocks(dst, root=root)
    except BlockError as e:
        raise SyncError(f"{e} (fix it first: sync needs both pages' blocks)") from None
    where = dst.relative_to(root).as_posix()
    s_fm, d_fm = _front_matter(s_lines), _front_matter(d_lines)
    changes, todo = [], []
    out: list[str] = []  # the new destination, line by line
    flags: list[tuple[int, str]] = []  # (index in out, what needs translating there)

    # --- front matter: the pitfalls' language-neutral fields, by id, in the edited page's order
    out += _sync_front_matter(s_lines, s_fm, d_lines, d_fm, changes, flags)

    # --- body: sections by heading id, blocks within a section by code
    s_secs = _sections(src, s_lines, s_blocks, s_fm.end)
    d_secs = _sections(dst, d_lines, d_blocks, d_fm.end)
    s_ids, d_ids = [s.id for s in s_secs], [d.id for d in d_secs]
    pairs: dict[int, int] = {}
    renamed: dict[str, str] = {}
    s_sig = [{parity.signature(s_blocks[k]) for k in sec.blocks} for sec in s_secs]
    d_sig = [{parity.signature(d_blocks[k]) for k in sec.blocks} for sec in d_secs]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, s_ids, d_ids, autojunk=False).get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            pairs.update({i: j for i, j in zip(range(i1, i2), range(j1, j2))})
        elif op == "replace":  # ids renamed and sections added or dropped: pair those sharing code
            j = j1
            for i in range(i1, i2):
                match = next((k for k in range(j, j2) if s_sig[i] & d_sig[k]), None)
                if match is not None:
                    pairs[i], j = match, match + 1
            for i in range(i1, i2):  # then, in order, those between the same pairs with no code either
                if i in pairs or s_sig[i]:
                    continue
                lo = max([pairs[k] + 1 for k in range(i1, i) if k in pairs], default=j1)
                hi = min([pairs[k] for k in range(i + 1, i2) if k in pairs], default=j2)
                match = next((k for k in range(lo, hi) if k not in pairs.values() and not d_sig[k]), None)
                if match is not None:
                    pairs[i] = match
    s_spans, d_spans = _block_spans(s_lines, s_blocks), _block_spans(d_lines, d_blocks)
    for i, sec in enumerate(s_secs):
        if i not in pairs:
            if out and out[-1].strip():
                out.append("")
            flags.append((len(out), f"section #{sec.id} copied from {src.relative_to(root).as_posix()}: translate it"))
            changes.append(f"added section #{sec.id}")
            out += s_lines[sec.span.start:sec.span.end]
            continue
        dsec = d_secs[pairs[i]]
        lines = list(d_lines[dsec.span.start:dsec.span.end])
        if dsec.id != sec.id:  # the same place, another id: the id was renamed
            lines[0] = _with_id(lines[0], sec.id)
            renamed[dsec.id] = sec.id
            changes.append(f"heading id #{dsec.id} -> #{sec.id} ({where}:{dsec.span.start + 1})")
        body = _sync_blocks(lines, dsec.span.start, [d_spans[k] for k in dsec.blocks],
                            [d_blocks[k] for k in dsec.blocks], s_lines, [s_spans[k] for k in sec.blocks],
                            [s_blocks[k] for k in sec.blocks], changes, flags, len(out))
        out += body
    for j, dsec in enumerate(d_secs):
        if j not in pairs.values():
            changes.append(f"removed section #{dsec.id} (was {where}:{dsec.span.start + 1}; "
                           f"it is not in {src.relative_to(root).as_posix()})")
    new = "\n".join(out) + "\n"
    for old, id_ in renamed.items():  # the page's own links to a renamed id follow it
        new, n = re.subn(rf"\]\(#{re.escape(old)}\)", f"](#{id_})", new)
        new = re.sub(rf"((?:proof|fixed):.*?)\b{re.escape(old)}\b", lambda m: m[1] + id_, new)
        if n:
            changes.append(f"{n} link(s) to #{old} on the page now name #{id_}")
        for other in sorted((root / "docs" / dst.parts[-len(Path(page).parts) - 1]).rglob("*.md")):
            if other != dst and f"{Path(page).name}#{old}" in other.read_text(encoding="utf-8"):
                todo.append(f"{other.relative_to(root).as_posix()}: links to {Path(page).name}#{old}: "
                            f"make it #{id_}")
    if new != dst.read_text(encoding="utf-8"):
        dst.write_text(new, encoding="utf-8")
    todo += [f"{where}:{k + 1}: {what}" for k, what in flags]
    return [f"{where}: {c}" for c in changes], todo


def _with_id(heading: str, new_id: str) -> str:
    return re.sub(r"\{([^}]*)#[\w-]+([^}]*)\}\s*$", lambda m: f"{{{m[1]}#{new_id}{m[2]}}}", heading)


def _sync_blocks(lines, offset, d_spans, d_blocks, s_lines, s_spans, s_blocks, changes, flags, out_at) -> list[str]:
    """A section's lines with its blocks made equal to the source section's, prose kept."""
    sig = parity.signature
    ops = difflib.SequenceMatcher(None, [sig(b) for b in s_blocks], [sig(b) for b in d_blocks],
                                  autojunk=False).get_opcodes()
    rel = [Span(s.start - offset, s.end - offset) for s in d_spans]
    out = list(lines[:rel[0].start]) if rel else list(lines)
    if not rel:  # no block here yet: new blocks go at the end of the section
        for j in range(len(s_blocks)):
            _append_block(out, s_lines[s_spans[j].start:s_spans[j].end], flags, out_at)
            changes.append(f"added block {_first(s_blocks[j])}")
        return out

    def after(k: int) -> list[str]:  # the prose after destination block k, up to the next block
        stop = rel[k + 1].start if k + 1 < len(rel) else len(lines)
        return lines[rel[k].end:stop]

    for op, i1, i2, j1, j2 in ops:
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            i, j = i1 + k, j1 + k
            has_s, has_d = i < i2, j < j2
            if op == "equal" or (has_s and has_d):
                if op != "equal":
                    changes.append(f"block {_first(d_blocks[j])} -> {_first(s_blocks[i])}")
                out += lines[rel[j].start:rel[j].end] if op == "equal" else s_lines[s_spans[i].start:s_spans[i].end]
                out += after(j)
            elif has_s:
                _append_block(out, s_lines[s_spans[i].start:s_spans[i].end], flags, out_at)
                changes.append(f"added block {_first(s_blocks[i])}")
            else:
                changes.append(f"removed block {_first(d_blocks[j])} (the prose around it may describe it)")
                out += after(j)
    return out


def _append_block(out: list[str], block: list[str], flags, out_at: int) -> None:
    """Add a block after what ``out`` holds, with a blank line on each side."""
    while out and not out[-1].strip():
        out.pop()
    out.append("")
    flags.append((out_at + len(out), "new block: its prose needs writing in this language"))
    out += block
    out.append("")


def _first(block: Block) -> str:
    line = next((ln for ln in block.code.splitlines() if ln.strip()), "")
    return f"{line[:40]!r}"


def _sync_front_matter(s_lines, s_fm, d_lines, d_fm, changes, flags) -> list[str]:
    if s_fm.end == 0:
        return list(d_lines[:d_fm.end])
    s_key, s_end, s_chunks, s_order = _entry_chunks(s_lines, s_fm)
    d_key, d_end, d_chunks, d_order = _entry_chunks(d_lines, d_fm)
    if s_key < 0:
        return list(d_lines[:d_fm.end])
    if d_fm.end == 0 or d_key < 0:  # the translation has no pitfalls key yet: take the source's list
        head = list(d_lines[:d_fm.end - 1]) if d_fm.end else ["---"]
        flags.append((len(head), "pitfalls copied: translate symptom, cause and fix"))
        changes.append("added the pitfalls list")
        return head + s_lines[s_key:s_end] + ["---"]
    if s_order == d_order and all(_neutral(s_lines, s_chunks[p]) == _neutral(d_lines, d_chunks[p]) for p in s_order):
        return list(d_lines[:d_fm.end])
    out = list(d_lines[:d_key]) + [s_lines[s_key]]  # "pitfalls: []" becomes "pitfalls:" with entries
    first = min((c.start for c in d_chunks.values()), default=d_end)
    out += d_lines[d_key + 1:first]  # comments between the key and the first entry
    for pid in s_order:
        if pid not in d_chunks:
            flags.append((len(out), f"pitfall {pid} copied: translate symptom, cause and fix"))
            changes.append(f"added pitfall {pid}")
            out += s_lines[s_chunks[pid].start:s_chunks[pid].end]
            continue
        chunk = list(d_lines[d_chunks[pid].start:d_chunks[pid].end])
        base, edits, added = d_chunks[pid].start, [], []
        for name in NEUTRAL[1:]:
            s_span = _field_span(s_lines, s_chunks[pid], name)
            d_span = _field_span(d_lines, d_chunks[pid], name)
            if s_span is None:
                continue
            new = s_lines[s_span.start:s_span.end]
            value = " ".join(x.strip() for x in new)[len(name) + 1:].strip()
            if d_span is None:
                added += new
                changes.append(f"pitfall {pid}: added {name}: {value}")
            elif d_lines[d_span.start:d_span.end] != new:
                edits.append((d_span.start - base, d_span.end - base, new))
                changes.append(f"pitfall {pid}: {name} set to {value}")
        for start, end, new in sorted(edits, reverse=True):  # bottom up: earlier spans keep their place
            chunk[start:end] = new
        chunk[1:1] = added
        out += chunk
    if d_order != s_order and set(d_order) & set(s_order):
        changes.append("pitfalls put in the edited page's order")
    for pid in d_order:
        if pid not in s_chunks:
            changes.append(f"removed pitfall {pid} (it is not on the edited page)")
    last = max((c.end for c in d_chunks.values()), default=d_end)
    out += d_lines[last:d_fm.end]
    return out


def _neutral(lines: list[str], chunk: Span) -> list[list[str] | None]:
    spans = [_field_span(lines, chunk, name) for name in NEUTRAL[1:]]
    return [lines[s.start:s.end] if s else None for s in spans]


def _sync_nav(root: Path, source_lang: str, lang: str, page: str) -> tuple[list[str], list[str]]:
    s_cfg, d_cfg = root / CONFIGS[source_lang], root / CONFIGS[lang]
    s_entries = nav.entries(s_cfg)
    paths = [e.path for e in s_entries]
    if page not in paths or page in [e.path for e in nav.entries(d_cfg)]:
        return [], []
    before = paths[paths.index(page) - 1] if paths.index(page) > 0 else None
    title = s_entries[paths.index(page)].title
    line = nav.insert(d_cfg, page, title, after=before)
    return ([f"{CONFIGS[lang]}:{line}: added the nav line for {page}"],
            [f"{CONFIGS[lang]}:{line}: nav title '{title}' copied: translate it"])


def main(root: Path, edited: Path) -> int:
    try:
        changes, todo = sync(root, edited)
    except (SyncError, PageArgError, nav.NavError) as e:
        print(f"error: {e}")
        return 2
    page = topic(root, edited)
    for line in changes:
        print(f"synced  {line}")
    if not changes:
        print(f"nothing to sync: the code, heading ids, pitfall fields and nav of {page} already match")
    for line in todo:
        print(f"translate {line}")
    problems = parity.page_problems(root / "docs", page, parity.configs_of(root))
    for p in problems:
        print(f"still differs: {p}")
    print(f"next: .venv/bin/python docs/site.py check {page.removesuffix('.md')}")
    return 1 if problems else 0

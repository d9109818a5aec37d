"""Translations that lag: when a page's prose changed in one language after the other
language's last change, the build lists the page and the lagging page says so under its title,
with a link to the other language.

Why here: each language is its own MkDocs site, and the parity checks compare code, markers and
heading ids, never what the prose says. A sentence corrected in English leaves the Chinese page
behind without a sign; git knows, so the build asks git (and only git: no data file to keep up).

- **Prose only** (:func:`prose`): front matter keeps only its prose fields (``title``,
  ``description``, a pitfall's ``symptom``, ``cause``, ``fix``; ``id``, ``apis``, ``severity``,
  ``gpu``, ``proof``, ``fixed``, ``search`` are the same in both languages), fenced code blocks and
  ``<!--pytest.mark...-->`` markers are dropped, and so is every whitespace character (joining a
  Chinese paragraph onto one line removes a line break between two characters). A code-only or
  whitespace-only edit changes nothing.
- **History** (:func:`check`): one ``git log`` of the commits after the baseline that touch the
  language folders, along first parents (a merge is one commit), oldest first, with the blob ids
  of each changed page; one ``git cat-file --batch`` for every blob. Read once per HEAD (cached
  here, so ``mkdocs serve`` rebuilds only ask ``git status``). Uncommitted edits count as a last
  commit, dated today, without a sha: a contributor previewing sees them; a clean checkout has none.
- **Lag rule** (:func:`lag`), commit by commit for a page pair: both languages' prose changed:
  in step; one language's prose changed while it lagged: it caught up, in step; otherwise it is
  ahead and the other lags from that commit. A commit whose message has the line
  ``Translation: not needed`` neither makes a page lag nor answers a lag (a wording fix in one
  language).
- **Baseline**: ``extra: translation_baseline`` in ``mkdocs.yml``, a commit at which both
  languages were reviewed in parity; only commits after it count. Without the setting, the whole
  history counts.
- **Degrade, never lie**: without git, outside a repository, in a shallow clone, or when the
  baseline is not in the history, one INFO line says why it was not checked and no page has a
  note. Never a warning: the build is ``--strict``.
"""

from __future__ import annotations

import datetime
import functools
import html as html_lib
import itertools
import json
import logging
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from fieldnotes.languages import LANGS, text

log = logging.getLogger("mkdocs.hooks.staleness")

BASELINE_KEY = "translation_baseline"
"""The ``extra:`` setting of ``mkdocs.yml`` naming the commit from which history counts."""
TOKEN = re.compile(r"(?im)^[ \t]*translation:[ \t]*not needed[ \t]*$")
"""A line of a commit message: its one-sided prose changes need no translation."""
PROSE_FIELDS = frozenset({"title", "description", "symptom", "cause", "fix"})
"""Front matter keys (at any depth: a pitfall's fields too) whose string values are prose."""
PAGE_SUFFIXES = (".md", ".ipynb")
FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(.*?\n)?(?:\.{3}|-{3})[ \t]*(?:\n|\Z)", re.S)  # as MkDocs reads it
MARKER = re.compile(r"<!--\s*pytest\.mark.*?-->", re.S)
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$", re.M)
GIT_TIMEOUT = 60


# --- prose ----------------------------------------------------------------------------------

def prose(source: str, suffix: str = ".md") -> str:
    """What of a page counts as its prose, as compared: a notebook's Markdown cells, the front
    matter's prose fields, the text outside fenced code blocks and markers, without whitespace."""
    front, body = _parts(source, suffix)
    return _front_prose(front) + body


def same_prose(a: tuple[str, str] | None, b: tuple[str, str] | None) -> bool:
    """Whether two pages' :func:`_parts` hold the same prose (an absent page: None). The front
    matter is read as YAML only when the bodies agree and the front matters' text does not."""
    if a is None or b is None:
        return a is b
    return a[1] == b[1] and (a[0] == b[0] or _front_prose(a[0]) == _front_prose(b[0]))


def _parts(source: str, suffix: str) -> tuple[str, str]:
    """(the front matter's text, the prose of the rest without whitespace)."""
    if suffix == ".ipynb":
        source = _notebook_markdown(source)
    found = FRONT_MATTER.match(source)
    front = (found.group(1) or "") if found else ""
    body = source[found.end():] if found else source
    return front, "".join(_without_code(MARKER.sub("", body)).split())


@functools.lru_cache(maxsize=1024)
def _front_prose(front: str) -> str:
    """The prose fields' values of a front matter, without whitespace."""
    if not front:
        return ""
    try:
        fields = list(_prose_fields(yaml.compose(front, Loader=_Loader)))
    except yaml.YAMLError:
        fields = [front]  # unreadable: all of it counts (the build fails on it anyway)
    return "".join("".join(fields).split())


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _notebook_markdown(source: str) -> str:
    try:
        cells = json.loads(source).get("cells", [])
    except (ValueError, AttributeError):
        return source
    parts = [cell.get("source", "") for cell in cells if isinstance(cell, dict) and cell.get("cell_type") == "markdown"]
    return "\n\n".join("".join(p) if isinstance(p, list) else str(p) for p in parts)


def _prose_fields(node: yaml.Node | None):
    """The string values of :data:`PROSE_FIELDS` keys at any depth of a composed YAML document
    (nodes, not constructed objects: three times cheaper, and nothing else is needed)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(value, yaml.ScalarNode) and isinstance(key, yaml.ScalarNode) and key.value in PROSE_FIELDS:
                yield value.value
            else:
                yield from _prose_fields(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _prose_fields(item)


def _without_code(markdown: str) -> str:
    """``markdown`` without its fenced blocks, fence lines included (at any indent: blocks in
    admonitions and tabs). An unclosed block runs to the end, as in Markdown."""
    kept, start, fence = [], 0, None
    for found in FENCE.finditer(markdown):
        mark = found.group(1)
        if fence is None:
            kept.append(markdown[start:found.start()])
            fence = mark
        elif mark[0] == fence[0] and len(mark) >= len(fence) and not found.group(2).strip():
            fence, start = None, found.end()
    if fence is None:
        kept.append(markdown[start:])
    return "\n".join(kept)


# --- the lag rule -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Commit:
    """One commit touching the language folders, as the lag rule sees it."""

    sha: str | None  # None: the working tree's uncommitted edits
    date: str  # YYYY-MM-DD: the commit date (today for the working tree)
    changed: frozenset[tuple[str, str]]  # (language, page) whose prose changed; page: tensors/scatter.md
    not_needed: bool = False  # its message has the line "Translation: not needed"


@dataclass(frozen=True)
class Lag:
    """A page whose other language's prose changed after its own last change."""

    page: str  # the path inside each language's folder: tensors/scatter.md
    lang: str  # the language whose page lags
    other: str  # the language whose prose changed
    since: Commit  # the first change of ``other`` this page has not answered
    later: int = 0  # further unanswered changes of ``other`` after ``since``


def lag(page: str, pair: tuple[str, str], commits: list[Commit]) -> Lag | None:
    """Whether one language's page of ``page`` lags the other's, after ``commits`` (oldest first)."""
    ahead: tuple[str, Commit, int] | None = None  # (language, its first unanswered change, later ones)
    for commit in commits:
        changed = [lang for lang in pair if (lang, page) in commit.changed]
        if not changed or (commit.not_needed and len(changed) == 1):
            continue
        if len(changed) == 2:
            ahead = None  # translated together
        elif ahead is None:
            ahead = (changed[0], commit, 0)
        elif ahead[0] == changed[0]:
            ahead = (ahead[0], ahead[1], ahead[2] + 1)
        else:
            ahead = None  # the lagging language caught up
    if ahead is None:
        return None
    other, since, later = ahead
    return Lag(page, pair[1] if other == pair[0] else pair[0], other, since, later)


# --- history from git -------------------------------------------------------------------------

@dataclass(frozen=True)
class Report:
    """What :func:`check` found: the lagging pages, or why it could not tell."""

    lags: tuple[Lag, ...] = ()
    unchecked: str | None = None  # why staleness was not checked (then ``lags`` is empty)


class _Unchecked(Exception):
    """Why the history cannot be read; the message is the INFO line's reason."""


def check(docs: Path, baseline: str | None = None, langs: tuple[str, ...] = LANGS) -> Report:
    """The lagging pages of the language folders ``docs/<lang>/``: only pages present in every
    language now; history after ``baseline`` (a commit), plus the working tree's edits."""
    try:
        top, head = _repository(docs)
        prefix = docs.resolve().relative_to(top).as_posix()
        folders = tuple(f"{lang}/" if prefix == "." else f"{prefix}/{lang}/" for lang in langs)
        commits = list(_history(str(top), head, baseline or None, folders))
        edits = _working_tree(str(top), folders)
    except _Unchecked as e:
        return Report(unchecked=str(e))
    if edits is not None:
        commits.append(edits)
    pages = {page for commit in commits for _, page in commit.changed}
    pages = sorted(p for p in pages if all((docs / lang / p).is_file() for lang in langs))
    lags = (lag(page, pair, commits) for pair in itertools.combinations(langs, 2) for page in pages)
    return Report(tuple(found for found in lags if found))


def _git(cwd: str | Path, *args: str, ok: tuple[int, ...] = (0,), data: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(["git", "--no-optional-locks", "-C", str(cwd), *args], input=data,
                              capture_output=True, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise _Unchecked(f"git {args[0]} took more than {GIT_TIMEOUT} s") from None
    except OSError as e:
        raise _Unchecked(f"git could not be run ({e})") from None
    if done.returncode not in ok:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit status {done.returncode}"]
        raise _Unchecked(f"git {args[0]} failed: {message[0].removeprefix('fatal: ')}")
    return done


def _repository(docs: Path) -> tuple[Path, str]:
    """The repository's top folder and HEAD, or why the history cannot be read."""
    if shutil.which("git") is None:
        raise _Unchecked("git is not installed")
    if not docs.is_dir():
        raise _Unchecked(f"{docs} is not a folder")
    done = _git(docs, "rev-parse", "--show-toplevel", "--is-shallow-repository", "HEAD", ok=(0, 128))
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if done.returncode:
        error = done.stderr.decode("utf-8", "replace")
        if "not a git repository" in error:
            raise _Unchecked("not a git repository")
        raise _Unchecked("the repository has no commit yet" if len(lines) >= 2 else
                         f"git rev-parse failed: {error.strip().splitlines()[0] if error.strip() else done.returncode}")
    top, shallow, head = lines[:3]
    if shallow == "true":
        raise _Unchecked("shallow clone: run git fetch --unshallow")
    try:
        return Path(top).resolve(), head
    except OSError as e:
        raise _Unchecked(str(e)) from None


@functools.lru_cache(maxsize=8)
def _history(top: str, head: str, baseline: str | None, folders: tuple[str, ...]) -> tuple[Commit, ...]:
    """The commits after ``baseline`` up to ``head`` that change a page's prose, oldest first."""
    if baseline:
        if _git(top, "merge-base", "--is-ancestor", baseline, head, ok=(0, 1, 128)).returncode:
            raise _Unchecked(f"the baseline commit {baseline[:12]} ({BASELINE_KEY} in mkdocs.yml) "
                             "is not in this history")
    log_out = _git(top, "-c", "core.quotePath=false", "log", "--first-parent", "--diff-merges=first-parent",
                   "--reverse", "--no-renames", "--raw", "--no-abbrev", "--format=%x1e%H%x1f%cs%x1f%B%x1f",
                   f"{baseline}..{head}" if baseline else head, "--", *folders).stdout.decode("utf-8", "replace")
    records = []
    for record in log_out.split("\x1e")[1:]:
        sha, date, message, raw = record.split("\x1f", 3)
        files = []
        for line in raw.splitlines():
            if line.startswith(":") and "\t" in line:
                meta, path = line.split("\t", 1)
                old, new = meta.split()[2:4]
                page = _page(path, folders)
                if page:
                    files.append((page, path, _blob(old), _blob(new)))
        records.append((sha, date, bool(TOKEN.search(message)), files))
    contents = _blobs(top, sorted({b for *_, files in records for *_, old, new in files for b in (old, new) if b}))
    parts = {sha: _parts(content, Path(path).suffix)
             for *_, files in records for _, path, *blobs in files for sha in blobs
             if sha and (content := contents.get(sha)) is not None}
    commits = []
    for sha, date, not_needed, files in records:
        changed = frozenset(page for page, _, old, new in files if not same_prose(parts.get(old), parts.get(new)))
        if changed:
            commits.append(Commit(sha, date, changed, not_needed))
    return tuple(commits)


def _working_tree(top: str, folders: tuple[str, ...]) -> Commit | None:
    """The uncommitted edits (staged or not, new files included) that change a page's prose."""
    status = _git(top, "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--no-renames",
                  "--untracked-files=all", "--", *folders).stdout.decode("utf-8", "replace")
    paths = {entry[3:]: page for entry in status.split("\0") if len(entry) > 3 and (page := _page(entry[3:], folders))}
    if not paths:
        return None
    committed = _blobs(top, [f"HEAD:{path}" for path in paths])
    changed = set()
    for path, page in paths.items():
        file = Path(top) / path
        now = file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None
        before = committed.get(f"HEAD:{path}")
        if not same_prose(*(_parts(t, file.suffix) if t is not None else None for t in (before, now))):
            changed.add(page)
    return Commit(None, datetime.date.today().isoformat(), frozenset(changed)) if changed else None


def _page(path: str, folders: tuple[str, ...]) -> tuple[str, str] | None:
    """(language, page) of a repository path inside a language folder, None for another file."""
    for folder in folders:
        if path.startswith(folder) and path.endswith(PAGE_SUFFIXES):
            return folder.rstrip("/").rsplit("/", 1)[-1], path[len(folder):]
    return None


def _blob(sha: str) -> str | None:
    return None if set(sha) == {"0"} else sha


def _blobs(top: str, names: list[str]) -> dict[str, str | None]:
    """Every object's text in one ``git cat-file --batch``; None for a missing one."""
    if not names:
        return {}
    out = _git(top, "cat-file", "--batch", data="".join(f"{name}\n" for name in names).encode()).stdout
    found: dict[str, str | None] = {}
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header, at = out[at:end].split(b" "), end + 1
        if len(header) != 3 or not header[2].isdigit():  # "<name> missing", "<name> ambiguous"
            found[name] = None
            continue
        size = int(header[2])
        found[name], at = out[at:at + size].decode("utf-8", "replace"), at + size + 1
    return found


# --- what a reader and the build log see ------------------------------------------------------

def describe(lag: Lag, docs: str = "docs") -> str:
    """The build log's line for a lagging page."""
    change = f"in {lag.since.sha[:7]}" if lag.since.sha else "in uncommitted edits"
    later = f" and in {lag.later} later commit{'s' if lag.later > 1 else ''}" if lag.later else ""
    return (f"translation: {docs}/{lag.lang}/{lag.page} may lag {docs}/{lag.other}/{lag.page}: "
            f"prose changed {change} on {lag.since.date}{later}")


def note_html(lag: Lag, url: str) -> str:
    """The note under the lagging page's title, in its language, linking to the other language's
    page (``url``: the page's URL in its site, e.g. ``tensors/scatter/``; the sites are siblings,
    ``site/en/`` and ``site/zh/``)."""
    t = text(lag.lang)
    other = t["stale_lang"][lag.other]
    change = t["stale_commit"].format(sha=lag.since.sha[:7]) if lag.since.sha else t["stale_uncommitted"]
    href = "../" * (url.count("/") + 1) + f"{lag.other}/{url}"
    words = html_lib.escape(t["stale_note"].format(other=other, date=lag.since.date, change=change))
    link = html_lib.escape(t["stale_link"].format(other=other))
    return (f'<div class="admonition warning fn-stale" data-search-exclude><p>{words} '
            f'<a href="{html_lib.escape(href)}" hreflang="{lag.other}">{link}</a></p></div>')


def with_note(html: str, note: str) -> str:
    """``html`` with ``note`` right under its title (at the top when it has no ``<h1>``)."""
    return html.replace("</h1>", "</h1>\n" + note, 1) if "</h1>" in html else note + "\n" + html


# --- MkDocs events (docs/hooks/staleness.py) --------------------------------------------------

_lagging: dict[str, Lag] = {}  # this build's lagging pages of its language: src_uri -> Lag


def on_files(files, config):
    """Once per build: which pages of this language lag, each listed in the log (INFO)."""
    _lagging.clear()
    docs_dir = Path(config.docs_dir)
    lang, docs = docs_dir.name, docs_dir.resolve().parent
    try:
        shown = docs.relative_to(Path(config.config_file_path).resolve().parent).as_posix()
    except ValueError:
        shown = str(docs)
    baseline = (config.extra or {}).get(BASELINE_KEY)
    report = check(docs, str(baseline) if baseline else None)
    if report.unchecked:
        log.info(f"translation staleness not checked: {report.unchecked}")
        return files
    for found in report.lags:
        if found.lang == lang and files.get_file_from_path(found.page) is not None:
            _lagging[found.page] = found
            log.info(describe(found, shown))
    return files


def on_page_content(html, page, config, files):
    found = _lagging.get(page.file.src_uri)
    return with_note(html, note_html(found, page.url)) if found else html

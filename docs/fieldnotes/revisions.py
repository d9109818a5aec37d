"""Where a page comes from and when it last changed: its source file, an "Edit this page" link to
that file in the repository, and the date of the last commit that changed it, from git.

Why here, and not mkdocs-git-revision-date-localized-plugin (read: 1.6.3): that plugin dates a
page without a commit (a new page in a preview) with the build's time, dates every page of a
shallow clone with the clone's one commit (it warns only on GitHub Actions at depth 1), and raises
outside a repository; each is a false date, or a strict build that fails. Here, as in
:mod:`fieldnotes.staleness` (whose git access this reuses): one ``git log`` per build for all
pages, and where git cannot tell (no git, no repository, a shallow clone) no page shows a date
and one INFO line says why; a page with uncommitted changes says "not committed yet". Material
shows the date (``page.meta.revision_date``, its own "Last update" label) and the edit button
(``page.edit_url``, feature ``content.action.edit``).

The edit link needs the repository's address: ``REPO_URL`` (the deploy workflow passes
``${{ github.server_url }}/${{ github.repository }}``), else the ``origin`` remote when it is on
GitHub or GitLab; ``REPO_BRANCH`` (default ``main``). It is not MkDocs' ``repo_url``: with that
set, Material's header asks api.github.com for the repository's stars on every page view, a
third-party request. Without an address, no edit link: the page still names its source file.
"""

from __future__ import annotations

import datetime
import html
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes import languages
from fieldnotes.staleness import _git, _repository, _Unchecked

log = logging.getLogger("mkdocs.hooks.revisions")

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


@dataclass(frozen=True)
class Dates:
    """Last change of each page of a docs folder (path relative to it): a date, or None when the
    page has uncommitted changes; ``unchecked`` says why there are none at all."""

    changed: dict[str, datetime.date | None]
    unchecked: str | None = None


def last_changes(docs_dir: Path) -> Dates:
    """One ``git log`` for the folder: each file's newest commit (committer date, UTC)."""
    try:
        top, _ = _repository(docs_dir)
        rel = Path(docs_dir).resolve().relative_to(top).as_posix()
        out = _git(top, "log", "--format=%x00%ct", "--name-only", "--no-renames", "--", rel).stdout
        changed: dict[str, datetime.date | None] = {}
        for entry in out.decode("utf-8", "replace").split("\0")[1:]:
            lines = entry.strip("\n").splitlines()
            if not lines:
                continue
            day = datetime.datetime.fromtimestamp(int(lines[0]), datetime.timezone.utc).date()
            for name in lines[1:]:
                if name.startswith(rel + "/"):
                    changed.setdefault(name[len(rel) + 1:], day)
        status = _git(top, "status", "--porcelain", "-z", "--untracked-files=all", "--", rel).stdout
        for item in status.decode("utf-8", "replace").split("\0"):
            name = item[3:]
            if len(item) > 3 and name.startswith(rel + "/"):
                changed[name[len(rel) + 1:]] = None
        return Dates(changed)
    except _Unchecked as e:
        return Dates({}, str(e))


def date_html(day: datetime.date | None, lang: str) -> str:
    """The date as a reader of ``lang`` writes it, in a ``<time>`` element, after its label."""
    t = languages.text(lang)["revisions"]
    if day is None:
        return html.escape(t["updated"] + t["uncommitted"])
    shown = f"{day.year}年{day.month}月{day.day}日" if lang == "zh" else f"{day.day} {MONTHS[day.month - 1]} {day.year}"
    return f'{html.escape(t["updated"])}<time datetime="{day.isoformat()}">{shown}</time>'


_REMOTE = re.compile(r"^(?:https://|ssh://git@|git@)(?P<host>github\.com|gitlab\.com)[:/](?P<path>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")


def repository(root: Path) -> str | None:
    """The repository's web address: ``REPO_URL``, else the ``origin`` remote on GitHub or GitLab."""
    url = os.environ.get("REPO_URL", "").strip().rstrip("/")
    if url:
        return url
    try:
        remote = _git(root, "remote", "get-url", "origin").stdout.decode().strip()
    except _Unchecked:
        return None
    m = _REMOTE.match(remote)
    return f"https://{m['host']}/{m['path']}" if m else None


def edit_url(repo: str | None, branch: str, source: str) -> str | None:
    """Where the source file (path from the repository root) is edited on GitHub or GitLab."""
    if not repo:
        return None
    return f"{repo}/{'-/edit' if 'gitlab' in repo else 'edit'}/{branch}/{source}"


# --- MkDocs events (docs/hooks/revisions.py) ---------------------------------------------------

_dates: Dates = Dates({})
_repo: str | None = None


def on_files(files, config):
    global _dates, _repo
    _dates = last_changes(Path(config.docs_dir))
    if _dates.unchecked:
        log.info(f"no 'last update' dates: {_dates.unchecked}")
    _repo = repository(Path(config.config_file_path).resolve().parent)
    return files


def on_page_markdown(markdown, page, config, files):
    root = Path(config.config_file_path).resolve().parent
    lang = config.theme["language"]
    try:  # (not abs_src_path: a notebook page's is replaced by its executed copy, fieldnotes.build)
        source = (Path(config.docs_dir).resolve() / page.file.src_uri).relative_to(root).as_posix()
    except ValueError:
        return markdown
    page.edit_url = edit_url(_repo, os.environ.get("REPO_BRANCH") or "main", source)
    if page.file.src_uri in _dates.changed:
        page.meta["revision_date"] = date_html(_dates.changed[page.file.src_uri], lang)
    label = languages.text(lang)["revisions"]["source"]
    page.meta["fieldnotes_source"] = f'{html.escape(label)}<code>{html.escape(source)}</code>'
    return markdown

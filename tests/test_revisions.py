"""Each page's source file, "Edit this page" link and "Last update" date (fieldnotes.revisions).

A date comes from git and only from git: a page with uncommitted changes says so, and where git
cannot tell (no repository, a shallow clone) no page has a date. The built site: every page
names its source file in its own language's folder, and its date is its last commit's.
"""

from __future__ import annotations

import datetime
import re
import subprocess

import pytest
from bs4 import BeautifulSoup

from fieldnotes import revisions
from fieldnotes.languages import LANGS
from sitebuild import ROOT, soup
from test_staleness import commit, git


@pytest.fixture
def repo(tmp_path):
    docs = tmp_path / "repo" / "docs"
    for lang in ("en", "zh"):
        (docs / lang / "a").mkdir(parents=True)
        (docs / lang / "a" / "old.md").write_text("# Old\n", encoding="utf-8")
        (docs / lang / "new.md").write_text("# New\n", encoding="utf-8")
    git(tmp_path / "repo", "init", "-q", "-b", "main")
    git(tmp_path / "repo", "add", "docs/en/a/old.md", "docs/zh/a/old.md")
    git(tmp_path / "repo", "commit", "-q", "-m", "old pages", date="2026-03-04")
    commit(tmp_path / "repo", "new pages", date="2026-11-30")
    (docs / "en" / "a" / "old.md").write_text("# Old, edited\n", encoding="utf-8")
    commit(tmp_path / "repo", "an edit, in English", date="2026-12-01")
    return tmp_path / "repo"


def test_each_page_is_dated_by_its_own_last_commit(repo):
    assert revisions.last_changes(repo / "docs" / "en") == revisions.Dates(
        {"a/old.md": datetime.date(2026, 12, 1), "new.md": datetime.date(2026, 11, 30)})
    assert revisions.last_changes(repo / "docs" / "zh").changed == {
        "a/old.md": datetime.date(2026, 3, 4), "new.md": datetime.date(2026, 11, 30)}


def test_uncommitted_changes_are_never_given_a_date(repo):
    (repo / "docs" / "zh" / "new.md").write_text("# 新\n", encoding="utf-8")
    (repo / "docs" / "zh" / "draft.md").write_text("# 草稿\n", encoding="utf-8")
    changed = revisions.last_changes(repo / "docs" / "zh").changed
    assert changed == {"a/old.md": datetime.date(2026, 3, 4), "new.md": None, "draft.md": None}
    assert revisions.date_html(None, "zh") == "最后更新：尚未提交"
    assert revisions.date_html(None, "en") == "Last update: not committed yet"


def test_a_shallow_clone_or_no_repository_gives_no_date_and_says_why(repo, tmp_path):
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    dates = revisions.last_changes(shallow / "docs" / "zh")
    assert dates.changed == {} and "shallow clone" in dates.unchecked
    (tmp_path / "plain" / "docs").mkdir(parents=True)
    dates = revisions.last_changes(tmp_path / "plain" / "docs")
    assert dates.changed == {} and "not a git repository" in dates.unchecked


def test_dates_read_as_each_language_writes_them():
    day = datetime.date(2026, 12, 2)
    assert revisions.date_html(day, "en") == 'Last update: <time datetime="2026-12-02">2 December 2026</time>'
    assert revisions.date_html(day, "zh") == '最后更新：<time datetime="2026-12-02">2026年12月2日</time>'


@pytest.mark.parametrize("remote, web", [
    ("https://github.com/owner/field-notes.git", "https://github.com/owner/field-notes"),
    ("git@github.com:owner/field-notes.git", "https://github.com/owner/field-notes"),
    ("ssh://git@gitlab.com/owner/notes", "https://gitlab.com/owner/notes"),
    ("https://example.org/owner/notes.git", None),  # an unknown host: no guess at its edit URLs
    ("/srv/mirror.git", None),
])
def test_the_edit_link_comes_from_the_origin_remote(repo, monkeypatch, remote, web):
    monkeypatch.delenv("REPO_URL", raising=False)
    git(repo, "remote", "add", "origin", remote)
    assert revisions.repository(repo) == web


def test_repo_url_wins_and_edit_urls_name_the_language_file(repo, monkeypatch):
    monkeypatch.setenv("REPO_URL", "https://github.com/owner/notes/")
    assert revisions.repository(repo) == "https://github.com/owner/notes"
    assert revisions.edit_url("https://github.com/o/n", "main", "docs/zh/a.md") == \
        "https://github.com/o/n/edit/main/docs/zh/a.md"
    assert revisions.edit_url("https://gitlab.com/o/n", "dev", "docs/en/a.md") == \
        "https://gitlab.com/o/n/-/edit/dev/docs/en/a.md"
    monkeypatch.delenv("REPO_URL")
    assert revisions.repository(repo) is None  # no remote: no edit link (the page names its file)


def _shallow() -> bool:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
                          capture_output=True, text=True)
    return done.returncode != 0 or done.stdout.strip() != "false"


def test_every_page_names_its_source_and_is_dated_from_git(built_site, site_pages):
    assert built_site.status == 0, built_site.log[-3000:]
    dates = {lang: revisions.last_changes(ROOT / "docs" / lang) for lang in LANGS}
    checked = 0
    for lang, path in site_pages:
        page = soup(built_site.path / lang / path / "index.html")
        source = page.select_one("p.fn-source code")
        assert source is not None, f"/{lang}/{path}: no source file named"
        src = source.get_text()
        assert src.startswith(f"docs/{lang}/") and (ROOT / src).is_file(), f"/{lang}/{path}: {src}"
        shown = page.select_one(".md-source-file time")
        rel = src.removeprefix(f"docs/{lang}/")
        if _shallow():
            assert shown is None, f"/{lang}/{path}: a date in a shallow clone"
            continue
        day = dates[lang].changed.get(rel, "missing")
        if day is None:  # uncommitted here: the page must say so, not show a date
            assert shown is None and page.select_one(".md-source-file"), f"/{lang}/{path}"
            continue
        assert shown is not None and shown["datetime"] == day.isoformat(), f"/{lang}/{path}: {shown}"
        checked += 1
    assert checked or _shallow()


def test_no_page_links_a_repository_it_was_not_told_of(built_site, site_pages):
    """The tests build without REPO_URL and this checkout has no GitHub remote: no edit link,
    and never Material's repository widget (it would call api.github.com)."""
    if revisions.repository(ROOT):
        pytest.skip("this checkout names a repository: its edit links are checked by the next test")
    for lang, path in site_pages:
        html = (built_site.path / lang / path / "index.html").read_text(encoding="utf-8")
        assert 'rel="edit"' not in html and "md-source__repository" not in html, f"/{lang}/{path}"


def test_with_a_repository_every_page_links_its_own_source(tmp_path, monkeypatch):
    """One page per language built with REPO_URL: the edit button opens that language's file."""
    from sitebuild import build_site, make_project

    project = make_project(tmp_path / "p", {"x.md": "# X\n\nText.\n"})
    monkeypatch.setenv("REPO_URL", "https://github.com/owner/notes")
    monkeypatch.setenv("REPO_BRANCH", "main")
    built = build_site(tmp_path / "site", project)
    assert built.status == 0, built.log[-3000:]
    for lang in LANGS:
        html = BeautifulSoup((tmp_path / "site" / lang / "x" / "index.html").read_text("utf-8"), "html.parser")
        edit = html.select_one('a[rel="edit"]')
        assert edit is not None and edit["href"] == f"https://github.com/owner/notes/edit/main/docs/{lang}/x.md"
        assert re.search(r"api\.github\.com", str(html)) is None

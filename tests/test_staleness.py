"""Translations that lag (fieldnotes.staleness): a page whose other language's prose changed
after its own last change gets a note under its title, and the build lists it; code, markers,
language-neutral front matter and whitespace never count; the history is read from git, and
where git cannot tell (no repository, a shallow clone, a baseline not in the history) the build
says so in one INFO line and shows no note.

Most cases call the module on throwaway repositories made around one-page projects
(sitebuild.make_project); one real build (both languages, no code run) checks the HTML."""

from __future__ import annotations

import datetime
import logging
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fieldnotes import staleness
from fieldnotes.staleness import BASELINE_KEY, Commit, Lag, check, lag, prose
from sitebuild import FENCE, ROOT, make_project, run

EN = (f"---\npitfalls:\n  - id: zeros-everywhere\n    apis: [torch.zeros]\n    severity: low\n    gpu: false\n"
      f"    proof: [zeros]\n    fixed: advice\n    symptom: \"Every element is zero\"\n    cause: \"`torch.zeros` fills with zeros.\"\n"
      f"    fix: \"Use `torch.ones`.\"\n---\n\n# Zeros\n\n`torch.zeros` makes a tensor\nfull of zeros.\n\n"
      f"## Zeros {{#zeros}}\n\n<!--pytest.mark.timeout(60)-->\n{FENCE}python\nimport torch\n\n"
      f"print(torch.zeros(2))\n{FENCE}\n\nThe dtype is float32.\n")
ZH = (EN.replace('"Every element is zero"', '"每个元素都是 0"').replace('"`torch.zeros` fills with zeros."', '"`torch.zeros` 用 0 填充。"')
      .replace('"Use `torch.ones`."', '"改用 `torch.ones`。"').replace("# Zeros", "# 全零")
      .replace("`torch.zeros` makes a tensor\nfull of zeros.", "`torch.zeros` 创建一个全为 0 的张量。")
      .replace("## Zeros", "## 全零").replace("The dtype is float32.", "数据类型是 float32。"))
PAIR = ("en", "zh")


def git(repo: Path, *args: str, date: str = "2026-12-01") -> str:
    """git in ``repo``, with a fixed author and date, and none of this machine's git settings."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
           "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_AUTHOR_DATE": f"{date}T12:00:00+00:00",
           "GIT_COMMITTER_DATE": f"{date}T12:00:00+00:00"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def commit(repo: Path, message: str = "edit", date: str = "2026-12-01") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, date=date)
    return git(repo, "rev-parse", "HEAD")


def edit(repo: Path, lang: str, old: str, new: str, page: str = "zeros.md") -> None:
    path = repo / "docs" / lang / page
    source = path.read_text(encoding="utf-8")
    assert old in source, (old, path)
    path.write_text(source.replace(old, new), encoding="utf-8")


def make_repo(tmp: Path, pages: dict[str, tuple[str, str]]) -> tuple[Path, str]:
    """A one-page project (sitebuild.make_project) in a new git repository whose first commit is
    the baseline, written into its mkdocs.yml as a project would; (folder, baseline sha)."""
    project = make_project(tmp, {name: en for name, (en, _) in pages.items()})
    for name, (_, zh) in pages.items():
        (project / "docs" / "zh" / name).write_text(zh, encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    baseline = commit(project, "pages, reviewed in parity")
    config = project / "mkdocs.yml"
    config.write_text(re.sub(rf"(?m)^(\s*{BASELINE_KEY}:).*$", rf'\1 "{baseline}"', config.read_text("utf-8")), "utf-8")
    commit(project, "baseline")
    return project, baseline


@pytest.fixture
def repo(tmp_path) -> tuple[Path, str]:
    return make_repo(tmp_path / "project", {"zeros.md": (EN, ZH)})


def lags(project: Path, baseline: str | None) -> dict[tuple[str, str], Lag]:
    report = check(project / "docs", baseline)
    assert report.unchecked is None, report.unchecked
    return {(found.lang, found.page): found for found in report.lags}


# --- the rule, on the module ----------------------------------------------------------------

def test_an_english_prose_edit_makes_the_chinese_page_lag(repo):
    project, baseline = repo
    assert lags(project, baseline) == {}
    edit(project, "en", "full of zeros.", "filled with zeros.")
    sha = commit(project, "Reword the zeros page", date="2026-12-02")
    found = lags(project, baseline)
    assert list(found) == [("zh", "zeros.md")], found
    assert found["zh", "zeros.md"] == Lag("zeros.md", "zh", "en", found["zh", "zeros.md"].since, 0)
    assert (found["zh", "zeros.md"].since.sha, found["zh", "zeros.md"].since.date) == (sha, "2026-12-02")
    assert staleness.describe(found["zh", "zeros.md"]) == \
        f"translation: docs/zh/zeros.md may lag docs/en/zeros.md: prose changed in {sha[:7]} on 2026-12-02"


def test_a_chinese_prose_edit_makes_the_english_page_lag(repo):
    project, baseline = repo
    edit(project, "zh", "数据类型是 float32。", "默认数据类型是 float32。")
    sha = commit(project, "zh: say default", date="2026-12-03")
    found = lags(project, baseline)
    assert list(found) == [("en", "zeros.md")] and found["en", "zeros.md"].since.sha == sha, found


def test_a_follow_up_in_the_other_language_leaves_no_note(repo):
    project, baseline = repo
    edit(project, "en", "full of zeros.", "filled with zeros.")
    commit(project, "en first", date="2026-12-02")
    edit(project, "en", "The dtype is float32.", "The default dtype is float32.")
    commit(project, "en again", date="2026-12-03")
    assert lags(project, baseline)["zh", "zeros.md"].later == 1
    edit(project, "zh", "数据类型是 float32。", "默认数据类型是 float32。")
    commit(project, "zh follows", date="2026-12-04")
    assert lags(project, baseline) == {}
    edit(project, "en", "The default dtype", "The dtype")  # both in one commit: translated together
    edit(project, "zh", "默认数据类型", "数据类型")
    commit(project, "both", date="2026-12-05")
    assert lags(project, baseline) == {}


@pytest.mark.parametrize("lang", ["en", "both"])
def test_code_markers_neutral_front_matter_and_whitespace_never_count(repo, lang):
    project, baseline = repo
    for code in (["en", "zh"] if lang == "both" else [lang]):
        edit(project, code, "print(torch.zeros(2))", "print(torch.zeros(3, dtype=torch.int64))")
        edit(project, code, "timeout(60)", "timeout(120)")
        edit(project, code, "severity: low", "severity: medium")
        edit(project, code, "proof: [zeros]", "proof: [ zeros ]")
    commit(project, "code and data only", date="2026-12-02")
    assert lags(project, baseline) == {}
    edit(project, "en", "`torch.zeros` makes a tensor\nfull of zeros.", "`torch.zeros`  makes a tensor full\n  of zeros.  ")
    edit(project, "zh", "`torch.zeros` 创建一个全为 0 的张量。", "`torch.zeros` 创建一个\n全为 0 的张量。")
    commit(project, "re-wrap", date="2026-12-03")
    assert lags(project, baseline) == {}
    edit(project, "zh", "每个元素都是 0", "所有元素都是 0")  # a pitfall's symptom is prose
    commit(project, "symptom", date="2026-12-04")
    assert list(lags(project, baseline)) == [("en", "zeros.md")]


def test_prose_drops_code_markers_neutral_fields_and_whitespace():
    text = prose(EN)
    for kept in ("Everyelementiszero", "`torch.zeros`fillswithzeros.", "#Zeros", "`torch.zeros`makesatensorfullofzeros.",
                 "{#zeros}", "Thedtypeisfloat32."):
        assert kept in text, (kept, text)
    for dropped in ("zeros-everywhere", "severity", "low", "proof", "print", "import", "pytest.mark", "python", " "):
        assert dropped not in text, (dropped, text)
    notebook = '{"cells": [{"cell_type": "markdown", "source": ["# Title\\n", "Some words"]},' \
               ' {"cell_type": "code", "source": "print(1)"}], "metadata": {}}'
    assert prose(notebook, ".ipynb") == "#TitleSomewords"
    inside = f"!!! note\n\n    Words.\n\n    {FENCE}python\n    x = 1\n    {FENCE}\n\nMore.\n"
    assert prose(inside) == "!!!noteWords.More."


def test_translation_not_needed_commits_make_no_page_lag(repo):
    project, baseline = repo
    edit(project, "zh", "创建一个全为 0 的张量", "生成一个全为 0 的张量")
    commit(project, "zh: a better verb\n\nTranslation: not needed", date="2026-12-02")
    assert lags(project, baseline) == {}
    # It neither makes a page lag nor answers a lag: the English edit still waits for its translation.
    edit(project, "en", "full of zeros.", "filled with zeros.")
    sha = commit(project, "en edit", date="2026-12-03")
    edit(project, "zh", "生成一个", "创建一个")
    commit(project, "zh wording\n\nTranslation: not needed", date="2026-12-04")
    assert lags(project, baseline)["zh", "zeros.md"].since.sha == sha


def test_the_lag_rule_walks_commits_oldest_first():
    def at(n: int, *changed: str, not_needed: bool = False) -> Commit:
        return Commit(f"{n:040d}", f"2026-12-0{n}", frozenset((lang, "p.md") for lang in changed), not_needed)

    assert lag("p.md", PAIR, [at(1, "en")]).lang == "zh"
    assert lag("p.md", PAIR, [at(1, "en"), at(2, "zh")]) is None  # caught up
    assert lag("p.md", PAIR, [at(1, "en"), at(2, "zh"), at(3, "zh")]).lang == "en"
    assert lag("p.md", PAIR, [at(1, "en"), at(2, "en", "zh")]) is None  # translated together
    assert lag("p.md", PAIR, [at(1, "en"), at(2, "en"), at(3)]) == Lag("p.md", "zh", "en", at(1, "en"), 1)
    assert lag("p.md", PAIR, [at(1, "zh", not_needed=True)]) is None
    assert lag("p.md", PAIR, []) is None


def test_uncommitted_edits_count_as_the_newest_commit_and_stay_out_of_a_clone(repo, tmp_path):
    project, baseline = repo
    edit(project, "en", "full of zeros.", "filled with zeros.")
    found = lags(project, baseline)["zh", "zeros.md"]
    assert found.since == Commit(None, datetime.date.today().isoformat(), frozenset({("en", "zeros.md")}))
    assert "in uncommitted edits" in staleness.describe(found)
    assert "（尚未提交）" in staleness.note_html(found, "zeros/")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True)
    assert lags(clone, baseline) == {}
    edit(project, "en", "filled with zeros.", "full of zeros.")  # undone: prose as committed
    assert lags(project, baseline) == {}


def test_history_is_read_once_per_head(repo):
    project, baseline = repo
    staleness._history.cache_clear()
    check(project / "docs", baseline)
    check(project / "docs", baseline)
    assert staleness._history.cache_info().hits == 1
    edit(project, "en", "full of zeros.", "filled with zeros.")
    commit(project, date="2026-12-02")
    assert len(check(project / "docs", baseline).lags) == 1  # a new HEAD: read again
    assert staleness._history.cache_info().misses == 2


# --- where git cannot tell: one INFO line, no note, never a warning ---------------------------

class _Files:
    def get_file_from_path(self, path: str) -> object:
        return object()


def _hook(project: Path, lang: str, baseline: str | None, caplog) -> list[logging.LogRecord]:
    """The hook's on_files on ``lang``'s site of ``project``; the log records it wrote."""
    config = SimpleNamespace(docs_dir=str(project / "docs" / lang), config_file_path=str(project / "mkdocs.yml"),
                             extra={BASELINE_KEY: baseline} if baseline else {})
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=staleness.log.name):
        staleness.on_files(_Files(), config)
    return [r for r in caplog.records if r.name == staleness.log.name]


def _unchecked(records: list[logging.LogRecord], why: str) -> None:
    assert [(r.levelno, r.getMessage()) for r in records] == \
        [(logging.INFO, f"translation staleness not checked: {why}")], records
    assert staleness._lagging == {}


def test_shallow_clone_and_no_repository_show_no_note_and_say_why(repo, tmp_path, caplog):
    project, baseline = repo
    edit(project, "en", "full of zeros.", "filled with zeros.")
    commit(project, date="2026-12-02")
    records = _hook(project, "zh", baseline, caplog)
    assert [r.getMessage() for r in records] == [
        f"translation: docs/zh/zeros.md may lag docs/en/zeros.md: prose changed in "
        f"{git(project, 'rev-parse', '--short=7', 'HEAD')} on 2026-12-02"]
    assert list(staleness._lagging) == ["zeros.md"]

    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{project}", str(shallow)], check=True)
    _unchecked(_hook(shallow, "zh", baseline, caplog), "shallow clone: run git fetch --unshallow")

    plain = make_project(tmp_path / "plain", {"zeros.md": EN})
    _unchecked(_hook(plain, "zh", baseline, caplog), "not a git repository")

    missing = "1" + "0" * 39
    _unchecked(_hook(project, "zh", missing, caplog),
               f"the baseline commit {missing[:12]} ({BASELINE_KEY} in mkdocs.yml) is not in this history")


def test_no_git_shows_no_note_and_says_why(repo, caplog, monkeypatch):
    monkeypatch.setattr(staleness.shutil, "which", lambda name: None)
    _unchecked(_hook(repo[0], "en", repo[1], caplog), "git is not installed")


# --- the real repository ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this repository's committed history."""
    folder = tmp_path_factory.mktemp("clone") / "fieldnotes"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(folder)], check=True)
    return folder


def _baseline(project: Path) -> str:
    found = re.search(rf'(?m)^\s*{BASELINE_KEY}:\s*"?([0-9a-f]+)"?', (project / "mkdocs.yml").read_text("utf-8"))
    assert found, f"mkdocs.yml has no extra: {BASELINE_KEY}"
    return found.group(1)


def test_the_repository_as_committed_has_no_lagging_page(clone):
    assert lags(clone, _baseline(clone)) == {}


# --- the build: the note in the HTML, the log line ------------------------------------------------

PAGE = "# {title}\n\n{words}\n\n" + f"{FENCE}python\nprint(1)\n{FENCE}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, tuple[int, str, float], str, str]:
    """A project where an English edit was committed on one page and a Chinese one on another,
    built in both languages without running code; (site, build, en sha, zh sha)."""
    project, _ = make_repo(tmp_path_factory.mktemp("built") / "project", {
        "en-edited.md": (PAGE.format(title="English edited", words="Some words."),
                         PAGE.format(title="英文改过", words="一些话。")),
        "zh-edited.md": (PAGE.format(title="Chinese edited", words="Other words."),
                         PAGE.format(title="中文改过", words="另一些话。"))})
    edit(project, "en", "Some words.", "Some better words.", page="en-edited.md")
    en = commit(project, "en: better words", date="2026-12-02")
    edit(project, "zh", "另一些话。", "另一些更好的话。", page="zh-edited.md")
    zh = commit(project, "zh: better words", date="2026-12-03")
    site = project.parent / "site"
    result = run([sys.executable, "docs/site.py", "build", "--no-exec", "--out", str(site)], project)
    assert result[0] == 0, result[1][-3000:]
    return site, result, en[:7], zh[:7]


def _note(site: Path, lang: str, page: str):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / lang / page / "index.html").read_text(encoding="utf-8"), "html.parser")
    note = soup.select_one(".fn-stale")
    if note is not None:
        assert note.find_previous_sibling().name == "h1", "the note is right under the title"
        href = note.a["href"]
        target = posixpath.normpath(posixpath.join(f"/{lang}/{page}/", href))
        assert (site / target.strip("/") / "index.html").is_file(), target
        return note.get_text(" ", strip=True), target
    return None


def test_the_build_shows_the_note_on_the_lagging_page_only(built):
    site, (_, log, _), en, zh = built
    assert _note(site, "zh", "en-edited") == (f"英文页面于 2026-12-02 更新（提交 {en}），本页译文可能尚未跟上。 阅读英文页面",
                                              "/en/en-edited")
    assert _note(site, "en", "zh-edited") == (f"The Chinese page changed on 2026-12-03 (commit {zh}); "
                                              "this translation may lag behind it. Read the Chinese page", "/zh/zh-edited")
    assert _note(site, "en", "en-edited") is None and _note(site, "zh", "zh-edited") is None
    assert _note(site, "en", ".") is None and _note(site, "zh", ".") is None


def test_the_build_log_lists_each_lagging_page_once(built):
    log = built[1][1]
    lines = [line for line in log.splitlines() if "translation:" in line]
    assert len(lines) == 2, lines
    assert f"[zh] INFO    -  translation: docs/zh/en-edited.md may lag docs/en/en-edited.md: " \
           f"prose changed in {built[2]} on 2026-12-02" in lines
    assert f"[en] INFO    -  translation: docs/en/zh-edited.md may lag docs/zh/zh-edited.md: " \
           f"prose changed in {built[3]} on 2026-12-03" in lines
    assert "not checked" not in log and "WARNING" not in log

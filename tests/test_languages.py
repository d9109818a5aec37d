"""Languages: a line break inside a Chinese paragraph is dropped (between English words, and in
code, kept); the Chinese pages use one term per concept (the glossary's table, #one-term)."""

import re
from pathlib import Path

from mkdocs.utils.meta import get_data

from fieldnotes.languages import join_cjk_lines


def test_joins_lines_between_chinese_characters_and_after_chinese_punctuation():
    assert join_cjk_lines("<p>把值写进\n一个张量，\n<code>x</code></p>") == \
        "<p>把值写进一个张量，<code>x</code></p>"


def test_keeps_breaks_between_latin_words_and_inside_pre():
    html = "<p>scatter\nwrites 张量\nvalues</p><pre>中\n文</pre>"
    assert join_cjk_lines(html) == html


# --- one Chinese voice: the glossary's "one concept, one term" table ---------------------------


ROOT = Path(__file__).resolve().parents[1]
ZH = ROOT / "docs" / "zh"
NOT_PROSE = re.compile(r"(?ms)^```.*?^```|`[^`]*`|<!--.*?-->|\]\([^)]*\)|\{[#.][^}]*\}|<[^>]+>")
"""Code (fenced and inline), comments, link targets, attribute lists, HTML tags: not prose."""
GLOSS = re.compile(r"[（(][A-Za-z][A-Za-z0-9 ._/-]*[）)]")
"""An English gloss in brackets after the Chinese term, as in 批归一化（batch norm）: allowed."""


def avoided_terms(glossary: Path = ZH / "glossary.md") -> dict[str, str]:
    """``{variant to avoid: the term to use}`` from the glossary's table under ``{#one-term}``."""
    section = glossary.read_text(encoding="utf-8").split("{#one-term}", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    terms = {}
    for use, avoid, *_ in rows[1:]:  # the header row first
        for variant in filter(None, (v.strip() for v in avoid.split("、"))):
            terms[variant] = use.strip()
    return terms


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, prose) of a page: its body and its pitfalls' symptom, cause and fix."""
    text = path.read_text(encoding="utf-8")
    body, _ = get_data(text)
    front = text[: len(text) - len(body)]
    lines = []
    for n, line in enumerate(front.splitlines(), 1):
        if re.match(r"\s*(- )?(symptom|cause|fix):", line) or (lines and lines[-1][0] == n - 1 and line.startswith("      ")):
            lines.append((n, line))
    offset = front.count("\n")
    blanked = NOT_PROSE.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), body)
    lines += [(offset + n, line) for n, line in enumerate(blanked.splitlines(), 1)]
    return lines


def voice_problems(pages: list[Path], terms: dict[str, str], root: Path = ZH) -> list[str]:
    found = []
    for page in pages:
        for n, line in prose_lines(page):
            line = GLOSS.sub(lambda m: " " * len(m[0]), NOT_PROSE.sub(" ", line))
            for variant, use in terms.items():
                latin = re.fullmatch(r"[A-Za-z]+", variant)
                pattern = rf"(?<![\w-]){re.escape(variant)}(?![\w-])" if latin else re.escape(variant)
                for m in re.finditer(pattern, line):
                    found.append(f"docs/zh/{page.relative_to(root).as_posix()}:{n}: {variant!r}: write {use!r} "
                                 "(docs/zh/glossary.md#one-term)")
    return found


def test_zh_pages_use_the_glossarys_terms():
    terms = avoided_terms()
    assert {"前向计算", "epoch", "显存溢出", "跳跃连接", "loss", "batch", "batch size", "micro-batch",
            "token", "登记", "时间步长"} <= set(terms), terms
    pages = [p for p in sorted(ZH.rglob("*.md")) if p.name != "glossary.md"]
    problems = voice_problems(pages, terms)
    assert not problems, "\n".join(problems)


def test_the_voice_check_sees_a_variant_in_prose_but_not_in_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("---\npitfalls:\n  - symptom: \"显存溢出\"\n---\n\n# 标题\n\n每个 epoch 都前向计算一次；"
                    "每轮（epoch）可以。\n\n```python\nloss = 1  # 前向计算\n```\n\n`loss` 与 loss。\n", encoding="utf-8")
    problems = voice_problems([page], {"前向计算": "前向传播", "epoch": "轮（epoch）", "显存溢出": "显存不足", "loss": "损失"}, tmp_path)
    found = sorted(p.split(": ", 1)[1].split(":")[0] for p in problems)
    assert found == ["'epoch'", "'loss'", "'前向计算'", "'显存溢出'"], problems
    assert any(":3: '显存溢出'" in p for p in problems) and any(":8: 'epoch'" in p for p in problems), problems


def test_the_new_terms_are_caught_in_prose_and_allowed_as_glosses(tmp_path):
    """Issue 20's terms: "batch size", "micro-batch", "token", 登记 and 步长 for time steps are
    caught in prose; a bracketed English gloss after the Chinese term, and code, are not."""
    page = tmp_path / "page.md"
    page.write_text("# 标题\n\n换了 batch size；每个 batch；一个 micro-batch；token 列表；参数登记；一条 8 步长的序列。\n\n"
                    "批归一化（batch norm）和批次（batch）都可以，`batch_size=2` 也可以。\n", encoding="utf-8")
    problems = voice_problems([page], avoided_terms(), tmp_path)
    found = sorted(p.split(": ", 1)[1].split(":")[0] for p in problems)
    assert found == ["'batch size'", "'batch'", "'batch'", "'micro-batch'", "'token'", "'步长的序列'", "'登记'"], problems
    assert all(":3: " in p for p in problems), problems

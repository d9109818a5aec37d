"""``docs/site.py new SECTION/TOPIC``: a new topic in both languages, ready to write in.

Why: a page is two files that must agree (blocks, markers, heading ids, pitfall fields) and a
nav line in each config, in the same section and place. Written by hand, the first check fails
on one of them; created here, the page passes ``docs/site.py check`` and the suite as it is,
and the contributor starts from a working example of each rule instead of the README.
"""

from __future__ import annotations

import re
from pathlib import Path

from fieldnotes import nav
from fieldnotes.languages import CONFIGS, LANGS

TOPIC = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

PAGE = {
    "en": """---
# Pitfalls are data (README, "Add a pitfall"): the build writes the page's Pitfalls section,
# its tags and its rows in the pitfall index from them. Uncomment and fill in, then prove it
# with a heading id of this page whose section runs the code that shows it.
pitfalls: []
#  - id: {topic}-what-goes-wrong        # unique on the site; it is the anchor
#    apis: [torch.example]               # as written in code
#    severity: medium                    # high | medium | low | security
#    gpu: false
#    proof: [first-example]              # heading ids on this page
#    fixed: [first-example]              # where a block applies the fix's code and asserts; or: advice
#    symptom: "What a reader sees or types into the search box"
#    cause: "Why it happens."
#    fix: "What to do instead."
---

# {title}

Say in one paragraph what this page answers and for whom: the question a reader arrives with,
the API it is about, and what they will be able to do after reading it. Every output below is
produced by running the code above it when the site is built.

## A first example {{#first-example}}

The code runs when the site is built, and what it prints appears under it. Prove a claim with
`assert`, so that the build fails if torch stops behaving this way.

```python
import torch

x = torch.arange(6).reshape(2, 3)
print(x)
assert x.shape == (2, 3)
```
""",
    "zh": """---
# 常见坑是数据（见 README 的 "Add a pitfall"）：页面的“常见坑”一节、标签和常见坑索引中的行都由它生成。
# 字段 id、apis、severity、gpu、proof、fixed 与英文页面完全相同，symptom、cause、fix 用中文写。
pitfalls: []
#  - id: {topic}-what-goes-wrong
#    apis: [torch.example]
#    severity: medium
#    gpu: false
#    proof: [first-example]
#    fixed: [first-example]
#    symptom: "读者看到的现象，或会输入搜索框的报错"
#    cause: "原因。"
#    fix: "正确做法。"
---

# {title}

用一段话说明本页回答什么问题：读者带着什么疑问来，涉及哪个 API，读完之后能做什么。下面每一段输出都是构建站点时实际运行上方代码得到的，不是手工粘贴的结果。

## 第一个例子 {{#first-example}}

代码在构建站点时运行，它打印的内容显示在代码下方。用 `assert` 验证结论：一旦 torch 的行为改变，构建就会失败。

```python
import torch

x = torch.arange(6).reshape(2, 3)
print(x)
assert x.shape == (2, 3)
```
""",
}


class ScaffoldError(Exception):
    pass


def create(root: Path, target: str, title: str | None = None, title_zh: str | None = None) -> list[str]:
    """Write both pages and both nav lines; return what was done, one line each."""
    parts = target.strip("/").removesuffix(".md").split("/")
    if len(parts) != 2 or not all(TOPIC.fullmatch(p) for p in parts):
        raise ScaffoldError(f"{target}: give SECTION/TOPIC in lowercase-words-with-dashes, e.g. nn/interpolate")
    section, name = parts
    page = f"{section}/{name}.md"
    paths = {lang: root / "docs" / lang / page for lang in LANGS}
    existing = [p for p in paths.values() if p.exists()]
    if existing:
        raise ScaffoldError(f"{existing[0].relative_to(root)} already exists: nothing was written")
    configs = {lang: root / CONFIGS[lang] for lang in LANGS}
    for lang in LANGS:  # find the place in every nav before writing anything
        if section not in nav.sections(configs[lang]):
            raise ScaffoldError(f"{CONFIGS[lang]}: no nav section holds pages under {section}/ "
                                f"(sections: {', '.join(sorted(nav.sections(configs[lang])))}); "
                                "nothing was written")
    title = title or name.replace("-", " ").capitalize()
    titles = {"en": title, "zh": title_zh or title}
    done = []
    for lang in LANGS:
        paths[lang].parent.mkdir(parents=True, exist_ok=True)
        paths[lang].write_text(PAGE[lang].format(topic=name, title=titles[lang]), encoding="utf-8")
        done.append(f"wrote docs/{lang}/{page}")
    for lang in LANGS:
        line = nav.insert(configs[lang], page, titles[lang])
        done.append(f"added '{titles[lang]}: {page}' to the nav in {CONFIGS[lang]}:{line} "
                    f"(section {nav.sections(configs[lang])[section]})")
    if not title_zh:
        done.append(f"translate the title in docs/zh/{page} and in {CONFIGS['zh']} (it is the English one)")
    return done


def main(root: Path, target: str, title: str | None, title_zh: str | None) -> int:
    try:
        done = create(root, target, title, title_zh)
    except (ScaffoldError, nav.NavError) as e:
        print(f"error: {e}")
        return 2
    for line in done:
        print(line)
    page = target.strip("/").removesuffix(".md")
    print(f"next: write the page, then .venv/bin/python docs/site.py check {page}")
    return 0

"""The site's languages, every interface string the machinery writes into a page, and the
build's checks and fixes that concern languages (a missing translation, CJK line breaks).

Why one module: the build, the pitfall catalogue and the tests each need the language list and
the strings a reader sees ("Output", "Needs CUDA", "Pitfalls" ...). Kept here once, a new
language is one entry in :data:`LANGS` and one in :data:`TEXT`, and the tests read the same
strings they check.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

LANGS: tuple[str, ...] = ("en", "zh")
"""Language codes, in the order the site lists them; ``docs/<lang>/`` holds each one's pages."""

CONFIGS: dict[str, str] = {"en": "mkdocs.yml", "zh": "mkdocs.zh.yml"}
"""The MkDocs config that builds each language (``mkdocs.zh.yml`` inherits ``mkdocs.yml``)."""

MATERIAL_UI: dict[str, dict[str, str]] = {
    "en": {"search": "Search", "copy": "Copy to clipboard"},
    "zh": {"search": "搜索", "copy": "复制"},
}
"""Strings Material itself shows (search placeholder, copy button): what the tests expect."""

TEXT: dict[str, dict] = {
    "en": {
        # under code blocks (fieldnotes.render)
        "output": "Output",
        "figure": "Figure drawn by the code above",
        "gpu": "Needs CUDA: not run in this build",
        "gpu_body": "This block needs a CUDA GPU. This build ran on {device}, so it shows no output.",
        "error": "This block failed when the site was built",
        "env": "Outputs on this page were produced when the site was built, by torch {torch} "
               "on {device} (Python {python}).",
        # the version matrix (fieldnotes.matrix, fieldnotes.render)
        "matrix_note": " The same code was also run on torch {versions}, on {devices}: {differ}.",
        "matrix_same": "every block behaved the same",
        "matrix_differ": "{n} block(s) behaved differently, each noted under its output",
        "matrix_none": " It has not been run on other torch versions since its code last changed.",
        "version_differs": "On torch {versions} this block prints something else",
        "version_fails": "On torch {versions} this block fails",
        "and": ", ",
        "recorded": "Recorded on {device}, torch {torch}, CUDA {cuda}, {date}; not re-run in this build",
        "recorded_empty": "(the block printed nothing)",
        # the pitfall catalogue (fieldnotes.pitfalls)
        "section": "Pitfalls", "colon": ": ",
        "total": "{total} pitfalls. {ran} of them are shown by code that ran when this site was built "
                 "(torch {torch}, {device}).",
        "total_gpu": " The other {gpu} need a GPU: their code did not run on this build.",
        "cause": "Cause", "fix": "Fix", "proof": "The code that shows it", "fixed": "The fix, run and checked",
        "lint": "[`fieldnotes lint`]({link}) finds this pitfall in code.",
        # the lint page's table of rules (fieldnotes.lint)
        "lint_rule": "Rule (the pitfall's id)", "lint_symptom": "What you see", "lint_versions": "Shown on torch",
        "lint_not_held": " (its code fails on torch {versions})",
        "severity": {"security": "security: loading a file can run code from it",
                     "high": "high: wrong results, no error",
                     "medium": "medium: an error, or misbehaviour you will notice",
                     "low": "low: surprising, but harmless or only slower"},
        "sev_short": {"security": "security", "high": "high", "medium": "medium", "low": "low"},
        "apis": "API", "verified": "holds on torch", "needs_gpu": "needs a GPU",
        "not_held": "its code fails on torch {versions}",
        "wordings": "The error, as each torch version words it",
        "not_run": "needs a GPU: not run on this build",
        "pitfall": "Pitfall", "page": "Page", "sev_col": "Severity",
        "catalogue": 'The same catalogue as data, for editors, linters and other tools: '
                     '<a href="{root}pitfalls.json">pitfalls.json</a> (its <a href="{root}pitfalls.schema.json">JSON Schema</a>).',
        # a translation that may lag the other language's page (fieldnotes.staleness)
        "stale_note": "The {other} page changed on {date} ({change}); this translation may lag behind it.",
        "stale_link": "Read the {other} page",
        "stale_lang": {"en": "English", "zh": "Chinese"},
        "stale_commit": "commit {sha}",
        "stale_uncommitted": "not committed yet",
        # downloads of a page's code (fieldnotes.downloads)
        "downloads": {
            "notebook": "The code of [{title}]({url}) (PyTorch Field Notes) as a notebook. Run it from the top: "
                        "each cell prints what the page shows under the same code. A cell the page shows failing "
                        "on purpose shows its error and the run goes on; one that needs a CUDA GPU is skipped "
                        "without one.",
            "script": "The code of {title} ({url}), PyTorch Field Notes, as a script. Run it with python: each "
                      "block prints what the page shows under the same code. A block the page shows failing on "
                      "purpose prints its error and the script goes on; one that needs a CUDA GPU is skipped "
                      "without one.",
            "files": "Files the code below uses, written here so that this notebook needs nothing else:",
            "section": "On the page: [{heading}]({url}#{anchor})",
            "links": "Take this page's code with you:",
            "link_notebook": "notebook (.ipynb)", "link_script": "script (.py)",
            "links_note": "; run from the top, each prints what this page shows.",
        },
        # source file and last update (fieldnotes.revisions): Material shows the date after an icon
        # whose label is only a tooltip, so the words are written out
        "revisions": {"source": "Source file: ", "updated": "Last update: ", "uncommitted": "not committed yet"},
        # llms.txt (fieldnotes.llms)
        "llms": {
            "about": "Every output on this site was produced by running the code shown above it when the site "
                     "was built; each page says on which torch and device. A page with code is also a notebook "
                     "and a script (linked below as `script`), and the pitfall catalogue is data: "
                     "[pitfalls.json]({root}pitfalls.json). Chinese version: [llms.txt]({other}llms.txt).",
            "start": "Start here", "script": "script", "other": "zh",
        },
    },
    "zh": {
        "output": "输出",
        "figure": "上方代码绘制的图",
        "gpu": "需要 CUDA：本次构建未运行",
        "gpu_body": "这段代码需要 CUDA GPU。本次构建运行在 {device} 上，因此不显示输出。",
        "error": "构建站点时这段代码运行失败",
        "env": "本页所有输出均在构建站点时实际运行得到：torch {torch}，设备 {device}，Python {python}。",
        "matrix_note": "同样的代码也在 torch {versions} 上运行过（{devices}）：{differ}。",
        "matrix_same": "每段代码的结果都相同",
        "matrix_differ": "有 {n} 段代码的结果不同，已分别在其输出下方注明",
        "matrix_none": "自本页代码上次改动以来，尚未在其他 torch 版本上运行。",
        "version_differs": "在 torch {versions} 上，这段代码的输出不同",
        "version_fails": "在 torch {versions} 上，这段代码运行失败",
        "and": "、",
        "recorded": "记录于 {device}，torch {torch}，CUDA {cuda}，{date}；本次构建未重新运行",
        "recorded_empty": "（这段代码没有输出）",
        "section": "常见坑", "colon": "：",
        "total": "共 {total} 个坑，其中 {ran} 个由构建本站时实际运行的代码验证（torch {torch}，{device}）。",
        "total_gpu": "其余 {gpu} 个需要 GPU：本次构建没有运行它们的代码。",
        "cause": "原因", "fix": "解决", "proof": "验证代码", "fixed": "修正代码（已运行并验证）",
        "lint": "[`fieldnotes lint`]({link}) 能在代码中找出这个坑。",
        "lint_rule": "规则（坑的 id）", "lint_symptom": "症状", "lint_versions": "已验证的 torch 版本",
        "lint_not_held": "（在 torch {versions} 上其代码运行失败）",
        "severity": {"security": "安全：加载文件时可能执行其中的代码",
                     "high": "高：结果出错却没有报错", "medium": "中：报错，或能察觉的异常",
                     "low": "低：出乎意料，但无害或只是变慢"},
        "sev_short": {"security": "安全", "high": "高", "medium": "中", "low": "低"},
        "apis": "API", "verified": "成立的 torch 版本", "needs_gpu": "需要 GPU",
        "not_held": "在 torch {versions} 上其代码运行失败",
        "wordings": "各 torch 版本的报错原文",
        "not_run": "需要 GPU：本次构建未运行",
        "pitfall": "坑", "page": "页面", "sev_col": "严重程度",
        "catalogue": '这份目录也有数据版本，供编辑器、代码检查工具等读取：'
                     '<a href="{root}pitfalls.json">pitfalls.json</a>（格式见 <a href="{root}pitfalls.schema.json">JSON Schema</a>）。',
        "stale_note": "{other}页面于 {date} 更新（{change}），本页译文可能尚未跟上。",
        "stale_link": "阅读{other}页面",
        "stale_lang": {"en": "英文", "zh": "中文"},
        "stale_commit": "提交 {sha}",
        "stale_uncommitted": "尚未提交",
        "downloads": {
            "notebook": "本 notebook 收录 [{title}]({url})（PyTorch 实战笔记）一页的全部代码。请从头运行："
                        "每个单元格的输出与页面上同一段代码下方的输出一致。页面上故意演示报错的单元格会显示报错，"
                        "运行不会因此中断；需要 CUDA GPU 的单元格在没有 GPU 时跳过。",
            "script": "本脚本收录 {title}（{url}，PyTorch 实战笔记）一页的全部代码。用 python 运行："
                      "每段代码的输出与页面上同一段代码下方的输出一致。页面上故意演示报错的代码段会打印报错，"
                      "脚本不会因此中断；需要 CUDA GPU 的代码段在没有 GPU 时跳过。",
            "files": "下面的代码要用到这些文件，这里先把它们写出来，因此本 notebook 不依赖其他任何文件：",
            "section": "对应页面小节：[{heading}]({url}#{anchor})",
            "links": "带走本页的代码：",
            "link_notebook": "notebook（.ipynb）", "link_script": "脚本（.py）",
            "links_note": "；从头运行，输出都与本页显示的一致。",
        },
        "revisions": {"source": "源文件：", "updated": "最后更新：", "uncommitted": "尚未提交"},
        "llms": {
            "about": "本站每一个输出都是在构建站点时实际运行上方代码得到的，每页都注明所用的 torch 版本和设备。"
                     "有代码的页面也提供 notebook 和脚本（下面各条目中的“脚本”链接），常见坑目录另有数据版本："
                     "[pitfalls.json]({root}pitfalls.json)。英文版：[llms.txt]({other}llms.txt)。",
            "start": "从这里开始", "script": "脚本", "other": "en",
        },
    },
}


def text(lang: str) -> dict:
    """The strings of ``lang`` (a Material language code such as ``zh``), English if unknown."""
    return TEXT.get(lang, TEXT["en"])


# --- MkDocs events (docs/hooks/translations.py, docs/hooks/cjk_linebreaks.py) ---------------

log = logging.getLogger("mkdocs.hooks.languages")
PAGE_SUFFIXES = {".md", ".ipynb"}

CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
JOIN = re.compile(rf"(?<=[{CJK}])[ \t]*\n[ \t]*(?=[{CJK}])|(?<=[\u3000-\u303f\uff00-\uffef])[ \t]*\n[ \t]*")
PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def on_files(files, config):
    """A page without its translation fails the strict build: each language is its own site,
    so MkDocs alone would never notice, and the language switch would land on the home page."""
    docs = Path(config.docs_dir)
    for file in files:
        if Path(file.src_uri).suffix not in PAGE_SUFFIXES:
            continue
        for lang in LANGS:
            twin = docs.parent / lang / file.src_uri
            if lang != docs.name and not twin.is_file():
                log.warning(f"docs/{docs.name}/{file.src_uri} has no translation: "
                            f"docs/{lang}/{file.src_uri} is missing")
    return files


def join_cjk_lines(html: str) -> str:
    """A line break inside a Chinese paragraph must not become a space: browsers show each kept
    break as one, right between English words and wrong between two Chinese characters
    ("张量，\\n手工" shows as "张量， 手工"). Outside <pre>, drop a newline whose neighbours are
    both CJK, or that follows CJK punctuation."""
    parts = PRE.split(html)
    return "".join(p if i % 2 else JOIN.sub("", p) for i, p in enumerate(parts))


def on_page_content(html, page, config, files):
    if config.theme["language"].startswith("zh"):
        return join_cjk_lines(html)
    return html

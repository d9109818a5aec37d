"""The version matrix: every page run on the torch versions readers use, and where each block's
behaviour differs from the pinned torch's.

Why: the site promises that every claim is code that ran, but the build runs one torch. A reader
on 2.4 or 2.14 needs to know which outputs they will see too, and which claims do not hold on
their torch. Running every page on other versions once, and keeping what differs as committed
data, lets every build show it without installing those versions again.

How: one environment per version (:data:`VERSIONS`), made once under ``.cache/fieldnotes-envs/``
(git-ignored; ``FIELDNOTES_ENVS`` moves it) with ``pip`` and this project's own pins as
constraints; each page runs through the one executor (:func:`fieldnotes.execute.run_page`) with
that environment's interpreter. The pinned version's run is the build's own (the results store,
or a run in this process). One data file per page, ``docs/matrix/<section>/<topic>.json``: a page
is what a reviewer reads and what a build shows, and shards of the work (``--shard i/N``, one per
CI job) write disjoint files, so results merge by copying. Each file records, per version, the
hash of the page's code (:func:`code_hash`) it ran: an entry whose code has changed since is
stale, and never shown (:func:`current`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mkdocs.utils.meta import get_data

from fieldnotes.blocks import Block, read_blocks
from fieldnotes.execute import run_page
from fieldnotes.results import PageRun
from fieldnotes.store import Store, default_folder, named_files, page_key

PINNED = "2.13.0"
"""The torch of requirements.txt: the build's own (a CPU wheel on this machine's disk)."""


@dataclass(frozen=True)
class Version:
    torch: str
    numpy: str | None  # None: the project's pin
    why: str


VERSIONS = [
    Version("2.4.1", "1.26.4", "the oldest readers still ask about; torch 2.4 needs numpy<2"),
    Version("2.6.0", None, "torch.load's weights_only default became True"),
    Version("2.9.1", None, "halfway between 2.6 and the pin"),
    Version(PINNED, None, "the pin: what the build runs"),
    Version("2.14.1", None, "the newest the package index serves here"),
]
ENV_PACKAGES = ["matplotlib", "psutil", "pytest", "pytest_codeblocks", "Markdown", "pymdown-extensions", "PyYAML"]
"""What a page interpreter imports besides torch and numpy (fieldnotes.runner, and the pages'
own imports), at the versions requirements.txt pins."""
DATA = Path("docs") / "matrix"


def envs_folder(root: Path) -> Path:
    return Path(os.environ.get("FIELDNOTES_ENVS") or root / ".cache" / "fieldnotes-envs")


def _pins(root: Path) -> dict[str, str]:
    pins = {}
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"([A-Za-z0-9_.\-\[\]]+)==([^\s#]+)", line)
        if m:
            pins[re.sub(r"\[.*\]", "", m[1]).lower().replace("_", "-")] = m[2]
    return pins


def environment(root: Path, version: Version, log=print) -> Path:
    """The interpreter of ``version``'s environment, made first if it is missing (minutes: a
    CUDA build of torch and its libraries, a few GB)."""
    if version.torch == PINNED:
        return Path(sys.executable)
    folder = envs_folder(root) / f"torch-{version.torch}"
    python = folder / "bin" / "python"
    done = folder / ".complete"
    if done.is_file():
        return python
    start = time.monotonic()
    log(f"torch {version.torch}: making {folder} (pip, once; a few minutes and a few GB)")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    pins = _pins(root)
    numpy = version.numpy or pins["numpy"]
    wanted = [f"torch=={version.torch}", f"numpy=={numpy}"] + \
        [f"{name}=={pins[name.lower().replace('_', '-')]}" for name in ENV_PACKAGES]
    # Everything else that pip pulls in at the versions requirements.txt pins (constraints), but
    # torch and numpy, and the packages that must follow this torch (its CUDA libraries, sympy ...).
    constraints = folder / "constraints.txt"
    constraints.write_text("".join(f"{name}=={v}\n" for name, v in pins.items()
                                   if name not in {"torch", "numpy", "sympy", "mpmath", "networkx",
                                                   "filelock", "fsspec", "jinja2", "markupsafe",
                                                   "typing-extensions", "pagefind", "pagefind-bin-extended"}),
                           encoding="utf-8")
    # FIELDNOTES_PIP_ARGS: extra pip options, e.g. a CPU wheel index on a CI runner (the workflow)
    extra = os.environ.get("FIELDNOTES_PIP_ARGS", "").split()
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *extra, *wanted,
                    "-c", str(constraints)], check=True)
    done.write_text(json.dumps({"packages": wanted, "seconds": round(time.monotonic() - start),
                                "bytes": _size(folder)}), encoding="utf-8")
    log(f"torch {version.torch}: ready in {time.monotonic() - start:.0f} s, {_size(folder) / 2**30:.1f} GiB")
    return python


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def code_hash(blocks: list[Block], root: Path) -> str:
    """What a matrix entry is valid for: the page's code and markers and the files it names (no
    torch, no device). A page and its translation share it."""
    what = {"blocks": [b.code_fields() for b in blocks], "files": named_files(blocks, root)}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def pages(root: Path) -> list[Path]:
    """The English pages with executed blocks (a translation has the same code and results), but
    those whose front matter says ``matrix: false``: their code does not depend on torch (the lint
    page runs the checker, which reads code), and a run on other versions would only go stale."""
    docs = root / "docs" / "en"
    return sorted(p for p in docs.rglob("*") if p.suffix in {".md", ".ipynb"} and read_blocks(p, root=root)
                  and (p.suffix != ".md" or get_data(p.read_text(encoding="utf-8"))[1].get("matrix", True)))


def shard(items: list, spec: str | None) -> list:
    """``i/N``: the i-th of N shares (1-based), every N-th item, so that shares are even."""
    if not spec:
        return items
    i, n = (int(x) for x in spec.split("/"))
    if not 1 <= i <= n:
        raise ValueError(f"--shard {spec}: want i/N with 1 <= i <= N")
    return items[i - 1::n]


def data_file(root: Path, page: Path) -> Path:
    rel = page.relative_to(root / "docs" / "en")
    return root / DATA / rel.with_suffix(".json")


def load(path: Path) -> dict:
    if not path.is_file():
        return {"versions": {}}
    return json.loads(path.read_text(encoding="utf-8"))


ENV_PACKAGES_PATH = re.compile(r"/[^\s\"'()]*?/torch-[\w.+]+/lib/python[\d.]+/site-packages/")


def portable(text: str | None) -> str | None:
    """An output without the path of this machine's environment (a warning names the torch file it
    comes from): ``/work/x/.cache/fieldnotes-envs/torch-2.4.1/lib/python3.11/site-packages/torch/...``
    becomes ``site-packages/torch/...``, so that the data, and the pages, do not depend on where the
    matrix ran."""
    return ENV_PACKAGES_PATH.sub("site-packages/", text) if text else text


def entry(run: PageRun, pinned: PageRun | None, blocks: list[Block], root: Path) -> dict:
    """One version's results for a page: per block, passed or not, and its output where it
    differs from the pinned run's (what a reader of that version sees instead)."""
    results = []
    for index, block in enumerate(blocks):
        mine = run.results[index] if index < len(run.results) else None
        base = pinned.results[index] if pinned and index < len(pinned.results) else None
        if mine is None:
            problem = run.problem if run.problem_block == index else None
            results.append({"status": "error" if problem else "not-run",
                            **({"error": problem.splitlines()[0]} if problem else {})})
            continue
        item = {"status": mine.status}
        if mine.status == "error":
            item["output"] = portable(mine.output)
            item["error"] = portable(mine.error)
        elif mine.status == "ok" and base is not None and base.status == "ok" and mine.output != base.output:
            item["output"] = portable(mine.output)
        results.append(item)
    env = run.env
    return {"code": code_hash(blocks, root), "device": env.device if env else "?",
            "python": env.python if env else "?", "torch": env.torch if env else "?",
            "date": datetime.date.today().isoformat(), "results": results}


def current(data: dict, blocks: list[Block], root: Path) -> dict[str, dict]:
    """The entries of ``data`` made from the page's code as it is now: version -> entry."""
    now = code_hash(blocks, root)
    return {v: e for v, e in data.get("versions", {}).items() if e.get("code") == now
            and len(e.get("results", [])) == len(blocks)}


def coverage(root: Path) -> tuple[list[str], str]:
    """The coverage table (Markdown lines) and a one-line summary: per page and version, how many
    blocks fail or print something else there, or "stale" when the page's code changed since."""
    rows, full = [], 0
    for page in pages(root):
        blocks = read_blocks(page, root=root)
        path = data_file(root, page)
        versions = current(json.loads(path.read_text(encoding="utf-8")), blocks, root) if path.is_file() else {}
        full += len(versions) >= len(VERSIONS)
        differ = {v: sum(r["status"] == "error" or "output" in r for r in e["results"]) for v, e in versions.items()}
        rows.append(f"| {page.relative_to(root / 'docs' / 'en').as_posix()} | "
                    + " | ".join(str(differ[v.torch]) if v.torch in differ else "stale" for v in VERSIONS) + " |")
    lines = ["# Version matrix coverage", "",
             "Blocks that fail or print something else on each version (current data only; "
             "stale: the page's code changed since that version's run).", "",
             "| page | " + " | ".join(v.torch for v in VERSIONS) + " |",
             "|---|" + "---|" * len(VERSIONS), *rows]
    return lines, f"version matrix: {full} of {len(rows)} pages current on all {len(VERSIONS)} versions"


def write_coverage(root: Path) -> str:
    """reports/matrix.md (committed): written by ``docs/site.py matrix`` runs, never by the tests."""
    lines, summary = coverage(root)
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "matrix.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return summary


def run(root: Path, versions: list[Version], only: list[Path] | None = None, shard_spec: str | None = None,
        log=print, workers: int = 2) -> int:
    """Run the pages (``only``, else all, then ``shard_spec``'s share) on each version and
    write their data files. Returns the number of pages written."""
    todo = shard(only or pages(root), shard_spec)
    store = Store(default_folder(root))
    pool = ThreadPoolExecutor(max_workers=workers)
    blocks = {page: read_blocks(page, root=root) for page in todo}

    def pinned(page: Path) -> PageRun:
        return store.get(page_key(blocks[page], root)) or run_page(blocks[page], root)

    base = dict(zip(todo, pool.map(pinned, todo)))  # the build's own runs: what the others differ from
    written = 0
    for version in versions:
        python = environment(root, version, log)
        start = time.monotonic()
        runs = {page: pool.submit(lambda p=page: base[p] if version.torch == PINNED else
                                  run_page(blocks[p], root, python=str(python), keep_going=True)) for page in todo}
        for number, page in enumerate(todo, 1):
            got = runs[page].result()
            path = data_file(root, page)
            data = load(path)
            data["page"] = page.relative_to(root / "docs" / "en").as_posix()
            data["versions"][version.torch] = entry(got, base[page], blocks[page], root)
            data["versions"] = dict(sorted(data["versions"].items(), key=lambda kv: version_key(kv[0])))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            written += 1
            failed = sum(r["status"] == "error" for r in data["versions"][version.torch]["results"])
            log(f"torch {version.torch}: {number}/{len(todo)} {data['page']}"
                f"{f' ({failed} block failed)' if failed else ''}")
        log(f"torch {version.torch}: {len(todo)} pages in {time.monotonic() - start:.0f} s")
    pool.shutdown()
    return written


def merge(root: Path, folders: list[Path]) -> int:
    """Merge data folders (the shards' ``docs/matrix`` of each version x shard job) into this
    tree's: per page, every version's entry, the newest run of a version winning. Returns the
    number of page files written."""
    merged: dict[str, dict] = {}
    for folder in [root / DATA, *folders]:
        for path in sorted(Path(folder).rglob("*.json")):
            rel = path.relative_to(folder).as_posix()
            data = json.loads(path.read_text(encoding="utf-8"))
            into = merged.setdefault(rel, {"page": data["page"], "versions": {}})
            for version, e in data["versions"].items():
                if version not in into["versions"] or e["date"] >= into["versions"][version]["date"]:
                    into["versions"][version] = e
    for rel, data in merged.items():
        data["versions"] = dict(sorted(data["versions"].items(), key=lambda kv: version_key(kv[0])))
        path = root / DATA / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return len(merged)


def version_key(v: str) -> tuple:
    """Sort key of a torch version ("2.4.1", "2.14.1+cu130"): numerically, the local part ignored."""
    return tuple(int(x) for x in re.findall(r"\d+", v.split("+")[0]))


# --- the changes page (docs/<lang>/versions.md; docs/hooks/versions.py) ----------------------

CHANGES_MARKER = "<!-- version-changes -->"
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.*?)\s*\{#(?P<id>[\w\-]+)\}\s*$")

CHANGES_TEXT = {
    "en": {"version": "torch {version}", "fails": "fails: ", "differs": "prints something else", "sep": ", ",
           "colon": ": ",
           "none": "Every block behaves as on torch {pinned}.", "checked": "Run on {device}.",
           "line": "block at line {line}", "not_run": "No page has been run on another torch version yet."},
    "zh": {"version": "torch {version}", "fails": "运行失败：", "differs": "输出不同", "sep": "，", "colon": "：",
           "none": "每段代码的结果都与 torch {pinned} 相同。", "checked": "运行环境：{device}。",
           "line": "第 {line} 行的代码", "not_run": "还没有页面在其他 torch 版本上运行过。"},
}


def _anchors(source: str) -> list[tuple[int, str, str]]:
    """(line, id, title) of every heading below the page's title with an explicit id; a
    subsection's title names its section too ("`weights_only` › On by default")."""
    found, parents = [], {}
    for number, line in enumerate(source.splitlines(), 1):
        m = HEADING.match(line)
        if m and len(m["level"]) > 1:
            level = len(m["level"])
            parents = {k: v for k, v in parents.items() if k < level}
            title = " › ".join([*(parents[k] for k in sorted(parents)), m["title"]])
            parents[level] = m["title"]
            found.append((number, m["id"], title))
    return found


def render_changes(root: Path, lang: str) -> str:
    """Markdown: per torch version, every block of every page that fails or prints something
    else there, linked to its section, from the data files' current entries."""
    t = CHANGES_TEXT.get(lang, CHANGES_TEXT["en"])
    docs = root / "docs" / lang
    by_version: dict[str, list[str]] = {}
    devices: dict[str, set] = {}
    for path in sorted((root / DATA).rglob("*.json")):
        rel = path.relative_to(root / DATA)
        page = next((docs / rel.with_suffix(s) for s in (".md", ".ipynb") if (docs / rel.with_suffix(s)).is_file()),
                    None)
        if page is None:
            continue
        blocks = read_blocks(page, root=root)
        source = page.read_text(encoding="utf-8") if page.suffix == ".md" else ""
        anchors = _anchors(source)
        title = next((line[2:].split("{#")[0].strip() for line in source.splitlines() if line.startswith("# ")),
                     rel.stem)
        for version, e in current(load(path), blocks, root).items():
            if version == PINNED:
                continue
            devices.setdefault(version, set()).add(f"{e['device']}, {e['date']}")
            items = by_version.setdefault(version, [])
            for block, r in zip(blocks, e["results"]):
                if r["status"] != "error" and "output" not in r:
                    continue
                before = [a for a in anchors if a[0] < block.lineno]
                anchor, section = (before[-1][1], before[-1][2]) if before else ("", title)
                link = f"{page.relative_to(docs).as_posix()}" + (f"#{anchor}" if anchor else "")
                what = t["fails"] + "`" + _first_line(r.get("error", "")).replace("`", "'") + "`" \
                    if r["status"] == "error" else t["differs"]
                name = title if section == title else f"{title}{t['colon']}{section}"
                items.append(f"- [{name}]({link}){t['sep']}{t['line'].format(line=block.lineno)}{t['colon']}{what}")
    if not by_version:
        return t["not_run"]
    out = []
    for version in sorted(by_version, key=version_key):
        out += [f"## {t['version'].format(version=version)} {{#torch-{version.replace('.', '-')}}}", "",
                t["checked"].format(device="; ".join(sorted(devices[version]))), ""]
        out += by_version[version] or [t["none"].format(pinned=PINNED)]
        out.append("")
    return "\n".join(out)


def _first_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line[:160] + ("…" if len(line) > 160 else "")


def on_page_markdown(markdown, page, config, files):
    """MkDocs event (docs/hooks/versions.py): the changes page's list, from the data."""
    if CHANGES_MARKER not in markdown:
        return markdown
    root = Path(config.config_file_path).resolve().parent
    return markdown.replace(CHANGES_MARKER, render_changes(root, config.theme["language"]))


# --- recorded GPU runs -------------------------------------------------------------------------


def record_gpu(root: Path, only: list[Path] | None = None, log=print) -> int:
    """On a machine with CUDA: run every page that has GPU-marked blocks (all its blocks, CPU
    ones too) and keep the run in its data file under ``recordings``, keyed by the GPU, with
    torch, CUDA, the date and the page's code hash. A CPU build then shows each GPU block's
    recorded output, labelled as recorded, while the code is unchanged (:func:`recording`)."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("record-gpu needs CUDA: torch.cuda.is_available() is False on this machine")
    todo = [p for p in (only or pages(root)) if any(b.gpu for b in read_blocks(p, root=root))]
    for number, page in enumerate(todo, 1):
        blocks = read_blocks(page, root=root)
        got = run_page(blocks, root, keep_going=True)
        path = data_file(root, page)
        data = load(path)
        data["page"] = page.relative_to(root / "docs" / "en").as_posix()
        device = got.env.device if got.env else torch.cuda.get_device_name(0)
        data.setdefault("recordings", {})[device] = {
            "code": code_hash(blocks, root), "device": device, "torch": got.env.torch if got.env else "?",
            "cuda": torch.version.cuda, "date": datetime.date.today().isoformat(),
            "results": [{"status": r.status, "output": r.output, **({"error": r.error} if r.error else {})}
                        for r in got.results]}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log(f"recorded {number}/{len(todo)} {data['page']} on {device}")
    return len(todo)


def recording(data: dict, blocks: list[Block], root: Path) -> dict | None:
    """The newest GPU recording of the page made from its code as it is now, else None."""
    now = code_hash(blocks, root)
    found = [e for e in data.get("recordings", {}).values()
             if e.get("code") == now and len(e.get("results", [])) == len(blocks)]
    return max(found, key=lambda e: e["date"]) if found else None

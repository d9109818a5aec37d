"""Build both languages of the site, or build them and serve the result on 127.0.0.1.

    python docs/site.py build [--out site]      # strict build of en and zh, in parallel
    python docs/site.py serve [--port 8000]     # build, then serve http://127.0.0.1:8000/
    python docs/site.py build --fresh           # run every page again, ignoring stored runs
    python docs/site.py build --no-exec         # run nothing: prose only, no outputs
    python docs/site.py check PAGE...           # one page in both languages: parity, pitfalls, links, its code
    python docs/site.py new SECTION/TOPIC       # a new page in both languages, with its nav lines
    python docs/site.py sync PAGE               # the other language's code, ids and pitfall fields from PAGE
    python docs/site.py repeat PAGE --times 5 --load 2   # same output on every run, also when busy?
    python docs/site.py matrix [--torch 2.4.1,2.14.1] [--shard 1/4] [PAGE ...]   # other torch versions

Each language is its own MkDocs site (mkdocs.yml, mkdocs.zh.yml) built into site/<lang>/;
site/index.html sends a reader to the language of their browser. Pages whose code, included
files, torch and device are unchanged reuse their stored run (.cache/fieldnotes/, see
fieldnotes.store); the languages share runs. To preview one language with live reload
instead: ``mkdocs serve --dirty`` or ``mkdocs serve --dirty -f mkdocs.zh.yml`` (a save rebuilds only
the pages it changed, fieldnotes.preview; it reuses the store too).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import subprocess
import sys
import re
import tempfile
import threading
from pathlib import Path

from fieldnotes.languages import CONFIGS
from fieldnotes.progress import Console
from fieldnotes.runs import BUILD_RUNS

ROOT = Path(__file__).resolve().parents[1]
PROGRESS = re.compile(r"code: (running|ran|reused|failed) ")  # fieldnotes.runs' progress lines

LANDING = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PyTorch Field Notes · PyTorch 实战笔记</title>
<script>
  var zh = (navigator.languages || [navigator.language || ""]).some(function (l) {
    return l.toLowerCase().indexOf("zh") === 0;
  });
  location.replace(zh ? "zh/" : "en/");
</script>
</head>
<body>
<p><a href="en/" hreflang="en">PyTorch Field Notes (English)</a></p>
<p><a href="zh/" hreflang="zh">PyTorch 实战笔记（中文）</a></p>
</body>
</html>
"""


def build(out: Path, base_url: str | None, fresh: bool = False, execute: bool = True) -> int:
    """Build every language into ``out/<lang>`` in parallel; return the worst exit status."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", FIELDNOTES_FRESH="1" if fresh else "0",
               FIELDNOTES_EXECUTE="1" if execute else "0")
    # The languages' builds share this build's runs (a test session's, if one started it).
    shared_runs = None if BUILD_RUNS in env else tempfile.TemporaryDirectory(prefix="fieldnotes-runs-")
    if shared_runs:
        env[BUILD_RUNS] = shared_runs.name
    if base_url:
        base = base_url.rstrip("/") + "/"
        env.update(SITE_URL_EN=base + "en/", SITE_URL_ZH=base + "zh/")
    runs = {
        lang: subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config,
             "--site-dir", str(out.resolve() / lang)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        for lang, config in CONFIGS.items()
    }
    console = Console()

    def relay(lang: str, stream) -> None:  # each line as it comes; page progress as the live line
        for line in stream:
            text = f"[{lang}] {line.rstrip()}"
            (console.status if PROGRESS.search(line) else console.line)(text)

    readers = [threading.Thread(target=relay, args=(lang, run.stdout)) for lang, run in runs.items()]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    status = 0
    for run in runs.values():
        status = status or run.wait()
    console.close()
    if shared_runs:
        shared_runs.cleanup()
    (out / "index.html").write_text(LANDING, encoding="utf-8")
    print("build failed" if status else f"built {', '.join(CONFIGS)} into {out}")
    return status


def serve(out: Path, port: int) -> None:
    from fieldnotes.downloads import MEDIA_TYPES

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MEDIA_TYPES}

    handler = functools.partial(Handler, directory=str(out))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"Serving http://127.0.0.1:{port}/en/ and http://127.0.0.1:{port}/zh/ (Ctrl+C stops)")
        server.serve_forever()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "serve", "check", "new", "sync", "repeat", "matrix"])
    parser.add_argument("pages", nargs="*", type=Path,
                        help="check, sync: pages (docs/en/x/y.md, docs/zh/x/y.md or x/y); new: SECTION/TOPIC; "
                             "repeat: the pages to run again and again; matrix: the pages (default: all)")
    parser.add_argument("--title", help="new: the English page title (default: from the topic's name)")
    parser.add_argument("--title-zh", help="new: the Chinese page title (default: the English one, to translate)")
    parser.add_argument("--torch", metavar="V[,V...]", type=lambda s: [v for v in s.split(",") if v],
                        help="matrix: these versions, comma-separated (default: all)")
    parser.add_argument("--shard", metavar="I/N", help="matrix: the I-th of N shares of the pages")
    parser.add_argument("--record-gpu", action="store_true",
                        help="matrix: on a CUDA machine, record the pages with GPU blocks into docs/matrix")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="DIR",
                        help="matrix: merge these data folders (the CI jobs' docs/matrix) into docs/matrix")
    parser.add_argument("--times", type=int, default=5, help="repeat: runs of each page")
    parser.add_argument("--load", type=int, default=2, help="repeat: CPU-bound processes kept busy meanwhile")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--base-url", default=os.environ.get("SITE_URL"),
                        help="public URL of the site root (default: http://127.0.0.1:PORT/)")
    parser.add_argument("--fresh", action="store_true",
                        help="run every page's code again instead of reusing stored runs")
    parser.add_argument("--no-exec", action="store_true",
                        help="run no code at all (pages show no outputs): to check prose quickly")
    args = parser.parse_intermixed_args()
    if args.command == "check":
        from fieldnotes import check

        if not args.pages:
            parser.error("check needs at least one page, e.g. docs/en/nn/dropout.md or nn/dropout")
        return check.main(ROOT, [str(p) for p in args.pages], fresh=args.fresh, execute=not args.no_exec)
    if args.command == "new":
        from fieldnotes import scaffold

        if len(args.pages) != 1:
            parser.error("new takes one SECTION/TOPIC, e.g. nn/interpolate")
        return scaffold.main(ROOT, str(args.pages[0]), args.title, args.title_zh)
    if args.command == "sync":
        from fieldnotes import sync

        if len(args.pages) != 1:
            parser.error("sync takes the one page you edited, e.g. docs/en/nn/dropout.md")
        return sync.main(ROOT, args.pages[0])
    not_pages = [str(p) for p in args.pages if p.suffix not in (".md", ".ipynb") or not p.is_file()]
    if not_pages:
        parser.error(f"not a page file: {', '.join(not_pages)} (give pages such as docs/en/nn/dropout.md)")
    if args.command == "matrix":
        from fieldnotes import matrix

        versions = [v for v in matrix.VERSIONS if not args.torch or v.torch in args.torch]
        unknown = set(args.torch or []) - {v.torch for v in versions}
        if unknown:
            parser.error(f"--torch {' '.join(sorted(unknown))}: not in the matrix "
                         f"({', '.join(v.torch for v in matrix.VERSIONS)}; fieldnotes.matrix.VERSIONS)")
        if args.record_gpu:
            matrix.record_gpu(ROOT, [p.resolve() for p in args.pages] or None, log=lambda line: print(line, flush=True))
            return 0
        if args.merge:
            print(f"merged {matrix.merge(ROOT, args.merge)} page files into {matrix.DATA}")
            print(f"{matrix.write_coverage(ROOT)} (reports/matrix.md)")
            return 0
        only = [p.resolve() for p in args.pages] or None
        matrix.run(ROOT, versions, only, args.shard, log=lambda line: print(line, flush=True))
        print(f"{matrix.write_coverage(ROOT)} (reports/matrix.md)")
        return 0
    if args.command == "repeat":
        from fieldnotes.steadiness import repeat

        if not args.pages:
            parser.error("repeat needs at least one page, e.g. docs/en/distributed/ddp.md")
        return max(repeat(page.resolve(), args.times, args.load, report=lambda line: print(line, flush=True))
                   for page in args.pages)
    base_url = args.base_url or f"http://127.0.0.1:{args.port}/"
    status = build(args.out, base_url, fresh=args.fresh, execute=not args.no_exec)
    if status or args.command == "build":
        return status
    serve(args.out, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())

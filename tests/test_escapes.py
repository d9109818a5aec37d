"""No code escapes (fieldnotes.escapes): every form of code block the Markdown extensions render
is run and tested, or refused by the strict build naming the page and line, or display-only.

One page holds each form once, each printing its own word; the build and pytest run on it. A
form is *run* when pytest runs a block printing its word (and the build shows that output), and
*refused* when the build names its line."""

from __future__ import annotations

import re
import sys

import pytest

from sitebuild import make_project, run_together

FORMS = {  # name -> (Markdown, what must happen: "run", "refused" or "shown")
    "fence": ("```python\nprint('w-fence')\n```", "run"),
    "four-backticks": ("````python\nprint('w-four-backticks')\n````", "run"),
    "list": ("- a step:\n\n    ```python\n    print('w-list')\n    ```", "run"),
    "admonition": ("!!! note\n\n    ```python\n    print('w-admonition')\n    ```", "run"),
    "details": ("??? note \"More\"\n\n    ```python\n    print('w-details')\n    ```", "run"),
    "tabs": ("=== \"One\"\n\n    ```python\n    print('w-tabs')\n    ```\n\n=== \"Two\"\n\n    Text.", "run"),
    "nested": ("!!! note\n\n    - in a list in a note:\n\n        ```python\n        print('w-nested')\n        ```", "run"),
    "bash": ("```bash\necho w-bash\n```", "run"),
    "tildes": ("~~~python\nprint('w-tildes')\n~~~", "refused"),
    "tildes-in-note": ("!!! note\n\n    ~~~python\n    print('w-tildes-in-note')\n    ~~~", "refused"),
    "indented": ("Some text.\n\n    print('w-indented')", "refused"),
    "raw-html": ("<pre><code>print('w-raw-html')</code></pre>", "refused"),
    "text": ("```text\nw-text as it is\n```", "shown"),
}


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    """The page (one form per section, the line each starts on), its strict build and its pytest run."""
    parts, lines, at = ["# Forms", ""], {}, 3
    for name, (markdown, _) in FORMS.items():
        parts += [f"## {name}", "", markdown, ""]
        lines[name] = at + 2
        at += 4 + markdown.count("\n")
    page = "\n".join(parts)
    project = make_project(tmp_path_factory.mktemp("forms"), {"forms.md": page})
    build, tests = run_together([
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"],
        ["env", "FIELDNOTES_STORE=.cache/tests-store", sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         "-v", "docs/en/forms.md"],
    ], project)
    return page, lines, build, tests


def test_the_page_lists_each_form_where_it_starts(forms):
    page, lines, _, _ = forms
    rows = page.splitlines()
    for name, (markdown, _) in FORMS.items():
        assert rows[lines[name] - 1] == markdown.splitlines()[0], name


@pytest.mark.parametrize("name", FORMS)
def test_every_form_is_run_or_refused_naming_its_line_or_display_only(forms, name):
    page, lines, (status, log, _), (_, pytest_log, _) = forms
    expected = FORMS[name][1]
    word = f"w-{name}"
    refused = re.findall(rf"docs/en/forms\.md:(\d+): this renders as code but neither runs nor is display-only"
                         rf"[^\n]*{re.escape(word)}", log)
    assert status != 0, "the build refuses the page"
    if expected == "run":
        assert not refused, log[-3000:]
        code_line = lines[name] + page.splitlines()[lines[name] - 1:].index(
            next(row for row in page.splitlines()[lines[name] - 1:] if word in row))
        items = re.findall(r"docs/en/forms\.md::line (\d+) PASSED", pytest_log)
        assert any(lines[name] <= int(n) < code_line + 1 for n in items), \
            f"{name}: no passing pytest item between lines {lines[name]} and {code_line}:\n{pytest_log[-3000:]}"
    elif expected == "refused":
        assert refused, f"{name}: the build does not name it:\n{log[-3000:]}"
        first = next(n for n, row in enumerate(page.splitlines(), 1) if word in row)
        assert int(refused[0]) in (first, first - 1, lines[name]), (name, refused, first)
    else:
        assert word not in " ".join(re.findall(r"renders as code[^\n]*", log)), log[-3000:]

"""How each torch version words a pitfall's error (fieldnotes.wordings), and the card that lists them."""

from __future__ import annotations

from fieldnotes.blocks import Block
from fieldnotes.pitfalls import Pitfall, render_section
from fieldnotes.wordings import LIMIT, Wording, for_block, message, refused

BLOCK = Block(page="docs/en/p.md", lineno=10, end=13, indent="", syntax="python", code="nn.GroupNorm(3, 4)",
              raises="ValueError", match="divisible")


def test_the_message_is_the_last_error_line_after_what_the_block_printed():
    printed = "before\nValueError: a line the block printed itself\n"
    assert message(printed + "ValueError: num_channels (4) must be\ndivisible by num_groups (3)\n",
                   "ValueError") == "ValueError: num_channels (4) must be divisible by num_groups (3)"
    assert message("torch.OutOfMemoryError: no room\n", "RuntimeError") == "torch.OutOfMemoryError: no room"
    assert message("Unsupported: print\n", "Unsupported") == "Unsupported: print"  # the block's own type
    assert message("nothing raised here\n", "ValueError") is None
    assert message("", "ValueError") is None and message(None, "ValueError") is None
    long = message("ValueError: " + "x" * 1000, "ValueError")
    assert len(long) == LIMIT + 1 and long.endswith("…")


def test_a_refused_message_is_what_the_block_raised():
    assert refused("ValueError: num_channels must be divisible by num_groups does not match 'num_channels \\\\(4\\\\)'") \
        == "ValueError: num_channels must be divisible by num_groups"
    assert refused("expected ValueError, but the block ran without raising it (the claim no longer holds)") is None
    assert refused(None) is None


def versions(*results: dict) -> dict[str, dict]:
    return {v: {"results": [r]} for v, r in zip(("2.4.1", "2.6.0", "2.9.1", "2.13.0"), results)}


def test_each_wording_with_the_versions_that_print_it_oldest_first():
    new = "ValueError: num_channels (4) must be divisible by num_groups (3)\n"
    found = for_block(0, BLOCK, new, "2.13.0+cpu", versions(
        {"status": "ok", "output": "ValueError: num_channels must be divisible by num_groups (old)\n"},
        {"status": "error", "output": "", "error": "ValueError: num_channels must be divisible by num_groups (old) "
                                                    "does not match 'x'"},
        {"status": "ok"},  # the same output as the pinned run, which is this build's
        {"status": "ok"}), "2.13.0")
    assert found == [Wording(("2.4.1", "2.6.0"), "ValueError: num_channels must be divisible by num_groups (old)"),
                     Wording(("2.9.1", "2.13.0"), new.strip())]


def test_one_wording_everywhere_a_version_without_the_error_and_a_bash_block_give_none():
    same = "ValueError: num_channels (4) must be divisible by num_groups (3)\n"
    assert for_block(0, BLOCK, same, "2.13.0", versions({"status": "ok"}, {"status": "ok"}), "2.13.0") == []
    gone = {"status": "error", "output": "", "error": "expected ValueError, but the block ran without raising it"}
    assert for_block(0, BLOCK, same, "2.13.0", versions(gone, {"status": "ok"}), "2.13.0") == []
    bash = Block(page="docs/en/p.md", lineno=10, end=13, indent="", syntax="bash", code="false", raises="SystemExit")
    assert for_block(0, bash, "a\n", "2.13.0", versions({"status": "ok", "output": "b\n"}), "2.13.0") == []
    # a build on another torch than the pinned one cannot know what "same as the pinned run" printed
    assert for_block(0, BLOCK, same, "2.14.1", versions({"status": "ok"}), "2.13.0") == []


def test_the_card_lists_each_wording_in_a_code_span_whatever_it_holds():
    pitfall = Pitfall(id="p-one", apis=["nn.GroupNorm"], severity="medium", gpu=False, proof=["s"], fixed="advice",
                      symptom="`ValueError`", cause="c", fix="f", page="p.md")
    worded = {"p-one": [[Wording(("2.4.1",), "ValueError: `x` must be"), Wording(("2.6.0", "2.13.0"), "ValueError: y")]]}
    for lang, title in (("en", "The error, as each torch version words it"), ("zh", "各 torch 版本的报错原文")):
        section = render_section([pitfall], lang, where={"p-one": (["2.4.1", "2.6.0", "2.13.0"], [])}, worded=worded)
        assert f"**{title}**" in section
        assert "- torch 2.4.1" in section and "``ValueError: `x` must be``" in section
        assert "`ValueError: y`" in section
    assert "each torch version" not in render_section([pitfall], "en")


def test_every_built_card_lists_the_wordings_the_matrix_holds(built_site):
    """Computed, never typed: each pitfall's errors in pitfalls.json (from the runs) are on its card,
    the section between its heading and the next; and there are some, in both languages."""
    import json
    import re
    from html import unescape

    for lang in ("en", "zh"):
        catalogue = json.loads((built_site.path / lang / "pitfalls.json").read_text(encoding="utf-8"))
        worded = [p for p in catalogue["pitfalls"] if p["errors"]]
        assert len(worded) >= 20, f"{lang}: only {len(worded)} pitfalls with wordings"
        for p in worded:
            page, _, anchor = p["path"].partition("#")
            html = (built_site.path / lang / page / "index.html").read_text(encoding="utf-8")
            start = html.index(f'id="{anchor}"')
            card = html[start:html.find("<h3", start + 1) if "<h3" in html[start + 1:] else len(html)]
            text = " ".join(unescape(re.sub(r"<[^>]+>", "", card)).split())
            for wording in p["errors"]:
                for w in wording:
                    assert w["message"] in text, f"{lang}/{page}#{anchor}: {w['message']!r} not on the card"
                    assert "torch " + w["torch"][0] in text, f"{lang}/{page}#{anchor}: {w['torch']}"

"""Every page exists in both languages with the same code, markers, anchors and nav place.

The checks are :mod:`fieldnotes.parity` (``docs/site.py check PAGE`` runs them for one page).
"""

from __future__ import annotations

from pathlib import Path

from fieldnotes import nav, parity

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_in_both_languages_with_same_code_anchors_and_nav_place():
    problems = parity.problems(ROOT / "docs", parity.configs_of(ROOT))
    assert not problems, "\n".join(problems)


def test_both_navs_list_the_same_pages_in_the_same_order():
    configs = parity.configs_of(ROOT)
    assert [e.path for e in nav.entries(configs["en"])] == [e.path for e in nav.entries(configs["zh"])]

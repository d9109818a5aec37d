"""The pitfall catalogue as data (issue 23): ``pitfalls.json`` at each language's root matches its
JSON Schema (docs/pitfalls.schema.json) and the pages, and the pitfall index links to it."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import jsonschema
import pytest

from fieldnotes.languages import LANGS
from sitebuild import ROOT, soup
from test_pitfalls import site_pitfalls

SCHEMA = json.loads((ROOT / "docs" / "pitfalls.schema.json").read_text(encoding="utf-8"))


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_schema_refuses_a_wrong_entry():
    entry = {"id": "Bad Id", "url": "u", "path": "x/#y", "topic": "t", "page_title": "p", "apis": [],
             "severity": "critical", "gpu": "no", "symptom": "", "cause": "c", "fix": "f",
             "ran_in_this_build": True, "holds_on": {"torch": [], "device": "CPU"}, "fails_on": {"torch": []}}
    data = {"$schema": "pitfalls.schema.json", "language": "en", "site": "s", "torch": "2", "device": "CPU",
            "count": 1, "pitfalls": [entry]}
    errors = {e.path[-1] for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(data)}
    assert {"id", "apis", "severity", "gpu", "symptom"} <= errors, errors


@pytest.mark.parametrize("lang", LANGS)
def test_pitfalls_json_matches_the_schema_and_the_pages(built_site, lang):
    site = built_site.path / lang
    data = json.loads((site / "pitfalls.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, SCHEMA)
    assert json.loads((site / "pitfalls.schema.json").read_text(encoding="utf-8")) == SCHEMA
    expected = {p.id: p for ps in site_pitfalls(lang).values() for p in ps}
    assert sorted(item["id"] for item in data["pitfalls"]) == sorted(expected) and data["count"] == len(expected)
    for item in data["pitfalls"]:
        p = expected[item["id"]]
        assert (item["apis"], item["severity"], item["gpu"], item["symptom"]) == (p.apis, p.severity, p.gpu,
                                                                                p.symptom.strip()), item["id"]
        page, _, anchor = item["path"].partition("#")
        html = site / page / "index.html"
        assert soup(html).find(id=anchor) is not None, f"{item['path']}: no such anchor in {html}"
        assert item["url"].endswith("/" + item["path"])
        assert item["holds_on"]["torch"] or not item["ran_in_this_build"], item["id"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_pitfall_index_links_to_the_catalogue_and_its_schema(built_site, lang):
    page = built_site.path / lang / "pitfalls" / "index.html"
    links = {a["href"] for a in soup(page).select(".fn-catalogue a")}
    assert len(links) == 2, links
    for href in links:
        target = urlsplit(urljoin(f"http://x/{lang}/pitfalls/", href)).path.lstrip("/")
        assert (built_site.path / target).is_file(), f"{href} from {lang}/pitfalls/ -> {target}: missing"

"""How each torch version words a pitfall's error: computed from the runs, never typed.

Why: readers paste the message their torch printed. A pitfall's symptom quotes one wording (the
torch the page was written on), while the version matrix (fieldnotes.matrix) holds what the
same proof code raised on every other version. When the wordings differ, the pitfall's card
lists each with the versions that print it, so a reader on torch 2.4 recognises the message, and
the search index, which indexes the card, finds the pitfall by any of them.

Where a message comes from, per raising Python block of the pitfall's proof sections:

- this build's torch: the block's output in the page's run (``Type: message`` after what the
  block printed, fieldnotes.runner);
- a matrix version whose block passed: its output where it differs from the pinned run's, else
  the pinned run's (the data keeps only what differs);
- a matrix version whose block raised a message its ``match`` refused: the message it raised
  (the card already says the pitfall's code fails there; the wording is still what readers see).

Bash blocks (their output is a command's, not one message) and versions where the block raised
nothing are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fieldnotes.blocks import Block
from fieldnotes.matrix import version_key

LIMIT = 400
"""Characters of a message shown: a message that quotes a whole tensor is cut, with an ellipsis."""

_HEAD = r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)|{raises}): "
"""The first line of a raised error: a type named like an exception, or the block's own ``raises``."""
_REFUSED = re.compile(r"^(?P<shown>.*) does not match (?P<pattern>'.*'|\".*\")$", re.S)


@dataclass(frozen=True)
class Wording:
    """One wording of a block's error and the torch versions that print it, oldest first."""

    versions: tuple[str, ...]
    message: str


def message(output: str | None, raises: str | None) -> str | None:
    """The ``Type: message`` a raising block's output ends with (what was printed before it cut
    off), its lines joined; None when the output holds none."""
    if not output:
        return None
    head = re.compile(_HEAD.format(raises=re.escape(raises or "Error")), re.M)
    starts = [m.start() for m in head.finditer(output)]
    if not starts:
        return None
    text = " ".join(output[starts[-1]:].split())
    return text[:LIMIT] + ("…" if len(text) > LIMIT else "")


def refused(error: str | None) -> str | None:
    """The message a block raised that its ``match`` pattern refused (``<shown> does not match '...'``)."""
    m = _REFUSED.match(error or "")
    if not m:
        return None
    text = " ".join(m["shown"].split())
    return text[:LIMIT] + ("…" if len(text) > LIMIT else "")


def for_block(index: int, block: Block, output: str | None, torch: str, versions: dict[str, dict],
              pinned: str) -> list[Wording]:
    """Each wording of block ``index``'s error and the versions that print it (this build's
    ``torch`` with its ``output``, and the matrix's ``versions``), only when there are two or
    more; [] otherwise, or when the block is not a raising Python block."""
    if not block.raises or block.syntax != "python" or block.file is not None:
        return []
    by_version: dict[str, str] = {}
    mine = message(output, block.raises)
    if mine:
        by_version[torch.split("+")[0]] = mine
    same_as_pinned = mine if torch.split("+")[0] == pinned else None  # the data keeps what differs from it
    for version, entry in versions.items():
        results = entry.get("results", [])
        if index >= len(results):
            continue
        r = results[index]
        if r.get("status") == "ok":
            said = message(r["output"], block.raises) if "output" in r else same_as_pinned
        elif r.get("status") == "error":
            said = refused(r.get("error"))
        else:
            said = None
        if said:
            by_version[version.split("+")[0]] = said
    groups: dict[str, list[str]] = {}
    for version in sorted(by_version, key=version_key):
        groups.setdefault(by_version[version], []).append(version)
    if len(groups) < 2:
        return []
    return [Wording(tuple(vs), text) for text, vs in groups.items()]


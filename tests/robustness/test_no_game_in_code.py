"""Rules are data: no castle, cathedral, area, card or ruleset name of the bundled games, and no rule id,
appears in the package's code (its string literals and names; comments and docstrings may cite them)."""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

from conftest import ROOT

PKG = ROOT / "rebirth_dsl"


def game_names() -> set[str]:
    """Names the data files own: landmark and area names, ruleset names and card names."""
    out: set[str] = set()
    for board in (ROOT / "boards").rglob("*.json"):
        for h in json.loads(board.read_text())["hexes"]:
            out.update(x for x in (h.get("name"), h.get("area")) if x)
    for rules in (ROOT / "rules").rglob("*.rules"):
        text = rules.read_text()
        out.update(re.findall(r'card "([^"]+)"', text))
        out.update(re.findall(r"^ruleset (\w+)", text, re.M))
    return out


def code_tokens(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal and name that is not a docstring."""
    out = []
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.STRING:
            is_doc = prev in (None, tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT) and tok.string[-3:] in ('"""', "'''")
            if not is_doc:
                out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.NAME:
            out.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return out


def offences(pkg: Path, names: set[str]) -> list[str]:
    """Every place in code where a game name or a rule id (S-…, I-…) stands."""
    rule_id = re.compile(r"\b[SI]-[A-Z]{0,3}[0-9]+\b")
    words = {n.lower() for n in names}
    found = []
    for path in sorted(pkg.rglob("*.py")):
        for line, text in code_tokens(path):
            low = text.lower()
            hit = [n for n in words if re.search(rf"(?<![a-z]){re.escape(n)}(?![a-z])", low)]
            if hit or rule_id.search(text):
                found.append(f"{path.relative_to(pkg.parent)}:{line}: {text[:60]}")
    return found


def test_no_game_name_or_rule_id_in_code() -> None:
    """The package's code names nothing of Scotland or Ireland: the rules and board files own it all."""
    names = game_names()
    assert len(names) > 40  # castles, cathedrals, areas, cards, rulesets
    assert offences(PKG, names) == []


def test_the_check_finds_a_planted_name(tmp_path: Path) -> None:
    """The check can fail: a castle name in a string and a rule id in an f-string are found."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text('"""Stirling is fine in a docstring."""\nX = "Stirling"\ny = f"({1}) S-K4"\n')
    found = offences(pkg, {"Stirling"})
    assert len(found) == 2 and "m.py:2" in found[0] and "m.py:3" in found[1]

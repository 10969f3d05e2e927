"""A variant author's first steps from an empty folder of their own (issue 22, item 7 and the acceptance):
`rebirth new variant hills --extends scotland`, `rebirth check hills.rules`, `rebirth fmt --check`,
`rebirth test hills.tests`, `rebirth play --rules hills.rules`, as separate processes whose current folder is not the checkout, with no path into the
installation on any command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "author"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(ROOT.resolve())
    return folder


def rebirth(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`rebirth ARGS` in `folder`, as an installed command would run there (the package importable, nothing
    else of the checkout reachable by a relative path)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "rebirth_dsl", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)


def test_new_variant_checks_clean_and_plays_from_an_empty_folder(empty: Path) -> None:
    made = rebirth(empty, "new", "variant", "hills", "--extends", "scotland")
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in empty.iterdir()) == ["hills.rules", "hills.tests"]
    text = (empty / "hills.rules").read_text()
    assert 'extends "scotland"' in text and "\nboard scotland" in text
    assert str(ROOT) not in text  # no path into the installation
    checked = rebirth(empty, "check", "hills.rules")
    assert checked.returncode == 0 and "hills.rules: ok" in checked.stdout, checked.stderr
    assert "warning:" not in checked.stderr  # none of its own; its base's are named in a note
    assert rebirth(empty, "fmt", "--check").returncode == 0  # written as the formatter lays it out
    tested = rebirth(empty, "test", "hills.tests")
    # Scotland's 50 reference positions (rules/scotland.tests), against a variant that changes nothing yet
    assert tested.returncode == 0 and tested.stdout.strip() == "hills.tests: 50 positions passed", tested.stderr
    played = rebirth(empty, "play", "--rules", "hills.rules", "--players", "2", "--agents", "random,random",
                     "--seed", "1", "-o", "game.json", "--quiet")
    assert played.returncode == 0, played.stderr
    record = json.loads((empty / "game.json").read_text())
    assert record["moves"], record
    again = rebirth(empty, "eval", "game.json")
    assert again.returncode == 0, again.stderr


def test_an_edited_starter_changes_the_game(empty: Path) -> None:
    """Uncommenting the starter's double-farms line is a variant that checks clean and scores differently."""
    assert rebirth(empty, "new", "variant", "hills").returncode == 0
    text = (empty / "hills.rules").read_text()
    # the record names its rules file, and eval reads it again: the edit goes to a file of its own
    (empty / "doubled.rules").write_text(text.replace("# on place food, energy: score 2 *",
                                                      "on place food, energy: score 2 *"))
    assert rebirth(empty, "check", "doubled.rules").returncode == 0
    # the base's positions against it: those that score a farm fail, at their expectation, saying by how much
    (empty / "doubled.tests").write_text((empty / "hills.tests").read_text().replace('"hills.rules"',
                                                                                   '"doubled.rules"'))
    tested = rebirth(empty, "test", "doubled.tests")
    assert tested.returncode == 1 and "positions failed" in tested.stdout + tested.stderr
    assert "expected farms 1, got 2" in tested.stderr, tested.stderr
    runs = [rebirth(empty, "play", "--rules", f, "--players", "2", "--agents", "random,random", "--seed", "2",
                    "-o", out, "--quiet") for f, out in (("hills.rules", "a.json"), ("doubled.rules", "b.json"))]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    scores = [rebirth(empty, "eval", f, "--json") for f in ("a.json", "b.json")]
    farms = [{p["name"]: p["breakdown"]["farms"] for p in json.loads(s.stdout)["players"]} for s in scores]
    # the same seed places the same tiles (farms score nothing else); every farm point is doubled
    assert farms[1] == {n: 2 * v for n, v in farms[0].items()}, farms


def test_new_variant_never_overwrites_and_names_the_bundled_bases(empty: Path) -> None:
    (empty / "hills.rules").write_text("# mine\n")
    again = rebirth(empty, "new", "variant", "hills")
    assert again.returncode == 1 and "already exists: not overwritten" in again.stderr
    assert (empty / "hills.rules").read_text() == "# mine\n"
    unknown = rebirth(empty, "new", "variant", "dales", "--extends", "scotlnd")
    assert unknown.returncode == 1 and "did you mean 'scotland'?" in unknown.stderr
    assert not (empty / "dales.rules").exists()
    assert sorted(p.name for p in empty.iterdir()) == ["hills.rules"]  # no temp file left behind
    (empty / "dales.tests").write_text("# mine\n")  # one of its files there: none is written
    assert rebirth(empty, "new", "variant", "dales").returncode == 1
    assert not (empty / "dales.rules").exists() and (empty / "dales.tests").read_text() == "# mine\n"


def test_new_variant_of_ireland_names_its_board(empty: Path) -> None:
    assert rebirth(empty, "new", "variant", "isles", "--extends", "ireland").returncode == 0
    text = (empty / "isles.rules").read_text()
    assert 'extends "ireland"' in text and "\nboard ireland" in text
    checked = rebirth(empty, "check", "isles.rules")
    assert checked.returncode == 0 and "ireland.json" in checked.stdout, checked.stderr

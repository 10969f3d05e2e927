"""-o never replaces a file the command reads: not the file named on the command line, nor a file read through
a variant's `extends` or through a game record (finding 7 of the second hardening round)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import rebirth
from conftest import BOARDS, ROOT, RULES


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """base.rules, v.rules (extends base), w.rules (extends v), board.json, and records of games on them:
    rec.json (v.rules on board.json) and pos.json (a reference position holding that record)."""
    shutil.copy(RULES / "scotland.rules", tmp_path / "base.rules")
    (tmp_path / "v.rules").write_text('ruleset v "V" extends "base.rules"\n', encoding="utf-8")
    (tmp_path / "w.rules").write_text('ruleset w "W" extends "v.rules"\n', encoding="utf-8")
    shutil.copy(BOARDS / "scotland.json", tmp_path / "board.json")
    code, _, err = rebirth("play", "--rules", tmp_path / "v.rules", "--board", tmp_path / "board.json", "--players",
                           "2", "--agents", "random", "--quiet", "-o", tmp_path / "rec.json", limit=120)
    assert code == 0, err
    record = (tmp_path / "rec.json").read_text(encoding="utf-8")
    (tmp_path / "pos.json").write_text(f'{{"record": {record}}}', encoding="utf-8")
    return tmp_path


# (the command, with {d} for the folder; the input it would replace). Each but board build exited 0 and replaced
# the file before the fix: board build reads the map alone, which was already refused.
CASES = [
    ("play --rules {d}/v.rules --board {d}/board.json --players 2 --agents random", "base.rules"),
    ("play --rules {d}/w.rules --board {d}/board.json --players 2 --agents random", "base.rules"),
    ("play --rules {d}/w.rules --board {d}/board.json --players 2 --agents random", "v.rules"),
    ("play --resume {d}/rec.json", "v.rules"),
    ("play --resume {d}/rec.json", "base.rules"),
    ("play --resume {d}/rec.json", "board.json"),
    ("play --resume {d}/rec.json --agents random", "base.rules"),
    ("draw {d}/rec.json", "v.rules"),
    ("draw {d}/rec.json", "base.rules"),
    ("draw {d}/rec.json", "board.json"),
    ("draw {d}/pos.json", "base.rules"),
]


@pytest.mark.parametrize(("command", "target"), CASES, ids=[f"{c.split(' {d}/')[0]}-{c.split('/')[1].split()[0]}->{t}"
                                                           for c, t in CASES])
def test_output_is_refused_over_a_file_read_indirectly(folder: Path, command: str, target: str) -> None:
    """The file is left as it was, the command exits 1 naming it, and no game is played or record written."""
    args = command.format(d=folder).split()
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, out, err = rebirth(*args, "-o", folder / target, limit=120)
    assert code == 1, (out, err)
    assert "will not overwrite an input of this command" in err
    assert f"{folder / target}:" in err or f"{target}:" in err
    assert "Traceback" not in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing written, not even a save


def test_board_build_refuses_its_map(tmp_path: Path) -> None:
    """board build reads only its map file; -o over the map is refused (a map names no other file)."""
    src = tmp_path / "m.txt"
    shutil.copy(ROOT / "boards" / "maps" / "scotland.txt", src)
    before = src.read_bytes()
    code, _, err = rebirth("board", "build", src, "-o", src, limit=60)
    assert code == 1
    assert "will not overwrite an input of this command" in err
    assert src.read_bytes() == before


def test_other_outputs_beside_the_inputs_are_written(folder: Path) -> None:
    """The check refuses only the inputs: a new file in the same folder is written (the test above can fail)."""
    code, _, err = rebirth("draw", folder / "rec.json", "-o", folder / "rec.svg", limit=60)
    assert code == 0, err
    assert (folder / "rec.svg").read_text(encoding="utf-8").startswith("<svg")
    code, _, err = rebirth("play", "--resume", folder / "rec.json", "--quiet", "-o", folder / "again.json", limit=60)
    assert code == 0, err
    assert (folder / "again.json").is_file()

"""The terminal seat (`rebirth play --agents human,...`): the map with typed coordinates, the others' moves
and scores, the hand and missions; Ireland's round-tower questions (I-R1) and the choice between two hand
tiles asked at the prompt; `q` or the end of input saves the game as a record that `--resume` continues."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from rebirth_dsl.play.human import HumanAgent, SaveGame
from rebirth_dsl.play.table import new_table, run
from rebirth_dsl.records.resources import find


class Player(io.TextIOBase):
    """A person at the terminal: answers each prompt from what the game shows. Prefers a hex whose tower
    asks something (taking a set-aside tile first: that gives two tiles in hand), takes the second hand
    tile, picks the first answer; stops (`q`) once both kinds of question have been answered."""

    def __init__(self, out: io.StringIO) -> None:
        self.out = out
        self.table = None
        self.asked: list[str] = []

    def readline(self) -> str:  # noqa: D401 - a file's method
        text = self.out.getvalue()
        prompt = text.rsplit("\n", 1)[-1]
        g = self.table.game
        if prompt.startswith("which tile"):
            self.asked.append("tile")
            return "2\n"
        if prompt.startswith("your answer"):
            self.asked.append("ability")
            return "1\n"
        assert prompt.startswith("your move"), prompt
        if {"tile", "ability"} <= set(self.asked):
            return "q\n"
        tile_name = re.findall(r"   (\S+) goes on \d+ hexes", text)[-1]
        tile = g.rs.parse_tile(tile_name)
        hexes, _ = g.legal_hexes(tile[0])
        p = g.turn

        def asks(h: int, key: str | None) -> bool:
            for lm, _ in g.pending_abilities(p, h):
                _, k, opts = g.ability_options(p, lm)
                if opts and (key is None or k == key):
                    return True
            return False

        pick = next((h for h in hexes if asks(h, "take")), None) if "tile" not in self.asked else None
        pick = pick if pick is not None else next((h for h in hexes if asks(h, None)), hexes[0])
        q, r = g.t.coords[pick]
        return f"{q},{r}\n"


class Typist(io.TextIOBase):
    """A person who types the given lines, `BEST` standing for the first hex of the latest list (the best by
    points now: hexes keep one number all game, so which number is best changes from turn to turn)."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def readline(self) -> str:  # noqa: D401 - a file's method
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        if line == "BEST":
            latest = sys.stderr.getvalue().rsplit(" hexes", 1)[-1]  # run_cli captures what the seat printed
            line = re.findall(r"^\s+(\d+)\s+\(-?\d+,-?\d+\)", latest, re.M)[0]
        return line + "\n"


def test_the_tower_questions_and_the_hand_tile_are_asked_at_the_prompt() -> None:
    out = io.StringIO()
    person = Player(out)
    table = new_table(find("rules", "ireland"), find("boards", "ireland"), ["Ann", "Bob"], ["human", "greedy"], 3)
    person.table = table
    seat = HumanAgent(stdin=person, out=out)
    with pytest.raises(SaveGame):
        run(table, {0: seat})
    shown = out.getvalue()
    assert person.asked.count("tile") >= 1 and person.asked.count("ability") >= 1, person.asked
    assert "which tile do you place" in shown and "0. decline" in shown
    assert re.search(r"face-down tile 1", shown)  # Ireland's set-aside tiles are taken unseen (I-U1)
    # the answers are in the record: a move with a tower's choice, and a later move of the second tile
    answered = [m for m in table.moves if m["player"] == "Ann" and any(c not in (True, False)
                                                                        for c in (m.get("choices") or {}).values())]
    assert answered, table.moves
    # what the seat was shown: the map with row and first-q labels, the others' moves with rule ids, scores
    assert re.search(r"^r\s*-?\d+ q\s*-?\d+ \|", shown, re.M)
    assert re.search(r"move \d+: Bob placed \S+ on hex \d+ \(-?\d+,-?\d+\)", shown)
    assert re.search(r"\((?:[SI]-[A-Z]+\d)(?:, [SI]-[A-Z]+\d)*\)", shown)
    assert "Scores: Ann (you)" in shown and "your hand:" in shown and "public mission" in shown
    assert "set aside: 4 face down" in shown or "face down" in shown


def test_q_saves_the_game_and_resume_continues_it(run_cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    saved = tmp_path / "g.json"
    monkeypatch.setattr("sys.stdin", Typist("BEST", "3,-1", "BEST", "q"))  # a move, an illegal hex, a move, stop
    code, out, err = run_cli("play", "--players", "2", "--agents", "human,greedy", "--seed", "4", "-o", saved)
    assert code == 0, err
    assert re.search(r"\(3,-1\)(: .* \(S-\w+\)| is not on the board)", err)  # what is there, and the rule
    assert f"saved the game after 4 moves to {saved}" in err and "--resume" in err
    rec = json.loads(saved.read_text())
    assert len(rec["moves"]) == 4 and rec["agents"] == ["human", "greedy"]
    assert [m["player"] for m in rec["moves"]] == ["Ann", "Bob", "Ann", "Bob"]
    code, out, err = run_cli("eval", saved)  # an unfinished game is a record like any other
    assert code == 0 and "not over" in out
    # resumed: the same seats, two more moves of Ann's, then the end of input saves it again
    monkeypatch.setattr("sys.stdin", Typist("BEST", "BEST"))
    code, out, err = run_cli("play", "--resume", saved)
    assert code == 0, err
    assert "move 3: Bob placed" in err  # the resumed seat is shown the last move it has not seen
    again = json.loads(saved.read_text())
    assert len(again["moves"]) == 8 and again["moves"][:4] == rec["moves"] and again["setup"] == rec["setup"]
    # the rest by agents, to the end: a finished record that eval scores
    done = tmp_path / "done.json"
    code, out, err = run_cli("play", "--resume", saved, "--agents", "greedy", "-o", done)
    assert code == 0, err
    final = json.loads(done.read_text())
    assert len(final["moves"]) == 68 and final["moves"][:8] == again["moves"]
    code, out, err = run_cli("eval", done, "--json")
    assert code == 0 and json.loads(out)["finished"]


def test_the_end_of_input_saves_a_new_game_beside_it(run_cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run_cli("play", "--players", "2", "--agents", "greedy,human", "--seed", "2")
    assert code == 0, err
    rec = json.loads((tmp_path / "rebirth-save.json").read_text())
    assert len(rec["moves"]) == 1 and rec["moves"][0]["player"] == "Ann"  # the agent moved; Bob stopped
    code, out, err = run_cli("play", "--resume", "missing.json")
    assert code == 1 and "missing.json" in err


def test_resume_refuses_a_broken_record_or_a_scenario(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rules": "scotland", "board": "scotland", "players": ["Ann", "Bob"],
                               "setup": {"seed": 1}, "moves": [{"player": "Bob", "tile": "food", "hex": [6, 2]}]}))
    code, out, err = run_cli("play", "--resume", bad)
    assert code == 1 and "S-T1" in err
    scenario = find("examples", "scenario-120")
    code, out, err = run_cli("play", "--resume", scenario, "-o", tmp_path / "x.json")
    assert code == 1 and "scenario" in err

"""Finding 10: the in-process ruleset caches are keyed by content. A rules file edited while the process runs
(or a file it extends, or its board) is compiled afresh at the next load through every entry point, the
records, the API and simulate's workers; unchanged files are not compiled again; the cache is bounded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES

import rebirth_dsl
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play import simulate
from rebirth_dsl.records import record
from rebirth_dsl.records.record import load_record, load_ruleset, replay, ruleset_texts

pytestmark = pytest.mark.usefixtures("module_cache")

FARMS = "on place food, energy: score size(group(placed)) as farms"
TRIPLE = "on place food, energy: score 3 * size(group(placed)) as farms"


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A folder with a variant that extends a copy of Scotland, its board and a finished game's record."""
    base = (RULES / "scotland.rules").read_text()
    assert base.count(FARMS) == 1
    (tmp_path / "base.rules").write_text(base)
    (tmp_path / "mine.rules").write_text('ruleset mine "Mine" extends "base.rules"\n')
    shutil.copy(BOARDS / "scotland.json", tmp_path / "scotland.json")
    rec = json.loads((ROOT / "examples" / "scotland-2p.json").read_text())
    rec.update(rules="mine.rules", board="scotland.json")
    (tmp_path / "game.json").write_text(json.dumps(rec))
    return tmp_path


def _triple_farms(folder: Path) -> None:
    """Edit the base file (one step down the extends chain): farms score three times as much."""
    f = folder / "base.rules"
    f.write_text(f.read_text().replace(FARMS, TRIPLE))


def _farms(result: dict) -> list[int]:
    return [p["breakdown"]["farms"] for p in result["players"]]


def _final(path: Path) -> dict:
    from rebirth_dsl.present.report import evaluate

    r = replay(load_record(path))
    assert r.error is None
    return evaluate(r.game)


def test_an_edited_file_is_seen_by_load_record(game: Path) -> None:
    """records.load_record (the CLI's and the web server's path): the edit applies at the next load."""
    before = _farms(_final(game / "game.json"))
    _triple_farms(game)
    after = _farms(_final(game / "game.json"))
    assert after == [3 * f for f in before] and any(before)


def test_an_edited_file_is_seen_by_load_ruleset(game: Path) -> None:
    """records.load_ruleset: an edit makes a new ruleset; the unchanged files give the same object back."""
    rules, board = game / "mine.rules", game / "scotland.json"
    first, _ = load_ruleset(rules, board)
    assert load_ruleset(rules, board)[0] is first  # not compiled again
    _triple_farms(game)
    edited, _ = load_ruleset(rules, board)
    assert edited is not first
    assert load_ruleset(rules, board)[0] is edited


def test_an_edited_file_is_seen_by_the_api(game: Path) -> None:
    """rebirth_dsl.load: a game begun after the edit plays by the edited rules."""
    def farms_after_first_move() -> int:
        rules = rebirth_dsl.load(game / "mine.rules", game / "scotland.json")
        for seed in range(50):  # the first deal whose first hand holds a farm tile
            g = rules.new_game(2, seed=seed)
            moves = [m for m in g.legal_moves() if m.tile in ("food", "energy") and m.hex is not None]
            if moves:
                g.play(moves[0])
                return g.breakdown()[g.players[0]]["farms"]
        raise AssertionError("no deal starts with a farm tile")

    before = farms_after_first_move()
    _triple_farms(game)
    assert before > 0 and farms_after_first_move() == 3 * before


def test_an_edited_file_is_seen_by_simulate_workers(game: Path) -> None:
    """simulate's worker cache: the same job after the edit plays by the edited rules."""
    job = simulate.Job(str(game / "mine.rules"), str(game / "scotland.json"), 2, ("random", "random"), 5)
    cat = None

    def farms() -> list[int]:
        nonlocal cat
        rs = load_ruleset(game / "mine.rules", game / "scotland.json")[0]
        cat = rs.categories.index("farms")
        return [seat[cat] for seat in simulate.play_range(job, 0, 1)[0][1]]

    before = farms()
    _triple_farms(game)
    assert any(before) and farms() == [3 * f for f in before]
    assert [seat[cat] for seat in simulate.play_one(job, 0)[1]] == [3 * f for f in before]


def test_a_run_pinned_to_its_rules_refuses_an_edit(game: Path) -> None:
    """A run's job carries the digest of the files it began with: a worker that finds them edited stops the
    run instead of mixing games of two versions of the rules."""
    _, _, content = record.load_ruleset_keyed(game / "mine.rules", game / "scotland.json")
    job = simulate.Job(str(game / "mine.rules"), str(game / "scotland.json"), 2, ("random", "random"), 5, content)
    assert simulate.play_range(job, 0, 1)
    _triple_farms(game)
    with pytest.raises(RebirthError, match="changed while the games were played"):
        simulate.play_range(job, 1, 2)


def test_an_edited_board_is_seen(game: Path) -> None:
    """The board's bytes are part of the key: a board edited in place gives a new ruleset on it."""
    rules, board = game / "mine.rules", game / "scotland.json"
    first, view = load_ruleset(rules, board)
    data = json.loads(board.read_text())
    data["title"] = "Edited " + str(data.get("title", ""))
    board.write_text(json.dumps(data))
    second, view2 = load_ruleset(rules, board)
    assert second is not first and view2.title == data["title"] != view.title


def test_the_cache_is_bounded(game: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_RULESETS compiled rulesets are kept: a server fed ever new files does not grow."""
    monkeypatch.setattr(record, "MAX_RULESETS", 3)
    rules, board = game / "mine.rules", game / "scotland.json"
    for i in range(5):
        (game / "mine.rules").write_text(f'ruleset mine{i} "Mine {i}" extends "base.rules"\n')
        load_ruleset(rules, board)
    assert len(record._CACHE) <= 3 and len(record._FILES) <= 3


def test_ruleset_texts_are_the_chain(game: Path) -> None:
    """ruleset_texts: the texts the ruleset is compiled from, the base first and the file itself last."""
    texts = ruleset_texts(game / "mine.rules")
    assert list(texts.values()) == [(game / "base.rules").read_text(), (game / "mine.rules").read_text()]
    assert list(texts)[-1] == str(game / "mine.rules")

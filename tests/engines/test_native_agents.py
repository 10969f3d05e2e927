"""The native backend where playouts are (issue 14, part 2): the search agents' `backend=` option, the
`--backend` of `eval --forecast` and `hint`, and `compare --backend native`. Whole games of the search agents on the native backend, validated by the
reference engine, with their native playouts replayed on it: test_differential.py.

The tests that run C skip when cffi or a C compiler is missing; the rest (option parsing, `auto` falling
back to exactly today's Python play) run everywhere.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from rebirth_dsl import native
from rebirth_dsl.board.model import load_board
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.forecast import forecast, hint
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.registry import make_agent, parse_options
from rebirth_dsl.records.record import load_record, load_ruleset, replay
from rebirth_dsl.records.resources import rules_and_board

WHY = native.unavailable()
needs_native = pytest.mark.skipif(WHY is not None, reason=f"the native backend cannot run here: {WHY}")
AGENTS = ["mc:budget=16:candidates=4", "ismcts:budget=24:width=4"]


def ruleset(name: str):
    return load_ruleset(*rules_and_board(name, None))[0]


def without_native(name: str):
    """A freshly compiled ruleset whose native engine is marked unavailable (as without cffi)."""
    rs = compile_rules(load_rules(ROOT / "rules" / f"{name}.rules"), load_board(ROOT / "boards" / f"{name}.json"))
    rs.derived.native = "switched off by the test"
    return rs


def test_the_backend_option_is_parsed_and_checked() -> None:
    assert parse_options("ismcts:time=0.05:backend=native") == ("ismcts", {"time": 0.05, "backend": "native"})
    assert make_agent("mc:budget=8:backend=python").backend == "python"
    assert make_agent("ismcts").backend == make_agent("mc").backend == "auto"
    for bad in ("ismcts:backend=gpu", "mc:backend=", "ismcts:backend"):
        with pytest.raises(RebirthError):
            make_agent(bad)


@pytest.mark.parametrize("spec", AGENTS)
def test_auto_without_the_native_engine_plays_as_python(spec: str) -> None:
    """Default `auto` where the native engine cannot run: the very moves of the Python backend."""
    rs = without_native("scotland")
    games = [play_game(rs, DEFAULT_NAMES[:2], [make_agent(f"{spec}:backend={b}"), make_agent("greedy")], 11)[1]
             for b in ("auto", "python")]
    assert games[0] == games[1]
    with pytest.raises(RebirthError, match="no native engine"):
        play_game(rs, DEFAULT_NAMES[:2], [make_agent(f"{spec}:backend=native"), make_agent("greedy")], 11)


@needs_native
@pytest.mark.parametrize("spec", AGENTS)
def test_the_same_seed_gives_the_same_moves(spec: str) -> None:
    """Per backend, the same seed gives the same game; the native and Python backends play differently."""
    rs = ruleset("scotland")
    by: dict[str, list] = {}
    for b in ("native", "python"):
        runs = [play_game(rs, DEFAULT_NAMES[:2], [make_agent(f"{spec}:backend={b}"), make_agent(f"{spec}:backend={b}")],
                          21)[1] for _ in range(2)]
        assert runs[0] == runs[1]
        by[b] = runs[0]
    auto = play_game(rs, DEFAULT_NAMES[:2], [make_agent(spec), make_agent(spec)], 21)[1]
    assert auto == by["native"]  # auto is native when it can run
    assert by["native"] != by["python"]


def _unfinished():
    return replay(load_record(ROOT / "examples" / "unfinished.json")).game


@needs_native
def test_native_forecast_and_hint() -> None:
    """Same seed, same forecast; chances sum to one; hints rank every legal move; other agents run on Python."""
    game = _unfinished()
    f = forecast(game, playouts=40, seed=2, backend="native")
    assert f == forecast(game, playouts=40, seed=2, backend="native") and not f["exact"]
    assert abs(sum(p["win"]["mean"] for p in f["players"]) - 1) < 1e-3
    assert f != forecast(game, playouts=40, seed=2, backend="python")
    for p in f["players"]:
        assert p["final"]["mean"] >= p["now"]
    h = hint(game, playouts=6, seed=1, backend="native")
    assert h == hint(game, playouts=6, seed=1, backend="native") and len(h["moves"]) > 1
    greedy = [forecast(game, agents="greedy", playouts=3, seed=1, backend=b) for b in ("native", "python")]
    assert greedy[0] == greedy[1]
    assert game.move_index == _unfinished().move_index  # the position is never changed


@needs_native
def test_forecast_of_a_finished_game_has_zero_width_natively(run_cli) -> None:
    code, out, err = run_cli("eval", "scotland-3p", "--forecast", "--json", "--backend", "native")
    assert code == 0, err
    data = json.loads(out)
    f = data["forecast"]
    assert f["exact"] and f["playouts"] == 0
    for p, real in zip(f["players"], data["players"], strict=True):
        assert p["final"]["ci"] == [real["score"], real["score"]] and p["win"]["ci"][0] == p["win"]["ci"][1]


@needs_native
def test_hint_and_forecast_cli_take_a_backend(run_cli) -> None:
    code, out, err = run_cli("hint", "unfinished", "--backend", "native", "--playouts", "4", "--json")
    assert code == 0, err
    assert json.loads(out)["moves"]
    code, out, err = run_cli("eval", "unfinished", "--forecast", "--backend", "python", "--playouts", "4")
    assert code == 0 and "Forecast" in out, err


@needs_native
def test_compare_on_the_native_backend(run_cli) -> None:
    code, out, err = run_cli("compare", "scotland", "variants/korean-castles", "--backend", "native", "--games", "200",
                             "--players", "3", "--json", "--no-progress")
    assert code == 0, err
    data = json.loads(out)
    assert data["backend"] == "native" and data["games"] == 200 and data["rows"]
    code, _, err = run_cli("compare", "scotland", "variants/korean-castles", "--backend", "native", "--agents",
                           "greedy", "--games", "4")
    assert code == 1 and "random agents only" in err

"""Hostile inputs: whatever a user gives, every command ends with a one-line message naming the file (and
line:col, or a JSON path) and exit 1 or 2: never a traceback, never an internal error, never a hang.

One test per finding of a probe with hostile files, then hypothesis properties that feed arbitrary bytes,
mutated rules and mutated JSON (the bundled boards and game records) to every command that reads a file.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import rebirth as _rebirth  # tests/ is on sys.path (pyproject: pythonpath)
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth_dsl.board.model import MAX_COORD, MAX_HEXES
from rebirth_dsl.lang.limits import MAX_EXPR_DEPTH, MAX_NUMBER, MAX_PLAYERS, MAX_TILES_PER_COLOUR

TIME_LIMIT = 20  # seconds for one command: a hang fails the test instead of stalling it


def rebirth(*args: str | Path, limit: int = TIME_LIMIT) -> tuple[int, str, str]:
    """`rebirth ARGS...` in this process, under a time limit: (exit code, stdout, stderr)."""
    return _rebirth(*args, limit=limit)


def refused(result: tuple[int, str, str], *names: str) -> str:
    """A clean refusal: exit 1 or 2, a message naming each of `names`, no traceback; its stderr."""
    code, out, err = result
    assert code in (1, 2), (code, out, err)
    assert "Traceback" not in err and "internal error" not in err, err
    for name in names:
        assert name in err, (name, err)
    err.encode("utf-8")  # printable: no lone surrogate from a file name
    return err


def clean(result: tuple[int, str, str]) -> None:
    """Any outcome but a crash: exit 0, 1 or 2, and no traceback."""
    code, out, err = result
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err and "internal error" not in err, err


pytestmark = pytest.mark.usefixtures("module_cache")  # conftest: a cache folder of this module's own


MINI = """ruleset mini "A small game"
players 2 to 4
one tile per hex
turns clockwise
hex plain
tiles { food x3 }
place food on plain
when no hex is legal: pass
group food
on place food: score size(group(placed)) as farms
"""


def mini_board(n: int = 16) -> dict[str, Any]:
    return {"name": "mini", "hexes": [{"q": i % 4, "r": i // 4, "kind": "plain"} for i in range(n)]}


def mini(tmp_path: Path, extra: str = "", rules: str = MINI, hexes: int = 16) -> Path:
    """The small game with `extra` lines, and its board of `hexes` plain hexes beside it (mini.json)."""
    path = tmp_path / "mini.rules"
    path.write_text(rules + extra, encoding="utf-8")
    (tmp_path / "mini.json").write_text(json.dumps(mini_board(hexes)), encoding="utf-8")
    return path


def plays(tmp_path: Path, rules: Path, players: int = 2) -> None:
    """check accepts it, and a whole game plays, evaluates and draws."""
    board = tmp_path / "mini.json"
    code, out, err = rebirth("check", rules, "--board", board)
    assert code == 0, err
    record = tmp_path / "game.json"
    code, out, err = rebirth("play", "--rules", rules, "--board", board, "--players", players, "--agents", "random",
                             "-o", record, "--quiet")
    assert code == 0, err
    assert rebirth("eval", record)[0] == 0
    assert rebirth("draw", record)[0] == 0


# ----- files in another encoding, or not text at all ---------------------------------------------------------
ENCODINGS = {
    "utf16": (MINI.encode("utf-16"), "1:1", "UTF-16"),
    "latin1": ('ruleset mini "Caf\xe9"\n'.encode("latin-1"), "1:18", "0xe9"),
    "binary": (bytes(range(128, 256)) * 4, "1:1", "not UTF-8"),
}


@pytest.mark.parametrize("kind", ENCODINGS)
def test_a_rules_file_in_another_encoding_is_refused_at_its_first_bad_byte(tmp_path: Path, kind: str) -> None:
    data, where, what = ENCODINGS[kind]
    rules = tmp_path / "bad.rules"
    rules.write_bytes(data)
    for args in (("check", rules, "--no-board"), ("rules", rules),
                 ("play", "--rules", rules, "--board", "scotland", "--players", "2")):
        err = refused(rebirth(*args), f"{rules}:{where}:")
        assert what in err


def test_an_extended_ruleset_in_another_encoding_is_named(tmp_path: Path) -> None:
    (tmp_path / "base.rules").write_bytes(MINI.replace('"A small game"', '"Caf\xe9"').encode("latin-1"))
    child = tmp_path / "child.rules"
    child.write_text('ruleset child extends "base.rules"\n', encoding="utf-8")
    refused(rebirth("check", child, "--no-board"), f"{tmp_path / 'base.rules'}:1:18:", "0xe9")


@pytest.mark.parametrize("kind", ENCODINGS)
def test_a_board_or_record_in_another_encoding_is_refused(tmp_path: Path, kind: str) -> None:
    data, _, what = ENCODINGS[kind]
    if kind != "binary":  # the same JSON text, badly encoded
        data = json.dumps({"name": "caf\xe9", "hexes": []}, ensure_ascii=False).encode(
            "utf-16" if kind == "utf16" else "latin-1")
    f = tmp_path / "bad.json"
    f.write_bytes(data)
    for args in (("check", "scotland", "--board", f), ("draw", f), ("eval", f), ("moves", f),
                 ("play", "--board", f, "--rules", "scotland", "--players", "2")):
        refused(rebirth(*args), f"{f}:")


# ----- devices, FIFOs and paths no file system accepts -------------------------------------------------------
def test_a_fifo_or_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO with no writer and /dev/zero would block or fill memory: refused before reading."""
    fifo = tmp_path / "fifo.rules"
    os.mkfifo(fifo)
    child = tmp_path / "child.rules"
    child.write_text('ruleset child extends "fifo.rules"\n', encoding="utf-8")
    start = time.monotonic()
    for path in (fifo, Path("/dev/zero")):
        refused(rebirth("check", path, "--no-board", limit=5), str(path), "not a regular file")
        refused(rebirth("check", "scotland", "--board", path, limit=5), str(path))
        refused(rebirth("draw", path, limit=5), str(path))
        refused(rebirth("eval", path, limit=5), str(path))
        refused(rebirth("play", "--rules", path, "--board", "scotland", limit=5), str(path))
        refused(rebirth("play", "--board", path, "--rules", "scotland", limit=5), str(path))
    refused(rebirth("check", child, "--no-board", limit=5), str(fifo), "not a regular file")
    assert time.monotonic() - start < 10


def test_a_nul_in_a_path_is_refused(tmp_path: Path) -> None:
    bad = str(tmp_path / "a\x00b.rules")
    for args in (("check", bad, "--no-board"), ("rules", bad), ("draw", bad), ("eval", bad), ("moves", bad),
                 ("check", "scotland", "--board", bad)):
        refused(rebirth(*args), "NUL")
    child = tmp_path / "child.rules"
    child.write_text('ruleset child extends "a\x00b.rules"\n', encoding="utf-8")
    refused(rebirth("check", child, "--no-board"), f"{child}:")


def test_a_nul_in_a_path_given_to_play_is_refused(tmp_path: Path) -> None:
    bad = str(tmp_path / "a\x00b.rules")
    refused(rebirth("play", "--rules", bad, "--board", "scotland"), "NUL")
    refused(rebirth("play", "--board", bad, "--rules", "scotland"), "NUL")


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    """A name the file system holds as bytes that are not UTF-8 (surrogates in Python) is printed with the
    byte escaped, in a message that can be written out."""
    raw = os.fsencode(tmp_path) + b"/bad\xff.rules"
    with open(raw, "wb") as f:
        f.write(MINI.encode() + b"on place food: score nosuchname as x\n")
    name = os.fsdecode(raw)
    err = refused(rebirth("check", name, "--no-board"), "bad\\udcff.rules:11:")
    assert "nosuchname" in err
    raw_board = os.fsencode(tmp_path) + b"/b\xfe.json"
    with open(raw_board, "wb") as f:
        f.write(b'{"name": "x", "hexes": [{"q": 0, "r": 0}]}')
    refused(rebirth("check", "scotland", "--board", os.fsdecode(raw_board)), "b\\udcfe.json")
    refused(rebirth("draw", os.fsdecode(raw_board)), "b\\udcfe.json")


def test_play_with_a_rules_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """A record is UTF-8 JSON and cannot name such a file: refused before the game, with the name escaped."""
    raw = os.fsencode(tmp_path) + b"/bad\xff.rules"
    with open(raw, "wb") as f:
        f.write(MINI.encode())
    (tmp_path / "mini.json").write_text(json.dumps(mini_board()), encoding="utf-8")
    err = refused(rebirth("play", "--rules", os.fsdecode(raw), "--board", tmp_path / "mini.json", "--players", "2",
                          "-o", tmp_path / "game.json"), "not UTF-8")
    assert "bad\\udcff.rules" in err and not (tmp_path / "game.json").exists()


# ----- JSON nested deep, numbers out of range, boards too big ------------------------------------------------
def test_json_nested_100000_deep_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for args in (("check", "scotland", "--board", f), ("draw", f), ("eval", f), ("moves", f)):
        assert "nested" in refused(rebirth(*args), f"{f}: $")
    obj = tmp_path / "deep-object.json"
    obj.write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    refused(rebirth("draw", obj), f"{obj}: $")
    brackets_in_strings = tmp_path / "strings.json"  # brackets inside strings are not nesting
    brackets_in_strings.write_text(json.dumps({"name": "x", "notes": '["\\' * 1000, "hexes": [{"q": 0, "r": 0,
                                                                                               "kind": "plain"}]}))
    assert rebirth("draw", brackets_in_strings)[0] == 0


@pytest.mark.parametrize("q", ["1" + "0" * 400, str(MAX_COORD + 1), str(-MAX_COORD - 1), "9" * 5000, "1e999", "NaN"],
                         ids=["1e400", "limit+1", "-limit-1", "5000 digits", "1e999", "NaN"])
def test_huge_hex_coordinates_are_refused_by_the_schema(tmp_path: Path, q: str) -> None:
    f = tmp_path / "far.json"
    f.write_text('{"name": "far", "hexes": [{"q": ' + q + ', "r": 0, "kind": "plain"}]}', encoding="utf-8")
    for args in (("check", "scotland", "--board", f), ("draw", f), ("play", "--board", f, "--rules", "scotland")):
        refused(rebirth(*args), f"{f}: $")


def test_a_board_of_more_hexes_than_the_limit_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "huge.json"
    hexes = [{"q": i % 100 - 50, "r": i // 100, "kind": "plain"} for i in range(MAX_HEXES + 1)]
    f.write_text(json.dumps({"name": "huge", "hexes": hexes}), encoding="utf-8")
    refused(rebirth("draw", f), f"{f}: $.hexes")


def test_the_largest_board_allowed_is_drawn_and_checked(tmp_path: Path) -> None:
    f = tmp_path / "wide.json"
    hexes = [{"q": -MAX_COORD, "r": -MAX_COORD, "kind": "plain"}, {"q": MAX_COORD, "r": MAX_COORD, "kind": "plain"}]
    f.write_text(json.dumps({"name": "wide", "hexes": hexes}), encoding="utf-8")
    assert rebirth("draw", f)[0] == 0
    assert rebirth("draw", f, "-o", tmp_path / "wide.svg")[0] == 0


def test_many_hex_and_landmark_kinds_are_drawn(tmp_path: Path) -> None:
    """40 hex kinds and 40 landmark kinds: letters and colours run out and repeat, never an IndexError."""
    hexes = [{"q": i % 10, "r": i // 10, "kind": f"k{i}"} for i in range(40)]
    hexes += [{"q": i % 10, "r": 4 + i // 10, "kind": f"L{i}", "name": f"Landmark {i}"} for i in range(40)]
    f = tmp_path / "kinds.json"
    f.write_text(json.dumps({"name": "kinds", "hexes": hexes}), encoding="utf-8")
    code, out, err = rebirth("draw", f)
    assert code == 0, err
    assert "k39" in out and "Landmark 39" in out
    assert rebirth("draw", f, "-o", tmp_path / "kinds.svg")[0] == 0


# ----- rules: expressions nested deep, long chains, numbers out of range --------------------------------------
def test_an_expression_1000_deep_is_refused_at_its_place(tmp_path: Path) -> None:
    rules = mini(tmp_path, "on place food: score " + "(" * 1000 + "1" + ")" * 1000 + " as deep\n")
    err = refused(rebirth("check", rules, "--no-board"), f"{rules}:11:22:")
    assert "nested 1001 deep" in err
    rules = mini(tmp_path, "on place food: score " + "not " * 1000 + "always as deep\n")
    refused(rebirth("rules", rules), f"{rules}:11:22:")


@pytest.mark.parametrize("op", ["+", "*", "and", "or"])
def test_a_250_term_chain_is_refused_at_its_place(tmp_path: Path, op: str) -> None:
    term = "1" if op in "+*" else "always"
    expr = f" {op} ".join([term] * 250)
    line = f"on place food: score {expr} as long\n" if op in "+*" else f"deck m {{ card \"c\" 1: {expr} }}\n"
    rules = mini(tmp_path, line)
    refused(rebirth("check", rules, "--no-board"), f"{rules}:11:")


@pytest.mark.parametrize("op", ["+", "-", "*", "and", "or"])
def test_chains_up_to_the_depth_limit_play(tmp_path: Path, op: str) -> None:
    """A chain as long as the limit allows is generated as flat Python (not a pair of parentheses per
    operator) and plays."""
    n = MAX_EXPR_DEPTH
    if op in "+-*":
        line = f"on place food: score {f' {op} '.join(['size(group(placed))'] * (n - 3))} as long\n"
    else:
        line = ("deck m { card \"c\" 1: " + f" {op} ".join(["count(tiles(me)) >= 1"] * (n - 3)) + " }\n"
                "end { held cards as missions }\n")
    plays(tmp_path, mini(tmp_path, line))


def test_nesting_at_the_limit_plays_and_one_past_it_is_refused(tmp_path: Path) -> None:
    # count(tiles(me)) is 3 deep; each `1 + (...)` adds two levels (the operator and the parentheses)
    deep = "count(tiles(me))"
    for _ in range((MAX_EXPR_DEPTH - 4) // 2):
        deep = f"1 + ({deep})"
    assert MAX_EXPR_DEPTH % 2 == 0
    plays(tmp_path, mini(tmp_path, f"on place food: score ({deep}) as deep\n"))
    err = refused(rebirth("check", mini(tmp_path, f"on place food: score (({deep})) as deep\n"), "--no-board"))
    assert f"nested {MAX_EXPR_DEPTH + 1} deep" in err


def test_the_generator_falls_back_to_closures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An expression Python cannot compile as source runs as closures, with the same result."""
    from rebirth_dsl.compile import exprgen

    failed: list[object] = []

    def fail(*args: Any) -> Any:
        failed.append(args[0])
        raise SyntaxError("too many nested parentheses")

    # the source of an expression's function, written at its first call (exprgen.lazy_expr_function)
    monkeypatch.setattr(exprgen, "_expr_source", fail)
    plays(tmp_path, mini(tmp_path, 'deck m { card "c" 1: count(tiles(me)) >= 1 }\nend { held cards as missions\n'
                                   "  winner ties: best(count(tiles(me))) among tied }\n"))
    assert failed  # the closures did run in its place


def test_nested_thresholds_and_players_are_evaluated_once(tmp_path: Path) -> None:
    """atleast(...) inside atleast(...), best(...) as a player: linear in the expression, not exponential."""
    inner = "1"
    for _ in range(12):
        inner = f"count(atleast(groups(me, food), {inner}))"
    line = f"on place food: score {inner} + count(tiles(best(count(tiles(best(count(tiles(me)))))))) as nest\n"
    start = time.monotonic()
    plays(tmp_path, mini(tmp_path, line, MINI.replace("food x3", "food x30"), hexes=130))
    assert time.monotonic() - start < 10
    three = "count(tiles(best(count(tiles(best(count(tiles(best(1)))))))))"
    refused(rebirth("check", mini(tmp_path, f"on place food: score {three} as nest\n"), "--no-board"), "nest 3 deep")


@pytest.mark.parametrize("number", ["9" * 5000, str(MAX_NUMBER + 1), "0" * 20 + str(10**9)])
def test_a_number_past_the_limit_is_refused_at_its_place(tmp_path: Path, number: str) -> None:
    for line, col in ((f"on place food: score {number} as big\n", 22),
                      (f"setup {{ players 2: return food x{number} }}\n", 0)):
        rules = mini(tmp_path, line)
        err = refused(rebirth("check", rules, "--no-board"), f"{rules}:11:")
        assert "too big" in err
        if col:
            assert f"{rules}:11:{col}:" in err


def test_a_number_at_the_limit_plays(tmp_path: Path) -> None:
    plays(tmp_path, mini(tmp_path, f"on place food: score {MAX_NUMBER} * {MAX_NUMBER} as big\n"))


# ----- counts that must be at least 1, and bounds on players and tiles ----------------------------------------
@pytest.mark.parametrize("change", [
    ("tiles { food x3 }", "tiles { food x3 }\nsetup { hand 0 }"),
    ("food x3", "food x0"),
    ("when no hex", 'deck m { card "c" 1 x0: always }\nwhen no hex'),
])
def test_a_count_that_must_be_at_least_one_is_refused(tmp_path: Path, change: tuple[str, str]) -> None:
    rules = mini(tmp_path, rules=MINI.replace(*change))
    refused(rebirth("check", rules, "--no-board"), f"{rules}:")
    refused(rebirth("play", "--rules", rules, "--board", tmp_path / "mini.json", "--players", "2"), f"{rules}:")


def test_a_player_count_of_a_billion_is_refused_at_once(tmp_path: Path) -> None:
    start = time.monotonic()
    rules = mini(tmp_path, rules=MINI.replace("players 2 to 4", "players 2 to 1000000000"))
    refused(rebirth("check", rules, "--board", tmp_path / "mini.json"), f"{rules}:2:")
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("players", ["players 2 to 7", "players 0 to 3", "players 4 to 2"])
def test_player_counts_out_of_range_are_refused(tmp_path: Path, players: str) -> None:
    rules = mini(tmp_path, rules=MINI.replace("players 2 to 4", players))
    refused(rebirth("check", rules, "--no-board"), f"{rules}:2:")


def test_every_player_count_up_to_the_limit_plays(tmp_path: Path) -> None:
    from rebirth_dsl.play.loop import DEFAULT_NAMES

    assert len(DEFAULT_NAMES) >= MAX_PLAYERS  # `play --players N` and `simulate` name the seats from these
    rules = mini(tmp_path, rules=MINI.replace("players 2 to 4", f"players 1 to {MAX_PLAYERS}"), hexes=40)
    for n in range(1, MAX_PLAYERS + 1):
        plays(tmp_path, rules, players=n)


@pytest.mark.parametrize("count", ["x10000000", f"x{MAX_TILES_PER_COLOUR + 1}"])
def test_tile_counts_past_the_limit_are_refused(tmp_path: Path, count: str) -> None:
    rules = mini(tmp_path, rules=MINI.replace("food x3", f"food {count}"))
    start = time.monotonic()
    refused(rebirth("check", rules, "--no-board"), f"{rules}:6:")
    refused(rebirth("play", "--rules", rules, "--board", tmp_path / "mini.json", "--players", "2"), f"{rules}:6:")
    assert time.monotonic() - start < 5


def test_a_rules_file_past_the_size_limit_is_refused(tmp_path: Path) -> None:
    rules = mini(tmp_path, "# " + "x" * 300_000 + "\n")
    refused(rebirth("check", rules, "--no-board"), str(rules), "limit")


# ----- fuzzing: arbitrary bytes, mutated rules, mutated JSON --------------------------------------------------
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large], deadline=None)
_serial = iter(range(10**9))


def _fresh(tmp_path: Path, suffix: str) -> Path:
    """A new file name per example: loaded rulesets are cached by path in this process."""
    return tmp_path / f"f{next(_serial)}{suffix}"


@FUZZ
@given(data=st.binary(max_size=2000))
def test_fuzz_arbitrary_bytes_as_any_input(tmp_path: Path, data: bytes) -> None:
    rules, board = _fresh(tmp_path, ".rules"), _fresh(tmp_path, ".json")
    rules.write_bytes(data)
    board.write_bytes(data)
    for args in (("check", rules, "--no-board"), ("rules", rules), ("draw", board), ("eval", board),
                 ("moves", board), ("check", "scotland", "--board", board)):
        clean(rebirth(*args))


RULES_TEXT = (ROOT / "rules" / "scotland.rules").read_text(encoding="utf-8")
WORDS = ["(", ")", "{", "}", ",", ":", "+", "-", "*", ">=", "==", " and ", " or ", " not ", "x0", "x1000001",
         "0", "-1", "1000001", "9" * 30, "hand 0", "players 2 to 1000000000", "food x10000000", "\"", "#", "\n",
         "size(", "best(", "most(", "atleast(", "count(", "me", "placed", "influence", "\x00", "\ufeff", "é"]


@st.composite
def mutated_rules(draw: Any) -> str:
    text = RULES_TEXT
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 40)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            word = draw(st.one_of(st.sampled_from(WORDS), st.text(max_size=5)))
            text = text[:i] + word + (text[i:] if op == "insert" else text[j:])
    return text


@FUZZ
@given(text=mutated_rules())
def test_fuzz_mutated_rules(tmp_path: Path, text: str) -> None:
    """The bundled rules with a few edits: check, describe, and play what check accepts."""
    rules = _fresh(tmp_path, ".rules")
    rules.write_bytes(text.encode("utf-8", "surrogatepass"))
    clean(rebirth("check", rules, "--no-board"))
    clean(rebirth("rules", rules))
    code, out, err = rebirth("check", rules, "--board", "scotland")
    clean((code, out, err))
    if code == 0:
        record = _fresh(tmp_path, ".json")
        code, out, err = rebirth("play", "--rules", rules, "--board", "scotland", "--players", "2", "--agents",
                                 "random", "-o", record, "--quiet")
        assert code == 0, err
        assert rebirth("eval", record)[0] == 0


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([10**400, -(10**400), MAX_COORD + 1, 0, -1]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.sampled_from(["", "plain", "castle", "scotland", "food", "settlement:3", "../x.json", "/dev/zero", "\x00",
                     "a" * 300]),
    st.lists(st.integers(-3, 3), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths(x: Any, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(x, dict):
        for k, v in x.items():
            out += _paths(v, here + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x[:30]):  # a board has hundreds of hexes: mutate among the first
            out += _paths(v, here + (i,))
    return out


def _get(x: Any, path: tuple) -> Any:
    for p in path:
        x = x[p]
    return x


@st.composite
def mutated_json(draw: Any, sources: list[Path]) -> Any:
    """A bundled board or record with a few values, keys, types or nestings changed."""
    data = copy.deepcopy(json.loads(draw(st.sampled_from(sources)).read_text(encoding="utf-8")))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(data)))
        if not path:
            continue
        parent, key = _get(data, path[:-1]), path[-1]
        op = draw(st.sampled_from(["value", "delete", "key", "wrap", "duplicate", "empty"]))
        if op == "value":
            parent[key] = draw(JSON_VALUES)
        elif op == "delete":
            del parent[key]
        elif op == "key" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = parent.pop(key)
        elif op == "wrap":
            parent[key] = draw(st.sampled_from([[parent[key]], {"x": parent[key]}]))
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "empty":
            parent[key] = type(parent[key])() if isinstance(parent[key], list | dict | str) else None
    return data


BOARDS = sorted((ROOT / "boards").glob("*.json")) + sorted((ROOT / "rules" / "positions" / "scotland").glob("*.json"))
RECORDS = sorted((ROOT / "examples").glob("*.json"))


@FUZZ
@given(data=mutated_json(BOARDS))
def test_fuzz_mutated_boards(tmp_path: Path, data: Any) -> None:
    board = _fresh(tmp_path, ".json")
    board.write_text(json.dumps(data), encoding="utf-8")
    clean(rebirth("draw", board))
    code, out, err = rebirth("check", "scotland", "--board", board)
    clean((code, out, err))
    code, out, err = rebirth("play", "--rules", "scotland", "--board", board, "--players", "2", "--agents",
                             "random", "--quiet", "-o", _fresh(tmp_path, ".json"))
    clean((code, out, err))


@FUZZ
@given(data=mutated_json(RECORDS))
def test_fuzz_mutated_records(tmp_path: Path, data: Any) -> None:
    record = _fresh(tmp_path, ".json")
    record.write_text(json.dumps(data), encoding="utf-8")
    for args in (("eval", record), ("eval", record, "--json", "--explain"), ("moves", record), ("draw", record)):
        clean(rebirth(*args))

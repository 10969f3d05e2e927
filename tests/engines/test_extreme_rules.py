"""Valid but extreme rulesets on small generated boards: whatever `rebirth check` accepts plays.

A hypothesis property writes a ruleset near the limits of rebirth_dsl/lang/limits.py (expressions nested
up to and a little past the depth limit, long chains, numbers up to and past the largest allowed, many
tile, hex and landmark kinds, up to the most players) and a board it fits. Either `check` refuses it with
a diagnostic at a place, or a whole game plays with `rebirth play`, `eval` scores its record, `draw` draws
it and `simulate` plays it with the generated engine, each exiting 0.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import rebirth as _rebirth  # tests/ is on sys.path (pyproject: pythonpath)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth_dsl.lang.limits import MAX_EXPR_DEPTH, MAX_NUMBER, MAX_PLAYERS

TIME_LIMIT = 180  # seconds for one command: a hang fails the test instead of stalling it (a busy CI machine)


def rebirth(*args: str) -> tuple[int, str, str]:
    """`rebirth ARGS...` in this process, under a time limit: (exit code, stdout, stderr)."""
    return _rebirth(*args, limit=TIME_LIMIT)


pytestmark = pytest.mark.usefixtures("module_cache")  # conftest: a cache folder of this module's own


# ----- expressions, as text, with the depth the parser counts ----------------------------------------------
# Each generated expression is (text, depth, precedence). Depth counts as the parser does: each call, `not`,
# pair of parentheses and operator of a chain is a level (rebirth_dsl/lang/syntax.py, _over_limits).
PREC = {"atom": 6, "prod": 5, "sum": 4, "cmp": 3, "not": 2, "and": 1, "or": 0}
Expr = tuple[str, int, str]


def wrap(e: Expr, at_least: str) -> Expr:
    """Parenthesise an operand that binds looser than its place allows."""
    text, depth, prec = e
    if PREC[prec] >= PREC[at_least]:
        return e
    return f"({text})", depth + 1, "atom"


def chain(op: str, operands: list[Expr], prec: str) -> Expr:
    k = len(operands)
    ops = [wrap(o, "atom" if prec == "prod" else {"sum": "prod", "and": "not", "or": "and"}[prec]) for o in operands]
    depth = max([k - 1 + ops[0][1]] + [k - i + ops[i][1] for i in range(1, k)])
    sep = f" {op} " if op in ("and", "or") else op
    return sep.join(o[0] for o in ops), depth, prec


class Vocab:
    """The names a generated ruleset declares, for expressions to use."""

    def __init__(self, tiles: list[str], hexes: list[str], landmarks: list[str], tags: list[str],
                 valued: str | None, named: list[tuple[str, str]]) -> None:
        self.tiles, self.hexes, self.landmarks, self.tags = tiles, hexes, landmarks, tags
        self.valued, self.named = valued, named


@st.composite
def ints(draw: Any, v: Vocab, budget: int, placed: bool = False, influence: bool = False) -> Expr:
    """An int expression at most `budget` deep (a little more now and then: check must refuse those)."""
    leaves = [
        st.integers(0, MAX_NUMBER).map(lambda n: (str(n), 1, "atom")),
        st.sampled_from(v.tiles).map(lambda k: (f"count(tiles(me, {k}))", 3, "atom")),
        st.sampled_from(v.hexes).map(lambda k: (f"count(hexes({k}))", 3, "atom")),
        st.sampled_from(v.tiles).map(lambda k: (f"largest(groups(me, {k}))", 3, "atom")),
        st.just(("count(areas(tiles(me)))", 4, "atom")),
        st.just(("count(won(me))", 3, "atom")),
    ]
    if v.landmarks:
        leaves.append(st.sampled_from(v.landmarks).map(lambda k: (f"count(touched(me, {k}))", 3, "atom")))
        leaves.append(st.sampled_from(v.landmarks).map(lambda k: (f"count(owned(me, {k}))", 3, "atom")))
    if v.tags:
        leaves.append(st.sampled_from(v.tags).map(lambda k: (f"count(at(tiles(me), {k}))", 4, "atom")))
    leaves.append(st.sampled_from(v.hexes).map(lambda k: (f"count(near(tiles(me), {k}))", 4, "atom")))
    if v.valued:
        leaves.append(st.just(("influence(tiles(me))", 3, "atom")))
        if influence:
            leaves.append(st.just(("influence", 1, "atom")))
    if placed:
        leaves.append(st.just(("size(group(placed))", 3, "atom")))
    leaf = draw(st.one_of(leaves))
    if budget <= leaf[1] + 1 or draw(st.integers(0, 3)) == 0:
        return leaf
    shape = draw(st.sampled_from(["sum", "prod", "paren", "long", "atleast"]))
    if shape == "paren":
        inner = draw(ints(v, budget - 1, placed, influence))
        return f"({inner[0]})", inner[1] + 1, "atom"
    if shape == "atleast":
        k = draw(st.sampled_from(v.tiles))
        n = draw(ints(v, budget - 2, placed, influence))
        return f"count(atleast(groups(me, {k}), {n[0]}))", max(n[1], 2) + 2, "atom"
    # one operand carries the depth, the others are shallow: deep, without growing past the size limit
    k = draw(st.integers(2, max(2, min(budget - 1, 48)))) if shape == "long" else draw(st.integers(2, 4))
    deep = draw(st.integers(0, k - 1))
    operands = [draw(ints(v, max(budget - k, 1) if i == deep else 4, placed, influence)) for i in range(k)]
    if shape == "prod":
        operands = [o if draw(st.booleans()) else ("1", 1, "atom") for o in operands]
        return chain("*", operands, "prod")
    ops = [draw(st.sampled_from("+-")) for _ in range(k - 1)]
    text, depth, prec = chain("+", operands, "sum")
    parts = [wrap(o, "prod")[0] for o in operands]
    text = parts[0] + "".join(f" {op} {p}" for op, p in zip(ops, parts[1:], strict=True))
    return text, depth, prec


@st.composite
def bools(draw: Any, v: Vocab, budget: int) -> Expr:
    """A bool expression at most about `budget` deep."""
    shape = draw(st.sampled_from(["cmp", "most", "always", "not", "and", "or", "owner"]))
    if budget < 6 or shape == "always":
        return "always", 1, "atom"
    if shape == "cmp":
        a, b = draw(ints(v, budget - 1)), draw(ints(v, budget - 1))
        op = draw(st.sampled_from([">=", "<=", "==", "!=", ">", "<"]))
        return f"{wrap(a, 'sum')[0]} {op} {wrap(b, 'sum')[0]}", 1 + max(a[1], b[1]), "cmp"
    if shape == "most":
        a = draw(ints(v, budget - 1))
        return f"{draw(st.sampled_from(['most', 'fewest']))}({a[0]})", a[1] + 1, "atom"
    if shape == "owner" and v.named:
        kind, name = draw(st.sampled_from(v.named))
        return f'owner({kind} "{name}") == me', 3, "cmp"
    if shape == "not":
        a = wrap(draw(bools(v, budget - 2)), "not")
        return f"not {a[0]}", a[1] + 1, "not"
    k = draw(st.integers(2, max(2, min(budget - 4, 45))))
    deep = draw(st.integers(0, k - 1))
    operands = [draw(bools(v, max(budget - k, 1) if i == deep else 6)) for i in range(k)]
    return chain(shape, operands, shape)


@st.composite
def players_expr(draw: Any, v: Vocab, budget: int) -> Expr:
    shape = draw(st.sampled_from(["best", "nobody", "owner"]))  # `me` is nobody in a winner tie-break
    if shape == "best" and budget > 4:
        a = draw(ints(v, budget - 1))
        return f"best({a[0]})", a[1] + 1, "atom"
    if shape == "owner" and v.named:
        kind, name = draw(st.sampled_from(v.named))
        return f'owner({kind} "{name}")', 2, "atom"
    return "nobody", 1, "atom"


def budget() -> st.SearchStrategy[int]:
    """Mostly allowed depths, up to the limit and now and then just past it."""
    return st.one_of(st.integers(1, 12), st.integers(MAX_EXPR_DEPTH - 8, MAX_EXPR_DEPTH + 2))


# ----- a ruleset and a board that fits it ----------------------------------------------------------------------
def _neighbours(q: int, r: int) -> list[tuple[int, int]]:
    return [(q + dq, r + dr) for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))]


@st.composite
def games(draw: Any) -> tuple[str, dict[str, Any], int]:
    """(rules text, board JSON, a player count in its range)."""
    rnd = draw(st.randoms(use_true_random=False))  # the board's details: cheaper than a draw per hex
    past = draw(st.integers(0, 9)) == 0  # now and then past a limit: check must refuse it
    n_tiles = draw(st.integers(1, 34 if past else 31))  # MAX_KINDS is 32 (a valued kind may be added)
    n_hex = draw(st.integers(1, 34 if past else 32))
    n_lm = draw(st.integers(0, 3))
    tiles = [f"t{i}" for i in range(n_tiles)]
    hexes = [f"h{i}" for i in range(n_hex)]
    landmarks = [f"l{i}" for i in range(n_lm)]
    tags = draw(st.sampled_from([[], ["mark"], ["mark", "flag"]]))
    lo = draw(st.integers(1, MAX_PLAYERS))
    hi = draw(st.integers(lo, MAX_PLAYERS + (2 if past else 0)))
    valued = "settle" if draw(st.booleans()) else None
    if valued:
        tiles.append(valued)
    # tile counts: mostly few, sometimes up to and past the per-colour limit
    big = draw(st.integers(0, 5)) == 0
    counts = {k: rnd.randint(1, 8 if big else 2) for k in tiles}
    if big:  # one kind makes the colour's tiles up to the limit, or past it
        room = 200 - (sum(counts.values()) - counts[tiles[0]])
        counts[tiles[0]] = draw(st.integers(room - 5, room + 10) if past else st.integers(max(1, room - 100), room))
    # the board: a parallelogram of hexes, big enough for every tile of every seat
    total = sum(counts.values())
    need = hi * total + 2 * (n_lm * 2 + n_hex) + 4
    width = draw(st.integers(2, 12))
    height = max(2, -(-need // width)) + rnd.randint(0, 2)
    coords = [(q, r) for r in range(height) for q in range(width)]
    area_kind = hexes[0] if valued else None
    # which hexes each tile may go on (a landmark never takes one); the board is mostly of those kinds
    on = {k: sorted(set(rnd.choices(hexes, k=rnd.randint(1, 4)))) for k in tiles}
    if valued:
        on[valued] = [area_kind]
        for k in tiles[:-1]:
            on[k] = [h for h in on[k] if h != area_kind] or [h for h in hexes if h != area_kind][:1] or [area_kind]
    takeable = sorted({h for hs in on.values() for h in hs})
    kinds = {c: rnd.choice(takeable) for c in coords}
    for i, h in enumerate(hexes):  # every hex kind on the board at least once
        kinds[coords[(i * 5) % len(coords)]] = h
    named: list[tuple[str, str]] = []
    hex_list: list[dict[str, Any]] = []
    lm_at: dict[tuple[int, int], tuple[str, str]] = {}
    for j, lm in enumerate(landmarks):
        for n in range(2):
            c = coords[(len(coords) // 3 + j * 11 + n * 17) % len(coords)]
            if c not in lm_at:
                lm_at[c] = (lm, f"{lm.upper()} {n}")
                named.append(lm_at[c])
    v = Vocab(tiles, hexes, landmarks, tags, valued, named)
    for c in coords:
        if c in lm_at:
            kind, name = lm_at[c]
            hex_list.append({"q": c[0], "r": c[1], "kind": kind, "name": name})
        else:
            hex_list.append({"q": c[0], "r": c[1], "kind": kinds[c]})
    marked = [h for h in hex_list if h["kind"] in takeable]
    for i, h in enumerate(marked[1::4] if len(marked) > 4 else marked):
        if tags:
            h["tags"] = [tags[i % len(tags)]]
    # settlement areas: the connected groups of area-kind hexes
    if area_kind:
        at = {(h["q"], h["r"]): h for h in hex_list}
        n_area = 0
        for h in hex_list:
            if h["kind"] != area_kind or "area" in h:
                continue
            n_area += 1
            todo = [(h["q"], h["r"])]
            h["area"] = f"A{n_area}"
            while todo:
                for m in _neighbours(*todo.pop()):
                    x = at.get(m)
                    if x is not None and x["kind"] == area_kind and "area" not in x:
                        x["area"] = f"A{n_area}"
                        todo.append(m)
    sizes = sorted({sum(1 for h in hex_list if h.get("area") == a) for a in {h.get("area") for h in hex_list} if a})

    lines = ["ruleset extreme \"An extreme ruleset\"", f"players {lo} to {hi}", "turns clockwise",
             f"hex {', '.join(hexes)}", "one tile per hex"]
    if landmarks:
        lines.append(f"landmark {', '.join(landmarks)}")
    if tags:
        lines.append(f"tag {', '.join(tags)}")
    lines.append("tiles {")
    for k in tiles:
        if k == valued:
            split = [max(1, counts[k] // 2), counts[k] - max(1, counts[k] // 2)]
            parts = [f"{draw(st.integers(1, 9))} x{c}" for c in split if c > 0]
            vals = list(dict.fromkeys(p.split()[0] for p in parts))
            if len(vals) < len(parts):
                parts = [f"{i + 1} x{p.split()[1][1:]}" for i, p in enumerate(parts)]
            lines.append(f"  {k} influence {', '.join(parts)}")
        else:
            lines.append(f"  {k} x{counts[k]}")
    lines.append("}")
    setup = ["setup {", f"  hand {draw(st.integers(1, 3))}"]
    if draw(st.booleans()):
        setup.append(f"  set aside {draw(st.integers(0, 1))} {draw(st.sampled_from(['visible', 'hidden']))}")
    setup.append("}")
    lines += setup
    for k in tiles:
        lines.append(f"place {k} on {', '.join(on[k])}")
    if draw(st.integers(0, 4)):  # without a pass rule check must prove every tile finds a hex
        lines.append("when no hex is legal: pass")
    group = [k for k in tiles if k != valued]
    lines.append(f"group {', '.join(group)}")
    cats = itertools.count()
    for _ in range(draw(st.integers(1, 3))):
        e = draw(ints(v, draw(budget()), placed=True))
        lines.append(f"on place {draw(st.sampled_from(['any', ', '.join(group)]))}: score {e[0]} as c{next(cats)}")
    if tags:
        e = draw(ints(v, draw(budget())))
        lines.append(f"on place any at {tags[0]}: score {e[0]} as c{next(cats)}")
    if area_kind:
        pays = [f"  pay size {s}: " + ", ".join(draw(ints(v, draw(budget()), influence=True))[0]
                                                for _ in range(draw(st.integers(1, 3)))) for s in sizes]
        lines += ["area " + area_kind + " as areas {", "  rank by influence",
                  "  ties: completer last, then clockwise from completer", *pays, "  alone: first + second", "}"]
    if landmarks:
        lines += [f"majority {landmarks[0]} as holds {{", "  over adjacent", "  unowned: placer takes",
                  f"  compare tiles any, then tiles {group[0]}", "  final tie: owner keeps", "}"]
        lines.append(f"on first touch {landmarks[-1]}: draw mission")
        cards = [f'  card "m{i}" {draw(st.integers(0, MAX_NUMBER))} x{draw(st.integers(1, 3))}: '
                 f"{draw(bools(v, draw(budget())))[0]}" for i in range(draw(st.integers(1, 4)))]
        lines += ["deck mission {", *cards, "}"]
    end = ["end {"]
    if landmarks:
        end.append(f"  each {landmarks[0]} owned: {draw(ints(v, draw(budget())))[0]} as holds")
        end.append("  held cards as missions")
    if area_kind:
        end.append(f"  incomplete {area_kind}: {draw(ints(v, draw(budget()), influence=True))[0]} as incomplete")
    p1, p2 = draw(players_expr(v, draw(budget()))), draw(players_expr(v, draw(budget())))
    end.append(f"  winner ties: {p1[0]} among tied, then {p2[0]} anywhere")
    end.append("}")
    lines += end
    board = {"name": "extreme", "title": "An extreme board", "hexes": hex_list}
    n = draw(st.integers(lo, max(lo, hi)))
    return "\n".join(lines) + "\n", board, n


_serial = itertools.count()


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture], deadline=None)
@given(games())
def test_what_check_accepts_plays(tmp_path: Path, game: tuple[str, dict[str, Any], int]) -> None:
    """check refuses the ruleset with a diagnostic at its place, or play, eval, draw and simulate all run."""
    text, board, n = game
    i = next(_serial)
    rules, board_file, record = tmp_path / f"x{i}.rules", tmp_path / f"b{i}.json", tmp_path / f"g{i}.json"
    rules.write_text(text, encoding="utf-8")
    board_file.write_text(json.dumps(board), encoding="utf-8")
    code, out, err = rebirth("check", rules, "--board", board_file)
    assert "Traceback" not in err and "internal error" not in err, err
    if code != 0:
        assert code == 1, err
        assert f"{rules}:" in err or f"{board_file}:" in err, err  # every problem at its place
        return
    agents = ",".join(["greedy", "random"][(i + seat) % 2] for seat in range(n))  # greedy probes every hex
    code, out, err = rebirth("play", "--rules", rules, "--board", board_file, "--players", n, "--agents", agents,
                             "--seed", i, "-o", record, "--quiet")
    assert code == 0, err
    code, out, err = rebirth("eval", record, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["finished"] and len(result["players"]) == n
    code, out, err = rebirth("draw", record)
    assert code == 0, err
    code, out, err = rebirth("simulate", "--rules", rules, "--board", board_file, "--players", n, "--games", 1,
                             "--agents", "random", "--no-progress", "--json")
    assert code == 0, err


@pytest.mark.parametrize("n", range(1, MAX_PLAYERS + 1))
def test_every_player_count_check_accepts_plays(tmp_path: Path, n: int) -> None:
    """`players 1 to 6` passes check, and `play --players N` and `simulate --players N` run for every N."""
    rules = tmp_path / "six.rules"
    rules.write_text("ruleset six\nplayers 1 to 6\none tile per hex\nturns clockwise\nhex plain\nlandmark keep\n"
                     "tiles { food x3 }\nplace food on plain\nwhen no hex is legal: pass\ngroup food\n"
                     "on place food: score size(group(placed)) as farms\n"
                     "majority keep as keeps { over adjacent\n unowned: placer takes }\n"
                     "end { each keep owned: 5 as keeps }\n", encoding="utf-8")
    board = tmp_path / "six.json"
    hexes = [{"q": q, "r": r, "kind": "plain"} for q in range(5) for r in range(5) if (q, r) != (2, 2)]
    board.write_text(json.dumps({"name": "six", "hexes": [*hexes, {"q": 2, "r": 2, "kind": "keep", "name": "Keep"}]}),
                     encoding="utf-8")
    code, out, err = rebirth("check", rules, "--board", board)
    assert code == 0, err
    code, out, err = rebirth("play", "--rules", rules, "--board", board, "--players", n, "--quiet",
                             "-o", tmp_path / "g.json")
    assert code == 0, err
    assert rebirth("eval", tmp_path / "g.json")[0] == 0
    code, out, err = rebirth("simulate", "--rules", rules, "--board", board, "--players", n, "--games", 2,
                             "--no-progress")
    assert code == 0, err


def test_a_ruleset_without_end_scoring_plays_with_every_agent(tmp_path: Path) -> None:
    """The generated engine's end scoring for a ruleset that scores nothing at the end (it once emitted an
    empty `try:` block: an IndentationError for `play --agents mc` and `simulate`)."""
    rules = tmp_path / "plain.rules"
    rules.write_text("ruleset plain\nplayers 2 to 4\none tile per hex\nturns clockwise\nhex plain\n"
                     "tiles { food x3 }\nplace food on plain\nwhen no hex is legal: pass\ngroup food\n"
                     "on place food: score size(group(placed)) as farms\n", encoding="utf-8")
    board = tmp_path / "plain.json"
    board.write_text(json.dumps({"name": "plain", "hexes": [{"q": q, "r": r, "kind": "plain"} for q in range(4)
                                                             for r in range(4)]}), encoding="utf-8")
    assert rebirth("check", rules, "--board", board)[0] == 0
    for agents in ("greedy", "random", "mc"):
        code, out, err = rebirth("play", "--rules", rules, "--board", board, "--players", 2, "--agents", agents,
                                 "--quiet", "-o", tmp_path / "g.json")
        assert code == 0, err
    code, out, err = rebirth("simulate", "--rules", rules, "--board", board, "--players", 2, "--games", 2,
                             "--no-progress")
    assert code == 0, err

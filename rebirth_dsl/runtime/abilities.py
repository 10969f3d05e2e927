"""Printed abilities (I-R1): which a placement triggers, the question each asks, the answers a move may
give, and what each typed effect does. Every effect is dispatched here and nowhere else."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.compile.ruleset import Ability, Ruleset, TouchRule
from rebirth_dsl.errors import IllegalMove
from rebirth_dsl.lang import ast as A
from rebirth_dsl.runtime.decks import draw_card
from rebirth_dsl.runtime.placement import cite

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.runtime.game import Game


def pending(g: Game, p: int, h: int) -> list[tuple[int, TouchRule]]:
    """Landmarks whose ability a placement on h would trigger for p (first touch), in board order."""
    out: list[tuple[int, TouchRule]] = []
    for r in g.ability_rules:  # empty when no statement uses abilities: nothing to scan per move
        out.extend((lm, r) for lm in g.lm_adj[h] if g.t.landmark_kind[lm] == r.kind and lm not in g.touched[p])
    return out


def ability_of(g: Game, lm: int) -> Ability:
    """The compiled ability printed on a landmark."""
    return g.rs.abilities[g.t.landmark_ability[lm] or ""]


def options(g: Game, p: int, lm: int) -> tuple[Ability, str, list[str] | None]:
    """The landmark's ability, the key its answer is given under, and the possible answers
    (None: nothing to choose; []: nothing possible, so the ability does nothing)."""
    ab = ability_of(g, lm)
    match ab.effect:
        case A.ScoreEffect() | A.DrawCardEffect():
            return ab, "", None
        case A.TakeAsideEffect():
            return ab, "take", tile_names(g.rs, g.set_aside[p])
        case A.DrawKeepEffect(draw=n):
            return ab, "keep", tile_names(g.rs, _shown(g, p, n))
        case A.DoubleEffect(markers=markers, target=target):
            return ab, "double", _unmarked(g, p, markers, target)
    raise TypeError(f"unknown ability effect {type(ab.effect).__name__}")


def _shown(g: Game, p: int, n: int) -> list[tuple[int, int]]:
    """The tiles a "draw N, keep one" shows to choose from: the top n of the supply (none in a scenario,
    whose supplies are not known)."""
    return g.supply[p][-n:] if n and not g.scenario else []


def _unmarked(g: Game, p: int, markers: int, target: str) -> list[str]:
    """The face-up cards a doubling marker may go on (none once the player's markers are all placed): any
    not doubled yet, or only those the player has not fulfilled."""
    doubled = g.doubled[p]
    if len(doubled) >= markers:
        return []
    if target == "any":
        return [c for c in g.public if c not in doubled]
    public_by = g.public_by
    return [c for c in g.public if c not in doubled and p not in public_by[c]]


def tile_names(rs: Ruleset, tiles: list[tuple[int, int]]) -> list[str]:
    """The distinct names of these tiles, sorted (tile_choices)."""
    return list(tile_choices(rs, tiles)[0])  # a list of its own: the caller may change it


def tile_choices(rs: Ruleset, tiles: list[tuple[int, int]]
                 ) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """The distinct names of these tiles, sorted, and the tile each answer names (as the answer is parsed):
    kept per ruleset and set of tiles, since abilities name tiles on every use, and the few tiles of a
    supply's top or a set-aside repeat from game to game."""
    known = rs.derived.tile_names
    key = frozenset(tiles)
    out = known.get(key)
    if out is None:
        if len(known) > _KEPT_NAMES:  # (re)started when full: the sets in use come back quickly
            known = rs.derived.tile_names = {}
        names = tuple(sorted({rs.tile_name(*x) for x in key}))
        out = known[key] = (names, tuple(map(rs.parse_tile, names)))
    return out


_KEPT_NAMES = 4096  # sets of tiles named per ruleset before starting again


def _rule_ids(g: Game) -> tuple[str, ...]:
    return g.ability_rules[0].ids if g.ability_rules else ()


def check_choices(g: Game, p: int, h: int, choices: dict[str, Any], index: int | None) -> None:
    """Refuse, before anything changes, a move whose ability answers are missing, unasked or impossible."""
    trig = pending(g, p, h)
    names = {g.t.landmark_name[lm]: lm for lm, _ in trig}
    for key in choices:
        if key not in names:
            ids = next((r.ids for _, r in trig), ()) or _rule_ids(g)
            what = ", ".join(repr(n) for n in names) or "no landmark with an ability"
            raise IllegalMove(f"a choice is given for {key!r}, but this move first touches {what}",
                              cite(ids, "the ability rule"), index)
    if g.auto_choose is not None:
        return
    for name, lm in names.items():
        ab, key, opts = options(g, p, lm)
        ids = ab.ids or _rule_ids(g)
        c = choices.get(name)
        if c is False or (c in (None, True) and not opts):
            continue
        if c in (None, True):
            raise IllegalMove(f"{name}'s ability {ab.name} needs a choice: "
                              f'"choices": {{"{name}": {{"{key}": ...}}}} with {offered(g, p, key, opts)}',
                              cite(ids, "the ability rule"), index)
        if not isinstance(c, dict) or set(c) != {key}:
            raise IllegalMove(f"{name}'s ability {ab.name} is answered with {{\"{key}\": ...}} (or false to "
                              f"decline), not {c!r}", cite(ids, "the ability rule"), index)
        if c[key] not in (opts or []):
            raise IllegalMove(f"{name}'s ability {ab.name}: {c[key]!r} is not possible; choose "
                              f"{offered(g, p, key, opts)}", cite(ids, "the ability rule"), index)


def offered(g: Game, p: int, key: str, opts: list[str] | None) -> str:
    """The possible answers as a refusal may name them to the mover: a face-down set-aside tile (I-U1: its
    owner may not look at it) or a tile on top of the supply (I-R1: seen only once the question shows it) is
    never named, so a wrong answer cannot be used to read them."""
    if key == "take" and not g.rs.set_aside_visible:
        n = len(g.set_aside[p])
        return f"one of your {n} face-down set-aside tiles (at a table: by position, #1 to #{n})"
    if key == "keep":
        return f"one of the {len(opts or [])} tile kinds drawn from the top of your supply (its question shows them)"
    return f"one of {opts}"


def use(g: Game, lm: int, p: int, rule: TouchRule, index: int | None, choices: dict[str, Any]) -> None:
    """Use the touched landmark's ability with the move's answer (or the playout's own answerer). A quiet
    game (probes, playouts) keeps no events: only the points and the effect, no words are made."""
    name = g.t.landmark_name[lm]
    ab, key, opts = options(g, p, lm)
    c = choices.get(name) if choices else None
    if c is None and g.auto_choose is not None:
        c = g.auto_choose(g, p, lm, ab, key, opts)
    quiet = g.quiet
    ids = () if quiet else tuple(dict.fromkeys(rule.ids + ab.ids))
    if c is False:
        if not quiet:  # nothing scored: a quiet game keeps nothing of it
            g.event(index, p, 0, "ability", ids, "{} first touches {}: declines {}", g.players[p], name, ab.name)
        return
    effect = ab.effect
    if ab.fn is not None:  # points to score (a ScoreEffect: the only effect compiled with a function)
        assert isinstance(effect, A.ScoreEffect)
        pts = ab.fn(Ctx(g, p))
        if quiet:  # the points alone
            g.event(index, p, pts, effect.category, ids, "")
        else:
            g.event(index, p, pts, effect.category, ids,
                    "{} first touches {}: {} = {}", g.players[p], name, ab.name,
                    pts)
        return
    answer: Any = c[key] if isinstance(c, dict) else None
    if opts == [] or (opts and answer is None):
        if not quiet:
            g.event(index, p, 0, "ability", ids, "{} first touches {}: {} has nothing to act on", g.players[p], name,
                    ab.name)
        return
    match effect:
        case A.TakeAsideEffect():
            _take(g, p, g.rs.parse_tile(answer))
            what: tuple[str, *tuple[object, ...]] = ("takes a set-aside {} into hand", answer)  # words, their values
        case A.DrawKeepEffect(draw=n, rest=rest):
            _keep(g, p, n, g.rs.parse_tile(answer), rest)
            what = ("will draw {} and keep {}", n, answer)
        case A.DrawCardEffect(deck=deck_name):
            # the deck's own `when empty` applies, as for a `draw` statement (one meaning per rule)
            draw_card(g, p, deck_name, ids, index, "" if quiet else f"using {ab.name} at {name}")
            return
        case A.DoubleEffect(factor=factor):
            _double(g, p, answer, factor)
            what = ("puts a doubling marker (x{}) on {!r}", factor, answer)
        case _:
            raise TypeError(f"unknown ability effect {type(effect).__name__}")
    if not quiet:  # the event's words, made only when they are kept
        g.event(index, p, 0, "ability", ids, "{} first touches {}: {}: " + what[0], g.players[p], name, ab.name,
                *what[1:])


# ----- the effects, each in one place: `use` and the playouts' `quick_uses` both apply them -------------------
def _take(g: Game, p: int, tile: tuple[int, int]) -> None:
    """Take a set-aside tile into hand."""
    g.set_aside[p].remove(tile)
    g.hand[p].append(tile)


def _keep(g: Game, p: int, n: int, tile: tuple[int, int], rest: str) -> None:
    """The next draw is of n tiles, keeping `tile` (rules.turn.draw), the rest going where `rest` says."""
    g.pending_draw[p] = (n, tile, rest)


def _double(g: Game, p: int, card: str, factor: int) -> None:
    """A doubling marker on a face-up card: it pays the player `factor` times."""
    g.doubled[p][card] = factor


# ----- the generated playouts' use -------------------------------------------------------------------
Below = Callable[[int], int]  # a seat's draw of one of n answers: Random._randbelow, as the playouts answer
QuickUse = Callable[["Game", int, Below], None]


def quick_uses(rs: Ruleset, kinds: set[str]) -> tuple[QuickUse | None, ...] | None:
    """Per landmark, `use` of its ability in a quiet game whose questions the playout answers itself, each seat
    drawing one of the possible answers with its own generator (pyengine.fast._answer_per_seat; `below`: the
    seat's draw): the ability's effect and question decided once here instead of on every use, and the answer
    taken as the tile or card it names, not as its name parsed again. The same draws, effects and points as
    `use`. None for a landmark of no kind in `kinds` (those the ability statements touch), and None in all
    when one of those has no ability printed (`use` refuses it)."""
    out: list[QuickUse | None] = []
    t = rs.t
    for lm, name in enumerate(t.landmark_ability):
        ab = rs.abilities.get(name or "")
        if t.landmark_kind[lm] not in kinds:
            out.append(None)
        elif ab is None:
            return None
        else:
            out.append(_quick(rs, ab))
    return tuple(out)


def _quick(rs: Ruleset, ab: Ability) -> QuickUse:
    """One ability's quick use (quick_uses)."""
    effect = ab.effect
    match effect:
        case A.ScoreEffect(expr=A.Num(value=value), category=category):
            # a number printed on the landmark scores itself: no context is made to read it in (fn gives the same)
            pts = int(value)

            def score_number(g: Game, p: int, below: Below) -> None:
                g.event(None, p, pts, category, (), "")
            return score_number
        case A.ScoreEffect(category=category):
            fn = ab.fn
            assert fn is not None

            def score(g: Game, p: int, below: Below) -> None:
                g.event(None, p, fn(Ctx(g, p)), category, (), "")
            return score
        case A.DrawCardEffect(deck=deck_name):
            def draw(g: Game, p: int, below: Below) -> None:
                draw_card(g, p, deck_name, (), None, "")
            return draw
        case A.TakeAsideEffect():
            def take(g: Game, p: int, below: Below) -> None:
                tiles = tile_choices(rs, g.set_aside[p])[1]
                if tiles:
                    _take(g, p, tiles[below(len(tiles))])
            return take
        case A.DrawKeepEffect(draw=n, rest=rest):
            def keep(g: Game, p: int, below: Below) -> None:
                tiles = tile_choices(rs, _shown(g, p, n))[1]
                if tiles:
                    _keep(g, p, n, tiles[below(len(tiles))], rest)
            return keep
        case A.DoubleEffect(markers=markers, target=target, factor=factor):
            def double(g: Game, p: int, below: Below) -> None:
                cards = _unmarked(g, p, markers, target)
                if cards:
                    _double(g, p, cards[below(len(cards))], factor)
            return double
    raise TypeError(f"unknown ability effect {type(effect).__name__}")

"""Checks of a ruleset, and of a ruleset against a board: an ordered tuple of pure functions.

Each check returns diagnostics and never raises; `check` runs them all, so a user sees every problem
at once, each at its file:line:col (or a board's JSON path).
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

from rebirth_dsl.check.reach import check_reach
from rebirth_dsl.check.symbols import Tables, players_range
from rebirth_dsl.check.types import ExprError, Scope, type_of
from rebirth_dsl.check.variant import check_board_statement, check_categories
from rebirth_dsl.errors import Diagnostic, Fix, Span
from rebirth_dsl.files import shown
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import PER_PLAYER
from rebirth_dsl.lang.limits import (
    MAX_CARDS_PER_DECK,
    MAX_COMPARE,
    MAX_EXPR_DEPTH,
    MAX_EXPR_SIZE,
    MAX_KINDS,
    MAX_NUMBER,
    MAX_PER_PLAYER_NESTING,
    MAX_PLAYERS,
    MAX_TILES_PER_COLOUR,
)
from rebirth_dsl.lang.parser import event_identity, statement_identity
from rebirth_dsl.lang.vocab import PLACES, TIE_STEPS

if TYPE_CHECKING:  # pydantic is not imported to run a ruleset: boards arrive as board.view.BoardView too
    from rebirth_dsl.board.model import Board as BoardModel
    from rebirth_dsl.board.view import BoardView
    from rebirth_dsl.check.symbols import Hex

    Board = BoardModel | BoardView

Check = Callable[[A.Rules, Tables, "Board | None"], list[Diagnostic]]


# the words a setting may take (the runtime gives each its meaning: rules.turn.draw, options)
DRAW_REST = ("bottom", "top", "box")
DOUBLE_TARGETS = ("unfulfilled", "any")

def _at(node: object, msg: str, hint: str | None = None) -> Diagnostic:
    sp = node.span  # type: ignore[attr-defined]
    return Diagnostic(msg, file=sp.file, line=sp.line, col=sp.col, hint=hint)


def _unknown(t: Tables, node: object, what: str, name: str, options: Iterable[str]) -> Diagnostic:
    return t.unknown(node.span, f"unknown {what} `{name}`", what, name, list(options))  # type: ignore[attr-defined]


# ----- limits: nothing `check` accepts can crash, exhaust or hang the engine ----------------------------
def _statement_exprs(s: object) -> Iterator[A.Expr]:
    """The expressions a statement holds (the places check_expressions types)."""
    match s:
        case A.Trigger(action=A.ScoreAction() as act):
            yield act.expr
        case A.AreaBlock():
            for it in s.items:
                if isinstance(it, A.Pay):
                    yield from it.amounts
        case A.DeckBlock():
            for c in s.cards:
                yield c.condition
            if s.on_empty is not None:
                yield s.on_empty.expr
        case A.AbilityDecl(effect=A.ScoreEffect(expr=e)):
            yield e
        case A.EndIncomplete() | A.EndOwned():
            yield s.expr
        case A.WinnerTies():
            for st in s.steps:
                yield st.expr




def expr_measures(e: A.Expr) -> tuple[int, int, int]:
    """An expression's depth, its number of nodes, and how deep best/most/fewest nest in it (each level
    multiplies the work by the number of players), found without recursion (so any AST can be measured)."""
    deepest = size = per_player = 0
    stack: list[tuple[object, int, int]] = [(e, 1, 0)]
    while stack:
        node, d, pp = stack.pop()
        size += 1
        deepest = max(deepest, d)
        match node:
            case A.BinOp():
                stack += [(node.left, d + 1, pp), (node.right, d + 1, pp)]
            case A.Not():
                stack.append((node.operand, d + 1, pp))
            case A.Call():
                pp += node.fn in PER_PLAYER
                per_player = max(per_player, pp)
                stack += [(a, d + 1, pp) for a in node.args]
    return deepest, size, per_player


def expr_depth(e: A.Expr) -> int:
    """How deep an expression's AST nests, found without recursion (so any AST can be measured)."""
    return expr_measures(e)[0]


def _last(rules: A.Rules, cls: type) -> object | None:
    """The statement of a kind that counts: the last (as the compiler reads them)."""
    found = [s for s in rules.statements if isinstance(s, cls)]
    return found[-1] if found else None


def check_limits(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """The limits no real game comes near (rebirth_dsl/lang/limits.py), and counts that must be at least 1:
    whatever passes can be played by `rebirth play` and `simulate` without crashing or hanging."""
    out: list[Diagnostic] = []
    ints: list[tuple[object, str, int]] = []  # (node, what, value): every number a statement holds
    tile_total = 0
    it: A.AreaItem | A.MajorityItem  # the items of an area block, then of a majority block
    for s in rules.statements:
        for e in _statement_exprs(s):
            d, size, per_player = expr_measures(e)
            if d > MAX_EXPR_DEPTH:
                out.append(_at(e, f"this expression is nested {d} deep; the limit is {MAX_EXPR_DEPTH}",
                               "split it, or write it more simply"))
            if size > MAX_EXPR_SIZE:
                out.append(_at(e, f"this expression has {size} parts; the limit is {MAX_EXPR_SIZE} (it is "
                                  "evaluated after every placement)", "split it, or write it more simply"))
            if per_player > MAX_PER_PLAYER_NESTING:
                out.append(_at(e, f"best, most and fewest nest {per_player} deep here; the limit is "
                                  f"{MAX_PER_PLAYER_NESTING} (each level evaluates what it holds once per player)"))
        match s:
            case A.PlayersRange():
                ints += [(s, "a player count", s.low), (s, "a player count", s.high)]
                if not 1 <= s.low <= s.high:
                    out.append(_at(s, f"`players {s.low} to {s.high}`: the counts must run from at least 1 upwards"))
                if s.high > MAX_PLAYERS:
                    out.append(_at(s, f"`players ... to {s.high}`: at most {MAX_PLAYERS} may play (the seats "
                                      "`rebirth play` and `simulate` name)"))
            case A.TileSpec():
                for value, count in s.counts:
                    ints += [(s, "a tile value", value), (s, "a tile count", count)]
                    tile_total += count
                    if count < 1:
                        out.append(_at(s, f"`{s.kind}` has a count of {count}: give at least 1 tile (`x1`), or "
                                          "leave the kind out"))
            case A.Hand():
                ints.append((s, "a hand size", s.count))
                if s.count < 1:
                    out.append(_at(s, f"`hand {s.count}`: a player needs at least 1 tile in hand to play"))
            case A.SetAside() | A.PublicSetup() | A.Neutral():
                ints.append((s, "a count", s.count))
            case A.Returns():
                ints += [(tc, "a count", tc.count) for tc in s.tiles]
            case A.AreaBlock():
                for it in s.items:
                    if isinstance(it, A.Pay):
                        ints.append((it, "an area size", it.size))
                        if it.players is not None:
                            ints.append((it, "a player count", it.players))
                        if it.size < 1:
                            out.append(_at(it, f"`pay size {it.size}`: an area has at least 1 hex"))
            case A.MajorityBlock():
                for it in s.items:
                    if isinstance(it, A.Compare) and len(it.metrics) > MAX_COMPARE:
                        out.append(_at(it, f"{len(it.metrics)} comparisons; at most {MAX_COMPARE} are allowed"))
            case A.DeckBlock():
                copies = 0
                for c in s.cards:
                    ints += [(c, "points", c.points), (c, "a card count", c.copies)]
                    if c.small is not None:
                        ints.append((c, "points", c.small))
                    copies += c.copies
                    if c.copies < 1:
                        out.append(_at(c, f"card {c.name!r} has {c.copies} copies: give at least 1 (`x1`)"))
                if copies > MAX_CARDS_PER_DECK:
                    out.append(_at(s, f"deck `{s.name}` has {copies} cards; at most {MAX_CARDS_PER_DECK} are allowed"))
            case A.AbilityDecl(effect=A.DrawKeepEffect() as eff):
                ints += [(eff, "a count", eff.draw), (eff, "a count", eff.keep)]
                if not 1 <= eff.keep <= eff.draw:
                    out.append(_at(eff, f"`draw {eff.draw} keep {eff.keep}`: keep at least 1 of at least as many "
                                        "drawn"))
    for what, names in (("hex kinds", t.hex_kinds), ("landmark kinds", t.landmark_kinds), ("tags", t.tags),
                        ("tile kinds", t.tile_kinds), ("classes", t.classes)):
        if len(names) > MAX_KINDS:
            out.append(_at(rules.header, f"the ruleset has {len(names)} {what}; at most {MAX_KINDS} are allowed"))
    if tile_total > MAX_TILES_PER_COLOUR:
        first = next(s for s in rules.statements if isinstance(s, A.TileSpec))
        out.append(_at(first, f"a colour has {tile_total} tiles; at most {MAX_TILES_PER_COLOUR} are allowed"))
    for node, what, v in ints:
        if not 0 <= v <= MAX_NUMBER:
            out.append(_at(node, f"{what} of {v} is out of range (0 to {MAX_NUMBER:,})"))
    return out


def check_declarations(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every rules file needs tiles, placement and players; names are declared once."""
    out: list[Diagnostic] = []
    seen: dict[str, str] = {}
    tile_seen: set[str] = set()
    for s in rules.statements:
        if isinstance(s, A.Declare):
            for n in s.names:
                if n in seen and seen[n] != s.what:
                    out.append(_at(s, f"`{n}` is declared as both a {seen[n]} and a {s.what}"))
                seen[n] = s.what
        if isinstance(s, A.ClassDecl) and (s.name in t.attribute_of):  # the tile kinds, as a dict
            out.append(_at(s, f"class `{s.name}` has the name of a tile kind"))
        if isinstance(s, A.TileSpec):
            if s.kind in tile_seen:
                out.append(_at(s, f"tiles of kind `{s.kind}` are given twice; give each kind once"))
            tile_seen.add(s.kind)
            values = [v for v, _ in s.counts]
            if s.attribute and len(set(values)) != len(values):
                out.append(_at(s, f"a value of `{s.kind}` is given twice; give each value once"))
    if not t.tile_kinds:
        out.append(_at(rules.header, "the ruleset declares no tiles (`tiles { food x12 ... }`)"))
    if not any(isinstance(s, A.PlayersRange) for s in rules.statements):
        out.append(_at(rules.header, "the ruleset does not say how many may play (`players 2 to 4`)"))
    return out


def check_names(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every name a statement uses is declared, with a "did you mean" when it is not."""
    out: list[Diagnostic] = []
    # every statement asks these: sets built once, not a list of every name built and read per statement
    hexlike = t.selector_options("hex")
    hexlike_set, tile_set = set(hexlike), set(t.tile_kinds)
    hexes, landmarks, tags = set(t.hex_kinds), set(t.landmark_kinds), set(t.tags)
    ground = t.hex_kinds + t.landmark_kinds
    it: A.AreaItem | A.MajorityItem  # the items of an area block, then of a majority block

    def tile(node: object, name: str, classes: bool = False) -> None:
        if name in tile_set or (classes and name in t.classes):
            return
        options = t.selector_options("tile") if classes else t.tile_kinds
        out.append(_unknown(t, node, "tile kind" + (" or class" if classes else ""), name, options))

    for s in rules.statements:
        match s:
            case A.ClassDecl():
                for k in s.kinds:
                    tile(s, k)
            case A.Returns():
                for tc in s.tiles:
                    tile(tc, tc.kind)
            case A.Declare(what="tag"):
                for k in s.on:
                    if k not in hexes and k not in landmarks:
                        out.append(_unknown(t, s, "hex kind", k, ground))
            case A.Neutral():
                if s.tag not in tags:
                    out.append(_unknown(t, s, "tag", s.tag, t.tags))
            case A.PublicSetup():
                if s.deck not in t.decks:
                    out.append(_unknown(t, s, "deck", s.deck, t.decks))
            case A.PlaceRule():
                tile(s, s.tile)
                for h in s.on:
                    if h not in hexes:
                        out.append(_unknown(t, s, "hex kind", h, t.hex_kinds) if h not in landmarks
                                   else _at(s, f"`{h}` is a landmark: landmarks take no tile"))
            case A.GroupDecl():
                for k in s.kinds:
                    tile(s, k)
            case A.Trigger():
                ev = s.event
                if isinstance(ev, A.PlaceEvent) and isinstance(s.action, A.AbilityAction):
                    out.append(_at(s.action, "`use ability` uses the ability printed on a landmark a tile first "
                                 "touches; a placement alone touches none",
                                 "write it as `on first touch KIND: use ability`"))
                if isinstance(s.action, A.DrawAction) and s.action.deck not in t.decks:
                    out.append(_unknown(t, s.action, "deck", s.action.deck, t.decks))
                if isinstance(ev, A.PlaceEvent):
                    for k in ev.kinds or ():
                        tile(ev, k, classes=True)
                    if ev.at and ev.at not in hexlike_set:
                        out.append(_unknown(t, ev, "hex kind or tag", ev.at, hexlike))
                elif ev.kind not in landmarks:
                    out.append(_unknown(t, ev, "landmark kind", ev.kind, t.landmark_kinds))
                if isinstance(ev, A.TouchEvent):  # `by KINDS` (rules/touch.py): each name at its own place
                    for n in ev.by:
                        tile(n, n.id, classes=True)
                    if ev.by and isinstance(s.action, A.AbilityAction):
                        out.append(_at(ev.by[0], "`use ability` takes no `by` filter: a printed ability is used "
                                       "once by each player, on the first touch by any tile",
                                       f"write it as `on first touch {ev.kind}: use ability`"))
            case A.AreaBlock():
                if s.kind not in hexes:
                    out.append(_unknown(t, s, "hex kind", s.kind, t.hex_kinds))
                for it in s.items:
                    if isinstance(it, A.RankBy) and it.attribute not in t.attributes:
                        out.append(_unknown(t, it, "tile attribute", it.attribute, t.attributes))
                    if isinstance(it, A.Ties):
                        for step in it.steps:
                            if step not in TIE_STEPS:
                                opts = [" ".join(k) for k in TIE_STEPS]
                                dym = t.suggest(" ".join(step), opts)
                                out.append(_at(it, f"unknown tie-break `{' '.join(step)}`",
                                               f"did you mean `{dym}`?" if dym else "one of: " + "; ".join(opts)))
                    if isinstance(it, A.Alone):
                        for p in it.places:
                            if p not in PLACES:
                                out.append(_unknown(t, it, "place", p, PLACES))
            case A.MajorityBlock():
                if s.kind not in landmarks:
                    out.append(_unknown(t, s, "landmark kind", s.kind, t.landmark_kinds))
                for it in s.items:
                    if isinstance(it, A.Compare):
                        for m in it.metrics:
                            if m != "any":
                                tile(it, m, classes=True)
            case A.PublicDecl():
                if s.deck not in t.decks:
                    out.append(_unknown(t, s, "deck", s.deck, t.decks))
            case A.AbilityDecl():
                eff = s.effect
                if isinstance(eff, A.DrawCardEffect | A.DoubleEffect) and eff.deck not in t.decks:
                    out.append(_unknown(t, eff, "deck", eff.deck, t.decks))
                if isinstance(eff, A.DrawKeepEffect):
                    if eff.rest not in DRAW_REST:
                        out.append(_unknown(t, eff, "place for the rest", eff.rest, DRAW_REST))
                    if eff.keep != 1 or eff.draw < 2:
                        out.append(_at(eff, f"`draw {eff.draw} keep {eff.keep}`: the engine keeps exactly one of two "
                                       "or more tiles drawn", "write `draw N keep 1` with N at least 2"))
                if isinstance(eff, A.DoubleEffect):
                    if eff.target not in DOUBLE_TARGETS:
                        out.append(_unknown(t, eff, "doubling target", eff.target, DOUBLE_TARGETS))
                    if eff.factor < 2 or eff.markers < 1:
                        out.append(_at(eff, f"`double ... by {eff.factor}, {eff.markers} per player`: a marker "
                                       "multiplies by at least 2, and each player has at least 1"))
            case A.EndIncomplete():
                if s.kind not in hexes:
                    out.append(_unknown(t, s, "hex kind", s.kind, t.hex_kinds))
            case A.EndOwned():
                if s.kind not in landmarks:
                    out.append(_unknown(t, s, "landmark kind", s.kind, t.landmark_kinds))
    return out


def check_tiles(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Returned tiles exist in the mix; set-aside and hand fit what is left (S-U3, S-U4)."""
    out: list[Diagnostic] = []
    mix: dict[tuple[str, int | None], int] = {}
    total = 0
    for s in rules.statements:
        if isinstance(s, A.TileSpec):
            for value, count in s.counts:
                key = (s.kind, value if s.attribute else None)
                mix[key] = mix.get(key, 0) + count  # as the compiler builds the mix: every count adds
                total += count
    last_aside = _last(rules, A.SetAside)
    aside = last_aside.count if isinstance(last_aside, A.SetAside) else 0
    returned_for: dict[int, int] = {}
    for s in rules.statements:
        if not isinstance(s, A.Returns):
            continue
        taken: dict[tuple[str, int | None], int] = {}  # what this line returns so far (not a copy of the mix
        returned = 0  # per line: many lines and many kinds would cost their product)
        for tc in s.tiles:
            if tc.kind not in t.tile_kinds:
                continue
            attr = t.attribute_of.get(tc.kind)
            if attr and tc.value is None:
                out.append(_at(tc, f"`{tc.kind}` tiles differ by {attr}; say which: `{tc.kind}:N`"))
                continue
            if not attr and tc.value is not None:
                out.append(_at(tc, f"`{tc.kind}` tiles carry no value; write `{tc.kind}` without `:{tc.value}`"))
                continue
            key = (tc.kind, tc.value if attr else None)
            left = mix.get(key, 0) - taken.get(key, 0)
            if left < tc.count:
                out.append(_at(tc, f"cannot return {tc.count} x {tc.kind}{':' + str(tc.value) if attr else ''}: "
                                   f"a colour has {left} left"))
            taken[key] = taken.get(key, 0) + tc.count
            returned += tc.count
        returned_for[s.players] = returned
        if total - returned - aside < 1:
            out.append(_at(s, f"with {s.players} players nothing is left to play after returning {returned} "
                              f"and setting aside {aside}"))
    lo, hi = players_range(rules)
    if t.tile_kinds and last_aside is not None and any(total - aside < 1 for n in range(lo, hi + 1)
                                                       if n not in returned_for):
        out.append(_at(last_aside, f"setting aside {aside} of a colour's {total} tiles leaves nothing to play"))
    return out


def check_placement(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every tile kind has a placement rule; fallbacks follow one (S-P2..S-P4)."""
    out: list[Diagnostic] = []
    primary = {s.tile for s in rules.statements if isinstance(s, A.PlaceRule) and not s.fallback}
    for s in rules.statements:
        if isinstance(s, A.PlaceRule) and s.fallback and s.tile not in primary:
            out.append(_at(s, f"fallback for `{s.tile}` but no `place {s.tile} on ...` rule"))
    for s in rules.statements:
        if isinstance(s, A.TileSpec) and s.kind not in primary:
            out.append(_at(s, f"tiles of kind `{s.kind}` have no placement rule (`place {s.kind} on ...`)"))
    return out


def check_required(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Statements that state how the engine plays, each the one way it can: the ruleset must say it, so
    nothing is decided behind the rules' back and no such statement is accepted and ignored (S-P1, S-T1,
    S-P5, S-A1, S-K1, S-K2). A ruleset without one is refused, naming the statement to write."""
    out: list[Diagnostic] = []
    head = rules.header

    def need(cls: type, text: str, why: str) -> None:
        if not any(isinstance(s, cls) for s in rules.statements):
            out.append(Diagnostic(f"the ruleset must say `{text}`: {why}", file=head.span.file, line=head.span.line,
                                  col=head.span.col, hint=f"add the line `{text}`", code="required"))

    need(A.OneTile, "one tile per hex", "the engine holds one tile per hex")
    need(A.Turns, "turns clockwise", "the engine plays its turns clockwise, skipping players with no tile")
    need(A.PassRule, "when no hex is legal: pass", "a tile with no legal hex must go somewhere")
    for s in rules.statements:
        if isinstance(s, A.AreaBlock) and not any(isinstance(it, A.RankBy) for it in s.items):
            out.append(_at(s, f"area {s.kind} must say how players rank: `rank by ATTRIBUTE` (the engine ranks by "
                           "the sum of the attribute of each player's tiles in the area)",
                           f"add `rank by {next(iter(sorted(t.attributes)), 'influence')}` to the block"))
        if isinstance(s, A.MajorityBlock):
            for cls, text in ((A.OverAdjacent, "over adjacent"), (A.UnownedTakes, "unowned: placer takes")):
                if not any(isinstance(it, cls) for it in s.items):
                    out.append(_at(s, f"majority {s.kind} must say `{text}`: the one way the engine holds "
                                   "landmarks", f"add `{text}` to the block"))
    return out


def check_expressions(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Types, arity and names of every expression, in the context it is evaluated in."""
    errors: list[ExprError] = []
    want: list[tuple[A.Expr, str, Scope]] = []
    for s in rules.statements:
        match s:
            case A.Trigger(action=A.ScoreAction() as act):
                want.append((act.expr, "int", Scope(placed=True)))  # the hex just placed on, touch or not
            case A.AreaBlock():
                for it in s.items:
                    if isinstance(it, A.Pay):
                        want.extend((e, "int", Scope(influence=True)) for e in it.amounts)
            case A.DeckBlock():
                want.extend((c.condition, "bool", Scope()) for c in s.cards)
                if s.on_empty is not None:
                    want.append((s.on_empty.expr, "int", Scope()))
            case A.AbilityDecl(effect=A.ScoreEffect(expr=e)):
                want.append((e, "int", Scope()))
            case A.EndIncomplete():
                want.append((s.expr, "int", Scope(influence=True)))
            case A.EndOwned():
                want.append((s.expr, "int", Scope()))
            case A.WinnerTies():
                want.extend((st.expr, "player", Scope(me=False)) for st in s.steps)
    for expr, typ, scope in want:
        if expr_depth(expr) > MAX_EXPR_DEPTH:
            continue  # reported by check_limits; the type checker recurses, so it is not walked
        got = type_of(expr, t, scope, errors)
        if got not in (typ, "?"):
            sp = expr.span
            article = "an" if typ[:1] in "aeiou" else "a"
            errors.append(ExprError.single(f"this must be {article} {typ}, but it is {'an' if got[:1] in 'aeiou' else 'a'} {got}", file=sp.file,
                                           line=sp.line, col=sp.col))
    return [d for e in errors for d in e.diagnostics]


def check_decks(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Card names are unique within a deck; a public deck's cards have a small number and are laid out."""
    out: list[Diagnostic] = []
    laid_out = {s.deck for s in rules.statements if isinstance(s, A.PublicSetup)}
    public: set[str] = set()
    for s in rules.statements:
        if isinstance(s, A.PublicDecl) and s.deck in t.decks and s.deck not in public:
            public.add(s.deck)  # a card's missing small number is the card's problem: said once, however many
            for c in t.decks[s.deck].cards:  # statements make its deck public (a repeat is check_meaning's)
                if c.small is None:
                    out.append(_at(c, f"card {c.name!r} is in the public deck `{s.deck}`: give its small number "
                                      f"too (`{c.points} / N`)"))
            if s.deck not in laid_out:
                out.append(_at(s, f"public missions from `{s.deck}`, but the setup lays none out "
                                  f"(`public 8 from {s.deck}`)"))
    for d in t.decks.values():
        seen: set[str] = set()
        for c in d.cards:
            if c.name in seen:
                out.append(_at(c, f"card {c.name!r} is in deck `{d.name}` twice (use `xN` for copies)"))
            seen.add(c.name)
    return out


def check_citations(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every rule statement cites the rule id it encodes in its comment (RULES.md habit)."""
    out: list[Diagnostic] = []
    for s in rules.statements:
        if isinstance(s, A.Declare | A.BoardDecl | A.CategoryDecl):  # declarations, not rules
            continue
        whole = not isinstance(s, A.AreaBlock | A.MajorityBlock | A.DeckBlock)
        items = getattr(s, "items", None) or getattr(s, "cards", None)
        if t.ids(s.span, whole=whole):
            continue
        if items and all(t.ids(it.span) for it in items):
            continue
        out.append(_at(s, "this rule cites no rule id; add a comment naming the id of the rule it encodes (the ids of RULES.md, e.g. `# X-P2`)"))
    return out


# ----- rules against a board ------------------------------------------------------------------
def _bd(board_file: str, path: str, msg: str) -> Diagnostic:
    return Diagnostic(msg, file=board_file, path=path)


def check_board_names(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every kind, tag and ability on the board is declared by the rules."""
    if board is None:
        return []
    board_hexes: Sequence[Hex] = board.hexes  # enumerate(board.hexes) would give `object` items
    out: list[Diagnostic] = []
    kinds = t.hex_kinds + t.landmark_kinds
    kind_set, tag_set = set(kinds), set(t.tags)
    abilities = {s.name for s in rules.statements if isinstance(s, A.AbilityDecl)}
    for i, h in enumerate(board_hexes):
        if h.kind not in kind_set:
            dym = t.suggest(h.kind, kinds)
            out.append(_bd(t.board_file, f"$.hexes[{i}].kind", f"hex kind {h.kind!r} is not declared by the rules"
                           + (f"; did you mean {dym!r}?" if dym else "")))
        for j, tag in enumerate(h.tags):
            if tag not in tag_set:
                dym = t.suggest(tag, t.tags)
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags[{j}]", f"tag {tag!r} is not declared by the rules"
                               + (f"; did you mean {dym!r}?" if dym else "")))
        if h.kind in t.landmark_kinds and not h.name:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"a {h.kind} needs a name"))
        if h.ability is not None and h.ability not in abilities:
            dym = t.suggest(h.ability, abilities)
            out.append(_bd(t.board_file, f"$.hexes[{i}].ability", f"ability {h.ability!r} is not declared by the "
                           "rules" + (f"; did you mean {dym!r}?" if dym else "")))
    using = {s.event.kind for s in rules.statements if isinstance(s, A.Trigger)  # each kind once: the board is
             and isinstance(s.action, A.AbilityAction) and isinstance(s.event, A.TouchEvent)}  # read once, not per rule
    if using:
        for i, h in enumerate(board_hexes):
            if h.kind in using and h.ability is None:
                out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} {h.name!r} names no ability"))
    return out


def check_board_has_what_rules_use(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every landmark kind and tag a rule acts on is on the board (else that rule could never fire)."""
    if board is None:
        return []
    kinds = {h.kind for h in board.hexes}
    tags = {tag for h in board.hexes for tag in h.tags}
    out: list[Diagnostic] = []
    for s in rules.statements:
        used: list[tuple[str, str]] = []
        match s:
            case A.MajorityBlock() | A.EndOwned():
                used.append(("kind", s.kind))
            case A.Trigger(event=A.TouchEvent() as ev):
                used.append(("kind", ev.kind))
            case A.Trigger(event=A.PlaceEvent(at=at)) if at is not None:
                used.append(("tag" if at in t.tags else "kind", at))
            case A.Neutral():
                used.append(("tag", s.tag))
        for what, name in used:
            if t.selector_kind(name) is None:
                continue  # declared nowhere: that is the problem to report (check_names does), not the board
            if name not in (kinds if what == "kind" else tags):
                out.append(_at(s, f"this rule acts on {'hexes tagged ' if what == 'tag' else ''}{name}"
                                  f"{' hexes' if what == 'kind' else ''}, but {t.board_file or 'the board'} has none"))
    return out


def check_areas(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Areas are of an area kind, contiguous, and have a payout for their size at every player count."""
    if board is None:
        return []
    board_hexes: Sequence[Hex] = board.hexes  # enumerate(board.hexes) would give `object` items
    out: list[Diagnostic] = []
    area_rules = {s.kind: s for s in rules.statements if isinstance(s, A.AreaBlock)}
    lo, hi = players_range(rules)
    first_index: dict[str, int] = {}
    sizes_of: dict[str, set[tuple[int, int | None]]] = {}
    for i, h in enumerate(board_hexes):
        if h.area is not None:
            first_index.setdefault(h.area, i)
            if h.kind not in area_rules:
                out.append(_bd(t.board_file, f"$.hexes[{i}].area",
                               f"hex ({h.q},{h.r}) of kind {h.kind!r} is in area {h.area!r}, but the rules score "
                               f"no {h.kind} areas"))
        elif h.kind in area_rules:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} hex ({h.q},{h.r}) belongs to no area"))
    for a, hexes in enumerate(t.area_hexes):
        name = t.area_names[a]
        path = f"$.hexes[{first_index[name]}].area"
        kinds = {t.hex_kind[h] for h in hexes}
        if len(kinds) > 1:
            out.append(_bd(t.board_file, path, f"area {name!r} mixes hex kinds {sorted(kinds)}"))
        # contiguity: a flood fill from the first hex reaches them all
        todo, seen = [hexes[0]], {hexes[0]}
        members = set(hexes)
        while todo:
            x = todo.pop()  # a hex id (h is a board hex above)
            for m in t.neighbours[x]:
                if m in members and m not in seen:
                    seen.add(m)
                    todo.append(m)
        if seen != members:
            out.append(_bd(t.board_file, path, f"area {name!r} is not contiguous: "
                           f"{sorted(t.coords[h] for h in members - seen)} are cut off from {t.coords[hexes[0]]}"))
        rule = area_rules.get(t.hex_kind[hexes[0]])
        if rule is None:
            continue
        if rule.kind not in sizes_of:  # a block's payouts gathered once, not once per area of its kind
            sizes_of[rule.kind] = {(it.size, it.players) for it in rule.items if isinstance(it, A.Pay)}
        sizes = sizes_of[rule.kind]
        for n in range(lo, hi + 1):
            if (len(hexes), n) not in sizes and (len(hexes), None) not in sizes:
                out.append(_bd(t.board_file, path, f"area {name!r} has {len(hexes)} hexes, but the rules have no "
                               f"`pay size {len(hexes)}` (with {n} players)"))
                break
    return out


def check_geometry(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Tags sit where their rules can fire; landmarks touch tile hexes; no tile hex is cut off."""
    if board is None:
        return []
    board_hexes: Sequence[Hex] = board.hexes  # enumerate(board.hexes) would give `object` items
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    tag_rules: dict[str, set[str]] = {}
    placed_on: dict[str, set[str]] = {}  # tile kind: the hexes its place rules cover, gathered once
    for p in rules.statements:
        if isinstance(p, A.PlaceRule):
            placed_on.setdefault(p.tile, set()).update(p.on)
    tag_set = set(t.tags)
    triggers = {(s.event.at, s.event.kinds) for s in rules.statements  # each trigger's tag and kinds once
                if isinstance(s, A.Trigger) and isinstance(s.event, A.PlaceEvent) and s.event.at in tag_set}
    for at, named in triggers:
        kinds = set(named or t.tile_kinds)
        kinds |= {k for n in list(kinds) for k in t.classes.get(n, ())}  # a class stands for its kinds
        hexes = tag_rules.setdefault(at, set())
        for k in kinds:
            hexes |= placed_on.get(k, set())
    for i, h in enumerate(board_hexes):
        for tag in h.tags:
            allowed = t.tag_on.get(tag)
            if allowed and h.kind not in allowed:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): the "
                               f"rules put {tag} only on {', '.join(allowed)} hexes"))
            elif tag in tag_rules and h.kind not in tag_rules[tag]:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): its "
                               f"rule only fires for tiles placed on {', '.join(sorted(tag_rules[tag]))} hexes"))
        nb = t.neighbours[i]
        if h.kind in t.landmark_kinds and not any(t.hex_kind[m] in takeable for m in nb):
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} {h.name!r} has no neighbour that takes a tile"))
        if h.kind in takeable and not nb:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"hex ({h.q},{h.r}) has no neighbours at all"))
    return out


def check_supply(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Neutral-hex counts match, and every player count's tiles fit on the board (S-U2, S-U3)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    n_take = sum(1 for h in board.hexes if h.kind in takeable)
    total = sum(c for s in rules.statements if isinstance(s, A.TileSpec) for _, c in s.counts)
    last_aside = _last(rules, A.SetAside)
    aside = last_aside.count if isinstance(last_aside, A.SetAside) else 0
    returns = {s.players: sum(tc.count for tc in s.tiles) for s in rules.statements if isinstance(s, A.Returns)}
    neutral = {s.players: s for s in rules.statements if isinstance(s, A.Neutral)}
    lo, hi = players_range(rules)
    tagged = Counter(tag for h in board.hexes for tag in set(h.tags))  # once, however many player counts
    for n, s in neutral.items():
        have = tagged[s.tag]
        if have != s.count and s.tag in t.tags:  # an undeclared tag is check_names' to say, once
            out.append(_at(s, f"with {n} players {s.count} neutral tiles go on `{s.tag}` hexes, but "
                              f"{t.board_file} has {have}"))
    for n in range(lo, hi + 1):
        tiles = n * (total - returns.get(n, 0) - aside)
        if n in neutral:
            tiles += neutral[n].count
        if tiles > n_take:
            out.append(Diagnostic(f"with {n} players {tiles} tiles are placed, but the board has only {n_take} "
                                  "hexes that take a tile", file=t.board_file, path="$.hexes"))
    return out


def check_neutral_hexes(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """The hexes neutral tiles are laid on take a tile: a neutral tile occupies its hex (S-U2)."""
    if board is None:
        return []
    board_hexes: Sequence[Hex] = board.hexes  # enumerate(board.hexes) would give `object` items
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    laid = {s.tag: s for s in rules.statements if isinstance(s, A.Neutral)}
    for i, h in enumerate(board_hexes):
        for tag in h.tags:
            if tag in laid and h.kind not in takeable:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): with "
                               f"{laid[tag].players} players a neutral tile goes there, but no rule places a tile on "
                               f"{h.kind} hexes"))
    return out


def check_abilities(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every declared ability is printed on a landmark whose first touch uses it, and only there (I-R1)."""
    if board is None:
        return []
    board_hexes: Sequence[Hex] = board.hexes  # enumerate(board.hexes) would give `object` items
    out: list[Diagnostic] = []
    users = {s.event.kind for s in rules.statements if isinstance(s, A.Trigger)
             and isinstance(s.event, A.TouchEvent) and isinstance(s.action, A.AbilityAction)}
    printed: set[str] = set()
    declared = set(t.hex_kinds + t.landmark_kinds)
    for i, h in enumerate(board_hexes):
        if h.ability is None:
            continue
        printed.add(h.ability)
        if h.kind not in users and h.kind in declared:
            out.append(_bd(t.board_file, f"$.hexes[{i}].ability", f"{h.kind} {h.name!r} carries ability "
                           f"{h.ability!r}, but no rule uses the abilities of {h.kind} hexes"
                           + (f" (only those of {', '.join(sorted(users))})" if users else "")))
    for s in rules.statements:
        if isinstance(s, A.AbilityDecl) and s.name not in printed:
            out.append(_at(s, f"ability `{s.name}` is printed on no landmark of {t.board_file or 'the board'}, so it "
                              "can never be used"))
    return out


def _landmark_refs(node: object) -> Iterator[A.Landmark]:
    """Every landmark reference (`KIND "NAME"`, `KIND with TAG`) inside a piece of the AST."""
    if isinstance(node, A.Landmark):
        yield node
    elif isinstance(node, tuple | list):
        for x in node:
            yield from _landmark_refs(x)
    elif is_dataclass(node) and not isinstance(node, A.Span):
        for f in fields(node):
            yield from _landmark_refs(getattr(node, f.name))


def check_landmarks_by_tag(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """A landmark the rules name by a tag (`castle with clover`) is one landmark of the board (S-C3, S-E4)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    seen: set[tuple[str, str]] = set()
    for ref in _landmark_refs(rules.statements):
        if ref.tag is None or (ref.kind, ref.tag) in seen:
            continue
        seen.add((ref.kind, ref.tag))
        names = t.landmarks_tagged(ref.kind, ref.tag)
        if len(names) > 1:
            out.append(_at(ref, f"`{ref.kind} with {ref.tag}` names one {ref.kind}, but {t.board_file or 'the board'} "
                                f"has {len(names)}: {', '.join(names)}"))
    return out


def check_deck_supply(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Warn when the draws the board and the player count allow can empty a deck whose block does not say
    what a draw from it then does (`when empty: draw nothing`, S-M1)."""
    if board is None:
        return []
    most = max((s.high for s in rules.statements if isinstance(s, A.PlayersRange)), default=0)
    draws: dict[str, int] = {}
    landmark_set = set(t.landmark_kinds)
    landmarks = [h for h in board.hexes if h.kind in landmark_set]
    of_kind = Counter(h.kind for h in landmarks)  # counted once: a rule per kind would read the board each time
    printed = Counter(h.ability for h in landmarks)
    for s in rules.statements:
        match s:
            case A.Trigger(event=A.TouchEvent(kind=k), action=A.DrawAction(deck=d)):
                draws[d] = draws.get(d, 0) + most * of_kind[k]
            case A.PublicSetup(count=n, deck=d):
                draws[d] = draws.get(d, 0) + n
            case A.AbilityDecl(name=name, effect=A.DrawCardEffect(deck=d)):
                draws[d] = draws.get(d, 0) + most * printed[name]
    out = []
    for s in rules.statements:
        if isinstance(s, A.DeckBlock) and s.name in draws and not s.empty_span.line:
            size = sum(c.copies for c in s.cards)
            if draws[s.name] > size:
                out.append(Diagnostic(
                    f"the {s.name} deck holds {size} cards, but {most} players can draw up to {draws[s.name]} on "
                    f"this board: say what a draw from the empty deck does", file=s.span.file, line=s.span.line,
                    col=s.span.col, severity="warning", code="deck-runs-out",
                    hint="add `when empty: draw nothing` (or `when empty: score EXPR as CATEGORY`) to the deck"))
    return out


def check_meaning(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Statements that check otherwise but could never act are refused, each at its place: a trigger at a
    hex no tile goes on, public cards with no rule to score them (or more than the deck holds), returns or
    neutral tiles for a player count the ruleset does not allow, groups of a kind that forms none, a
    doubling marker for a deck that is not laid face up, and a statement written twice in one file."""
    out: list[Diagnostic] = []
    st = rules.statements
    placeable = {k for s in st if isinstance(s, A.PlaceRule) for k in s.on}
    players = next(((s.low, s.high) for s in st if isinstance(s, A.PlayersRange)), None)
    grouped = {k for s in st if isinstance(s, A.GroupDecl) for k in s.kinds}
    public_setup = next((s for s in st if isinstance(s, A.PublicSetup)), None)
    public_decl = next((s for s in st if isinstance(s, A.PublicDecl)), None)
    deck_sizes = {s.name: sum(c.copies for c in s.cards) for s in st if isinstance(s, A.DeckBlock)}
    for s in st:
        match s:
            case A.Trigger(event=A.PlaceEvent(at=at)) if at and at in t.hex_kinds and at not in placeable:
                out.append(_at(s.event, f"no tile is ever placed on a `{at}` hex: this trigger never fires",
                               "name a hex kind some `place` rule covers, or a tag"))
            case A.Trigger(event=A.TouchEvent(by=by)) if by:
                placed = {s2.tile for s2 in st if isinstance(s2, A.PlaceRule)}
                for n in by:
                    kinds = t.classes.get(n.id, (n.id,))
                    if n.id in t.tile_kinds or n.id in t.classes:
                        if not placed.intersection(kinds):
                            out.append(_at(n, f"no `place` rule places a {n.id} tile: this first touch by {n.id} "
                                           "never fires", f"add `place {n.id} on ...` or name a tile kind that is "
                                           "placed"))
            case A.PublicSetup():
                if public_decl is None:
                    out.append(_at(s, "cards are laid face up, but no `public DECK as CATEGORY: ...` statement "
                                   "scores them", "add the public statement or remove this line"))
                elif s.deck in deck_sizes and s.count > deck_sizes[s.deck]:
                    out.append(_at(s, f"`public {s.count} from {s.deck}`: the deck holds only "
                                   f"{deck_sizes[s.deck]} cards"))
            case A.PublicDecl() if public_setup is None:
                out.append(_at(s, f"no cards of `{s.deck}` are laid face up (`public N from {s.deck}` in setup): "
                               "this statement never scores"))
            case A.Returns() | A.Neutral() if players and not players[0] <= s.players <= players[1]:
                # a warning: a variant that narrows the player count leaves its base's lines behind
                d = _at(s, f"`players {s.players}:` is outside `players {players[0]} to {players[1]}`: "
                        "it never applies")
                d.severity = "warning"
                out.append(d)
            case A.AbilityDecl(effect=A.DoubleEffect(deck=d)) if public_setup is None or public_setup.deck != d:
                out.append(_at(s.effect, f"a doubling marker goes on a face-up card, and no `{d}` cards are laid "
                               "face up", f"lay them with `public N from {d}` in setup"))
    for expr in (e for s in st for e in _statement_exprs(s)):
        for call in _calls(expr, "groups"):
            for a in call.args[1:]:
                if isinstance(a, A.Name):
                    kinds = t.classes.get(a.id, (a.id,))
                    if t.is_selector("tile", a.id) and not set(kinds) & grouped:
                        out.append(_at(a, f"`{a.id}` tiles form no groups (`group` does not list them): "
                                       "groups of them are always empty", f"add {a.id} to the `group` statement"))
    classes = {s.name: s.kinds for s in st if isinstance(s, A.ClassDecl)}
    seen: dict[object, A.Statement] = {}
    for s in st:
        if isinstance(s, A.Trigger | A.Without | A.Declare | A.TileSpec):
            continue  # triggers: the overlap warning; declarations and tiles merge by name
        key = statement_identity(s, classes)
        if key is None:
            continue
        if key in seen and seen[key].span.file == s.span.file:
            first = seen[key].span
            out.append(_at(s, f"this repeats the statement at line {first.line}: write it once (which one would "
                           "count is not something a reader should have to know)"))
        seen[key] = s
    return out


def _calls(e: A.Expr, fn: str) -> Iterator[A.Call]:
    """Every call of a function inside an expression."""
    match e:
        case A.Call(fn=name, args=args):
            if name == fn:
                yield e
            for a in args:
                yield from _calls(a, fn)
        case A.BinOp(left=left, right=right):
            yield from _calls(left, fn)
            yield from _calls(right, fn)
        case A.Not(operand=o):
            yield from _calls(o, fn)


def _counts(low: int, high: int) -> str:
    """An entry's counts as written: `4`, `2 to 3`."""
    return str(low) if low == high else f"{low} to {high}"


def _runs(ns: list[int]) -> list[tuple[int, int]]:
    """Ascending counts as runs of consecutive ones: [2, 3, 5] -> [(2, 3), (5, 5)]."""
    out: list[tuple[int, int]] = []
    for n in ns:
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def _spanning(d: Diagnostic, sp: Span) -> Diagnostic:
    """The diagnostic underlining the whole of a node (an entry, a table), not just its first character."""
    d.end_line, d.end_col = sp.end_line, sp.end_col
    return d


def check_player_tables(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """A player-count table, `players(2 to 3: 15, 4: 13)`, gives one number for each count the ruleset plays
    (`players LOW to HIGH`): an entry for a count never played, a count given twice, an entry that runs
    downwards, or a count played and left out, each at its place. An entry of a base ruleset's table that a
    variant's narrower player range leaves out is only a warning: the variant did not write it."""
    out: list[Diagnostic] = []
    lo, hi = t.players
    pr = _last(rules, A.PlayersRange)
    range_at = pr.span if isinstance(pr, A.PlayersRange) else None
    stated = f"`players {lo} to {hi}`"
    for s in rules.statements:
        for e in _statement_exprs(s):
            for call in _calls(e, "players"):
                entries = [a for a in call.args if isinstance(a, A.PlayerEntry)]  # others: check_expressions
                if not entries:
                    continue
                # a base's table under a player range a variant states: the variant's author never wrote it
                inherited = range_at is not None and call.span.file not in (range_at.file, rules.file)
                where = f" at {shown(range_at.file)}:{range_at.line}" if inherited and range_at else ""
                given: list[A.PlayerEntry] = []
                for en in entries:
                    written = f"`{_counts(en.low, en.high)}: {en.value}`"
                    if en.low > en.high:
                        out.append(_spanning(_at(en, f"{written} runs downwards: an entry names the counts from "
                                                     "LOW up to HIGH", f"write `{en.high} to {en.low}: {en.value}`"),
                                             en.span))
                        continue
                    played = f"the ruleset plays with {lo} to {hi} players ({stated}{where})"
                    widen = ", or widen `players LOW to HIGH`" if not inherited else \
                        " in a restated statement (this is the base ruleset's table)"
                    if en.high < lo or en.low > hi:  # none of its counts is ever played
                        d = _at(en, f"{written}: {played}, never with {_counts(en.low, en.high)}: this entry never "
                                    "applies", "remove the entry" + widen)
                        d.severity = "warning" if inherited else "error"
                        out.append(_spanning(d, en.span))
                        continue
                    if en.low < lo or en.high > hi:  # some of its counts are never played
                        never = [_counts(en.low, lo - 1)] if en.low < lo else []
                        never += [_counts(hi + 1, en.high)] if en.high > hi else []
                        d = _at(en, f"{written}: {played}, never with {' or '.join(never)}: the entry names counts "
                                    "no game has", f"write `{_counts(max(en.low, lo), min(en.high, hi))}: "
                                                   f"{en.value}`" + widen)
                        d.severity = "warning" if inherited else "error"
                        out.append(_spanning(d, en.span))
                    first = next((g for g in given if g.low <= en.high and en.low <= g.high), None)
                    if first is not None:
                        both = _counts(max(en.low, first.low), min(en.high, first.high))
                        out.append(_spanning(_at(en, f"{written} gives a number for {both} players again: the "
                                                     f"entry `{_counts(first.low, first.high)}: {first.value}` at "
                                                     f"column {first.span.col} already does",
                                                 "give each player count one number"), en.span))
                    given.append(en)
                missing = [n for n in range(lo, hi + 1) if not any(g.low <= n <= g.high for g in given)]
                if missing:
                    runs = _runs(missing)
                    said = " and ".join(_counts(a, b) for a, b in runs)
                    add = ", ".join(f"{_counts(a, b)}: N" for a, b in runs)
                    d = _at(call, f"this table gives no number for {said} players, but the ruleset plays with {lo} "
                                  f"to {hi} players ({stated}{where}): a game of {said.replace(' and ', ' or ')} players "
                                  "would have none here",
                            f"add `{add}` to the table" + (" (restate the base's statement here: a variant "
                                                           "replaces a statement whole)" if inherited else ""))
                    if range_at is not None:
                        d.related = (("the player counts the ruleset plays", range_at),)
                    out.append(_spanning(d, call.span))
    return out


OVERLAP_OTHERS_SHOWN = 20  # earlier statements counted in one warning: past this it says "at least"


def _first_earliest(lists: list[list[int]], cap: int) -> tuple[int | None, int]:
    """Merge ascending lists of statement numbers: the smallest, and how many distinct others (up to cap)."""
    heads = [(lst[0], i, 0) for i, lst in enumerate(lists) if lst]
    heapq.heapify(heads)
    first: int | None = None
    others = 0
    last = -1
    while heads and others <= cap:
        n, i, j = heapq.heappop(heads)
        if n != last:
            if first is None:
                first = n
            else:
                others += 1
            last = n
        if j + 1 < len(lists[i]):
            heapq.heappush(heads, (lists[i][j + 1], i, j + 1))
    return first, others


def check_overlaps(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Warn where a statement scores a placement into a category an earlier statement already scores it
    into: usually a variant that meant to replace a base statement but named its trigger differently
    (docs/language.md, overrides). One warning per statement that doubles, naming the first it doubles."""
    out: list[Diagnostic] = []
    scoring: list[A.Trigger] = []
    # the earlier scoring triggers (their numbers in `scoring`, ascending), indexed so that a trigger finds
    # the ones it meets without comparing itself with every other: a file of N copies is N warnings, not N²
    touch: dict[tuple[object, ...], list[int]] = {}  # (category, landmark kind)
    by_cat: dict[str, list[int]] = {}  # every placement trigger of a category
    by_cat_at: dict[tuple[object, ...], list[int]] = {}  # (category, at or None)
    by_kind: dict[tuple[object, ...], list[int]] = {}  # (category, tile kind or "any")
    by_kind_at: dict[tuple[object, ...], list[int]] = {}  # (category, tile kind or "any", at or None)
    for s in rules.statements:
        if not (isinstance(s, A.Trigger) and isinstance(s.action, A.ScoreAction)):
            continue
        cat = s.action.category
        ev = event_identity(s.event, t.classes)
        n = len(scoring)
        scoring.append(s)
        if ev[0] != "place":
            lists = [touch.setdefault((cat, ev[1]), [])]
            met = [lists[0]]
            kinds_at: list[list[int]] = []
        else:
            kinds, at = ev[1], ev[2]
            # two placements meet when their kinds share one (or either is `any`) and their hexes do (either
            # names no `at`, or both name the same)
            if not isinstance(kinds, tuple):  # `any`
                met = [by_cat.get(cat, [])] if at is None else [by_cat_at.get((cat, at), []),
                                                                by_cat_at.get((cat, None), [])]
            elif at is None:
                met = [by_kind.get((cat, k), []) for k in (*kinds, "any")]
            else:
                met = [by_kind_at.get((cat, k, a), []) for k in (*kinds, "any") for a in (at, None)]
            own = kinds if isinstance(kinds, tuple) else ("any",)
            kinds_at = [by_cat.setdefault(cat, []), by_cat_at.setdefault((cat, at), [])]
            kinds_at += [by_kind.setdefault((cat, k), []) for k in own]
            kinds_at += [by_kind_at.setdefault((cat, k, at), []) for k in own]
            lists = []
        first, others = _first_earliest(met, OVERLAP_OTHERS_SHOWN)
        for lst in lists + kinds_at:
            lst.append(n)
        if first is None:
            continue
        old = scoring[first].span
        where = f"{old.file}:{old.line}"
        if others == 0:
            msg = f"this scores into `{cat}` what the statement at {where} already scores into `{cat}`: both count"
        else:
            more = f"at least {others}" if others > OVERLAP_OTHERS_SHOWN else str(others)
            msg = (f"this scores into `{cat}` what the statement at {where} already scores into `{cat}`, as do "
                   f"{more} other earlier statement{'s' if others > 1 else ''}: all count")
        out.append(Diagnostic(
            msg, file=s.span.file, line=s.span.line, col=s.span.col, severity="warning", code="double-scoring",
            related=((f"the statement that already scores it into `{cat}`", old),),
            hint="a statement replaces an extended ruleset's only when its trigger is the same; to drop the "
                 "other write `without on ...` naming its event, or score into another category"))
    return out


RULES_CHECKS: tuple[Check, ...] = (
    check_limits,
    check_declarations,
    check_names,
    check_tiles,
    check_placement,
    check_required,
    check_expressions,
    check_player_tables,
    check_decks,
    check_overlaps,
    check_meaning,
    check_reach,  # can never act, always acts (check/reach.py); against a full board, its board checks too
    check_board_statement,
    check_categories,
)
BOARD_CHECKS: tuple[Check, ...] = (check_deck_supply, check_board_names, check_board_has_what_rules_use, check_areas, check_geometry,
                                   check_supply, check_neutral_hexes, check_abilities,
                                   check_landmarks_by_tag)


def check(rules: A.Rules, board: Board | None = None, board_file: str = "", strict: bool = False,
          full: bool = True) -> list[Diagnostic]:
    """Run the checks. `full` adds the map-design checks (areas, geometry, supply, named landmarks) that a
    tiny test board need not pass to be played; `strict` adds the style check (rule ids cited)."""
    t = Tables(rules, board)
    t.board_file = shown(board_file) if board_file else ""
    t.require_landmarks = full
    out: list[Diagnostic] = []
    checks = RULES_CHECKS + ((check_citations,) if strict else ())
    if board is not None:
        checks += BOARD_CHECKS if full else (check_board_names,)
    for c in checks:
        for d in c(rules, t, board):
            d.code = d.code or c.__name__.removeprefix("check_").replace("_", "-")  # which check found it
            out.append(d)
    lines: dict[str, list[str]] = {}  # each file split once, not once per diagnostic in it
    return _by_position(_one_per_cause(_grouped([_pointed(d, rules, lines) for d in out])), rules.file)


def _one_per_cause(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic for a name declared nowhere, however many statements use it (a landmark kind in a
    trigger and in a mission is one missing `landmark` line): the first, naming the other lines."""
    def key(d: Diagnostic) -> tuple[str, str] | None:  # the sort of declaration missing, the name it declares
        named = _WORD.search(d.message) if d.code.startswith("undeclared") else None
        return (d.code, named.group(1)) if named else None

    uses: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diags:
        k = key(d)
        if k is not None:
            uses.setdefault(k, []).append(d)
    keep: set[int] = set()
    for same in uses.values():
        first = min(same, key=lambda x: (x.file, x.line, x.col))
        keep.add(id(first))
        lines = sorted({x.line for x in same if x.file == first.file} - {first.line})
        if lines:
            shown_lines = ", ".join(map(str, lines[:10])) + (", ..." if len(lines) > 10 else "")
            first.hint = f"{first.hint} (it is used at line{'s' if len(lines) > 1 else ''} {shown_lines} too)"
    return [d for d in diags if key(d) is None or id(d) in keep]


def _by_position(diags: list[Diagnostic], main: str) -> list[Diagnostic]:
    """Problems in reading order: the checked file's by line and column first, then each other file's
    (its base ruleset's), then the board's in the order found (a JSON path has no line)."""
    files = list(dict.fromkeys([main] + [d.file for d in diags if d.line]))
    return sorted(diags, key=lambda d: (0, files.index(d.file), d.line, d.col) if d.line else (1, 0, 0, 0))


_WORD = re.compile(r"`([^`]+)`")
_DID_YOU_MEAN = re.compile(r"did you mean `([^`\s]+)`\?")


def _pointed(d: Diagnostic, rules: A.Rules, split: dict[str, list[str]] | None = None) -> Diagnostic:
    """Move a diagnostic from the start of its statement to the word it is about (the first name in
    backticks in its message, searched from the statement's start), and underline that word."""
    src = rules.sources.get(d.file)
    if not d.line or src is None:
        return d
    split = {} if split is None else split
    if d.file not in split:
        split[d.file] = src.splitlines()
    lines = split[d.file]
    if d.source_line is None and 0 < d.line <= len(lines):
        d.source_line = lines[d.line - 1]
    m = _WORD.search(d.message)
    if m is None or " " in m.group(1):
        return d
    word = m.group(1)
    for ln in range(d.line, min(d.line + 40, len(lines)) + 1):
        text = lines[ln - 1].split("#", 1)[0]
        hit = _whole_word(text, word, d.col - 1 if ln == d.line else 0)
        if hit >= 0:
            d.line, d.col, d.end_line, d.end_col = ln, hit + 1, ln, hit + len(word) + 1
            d.source_line = lines[ln - 1]
            dym = _DID_YOU_MEAN.fullmatch(d.hint or "")
            if dym and not d.fixes:  # the hint as an edit of the word, for the editor's code action
                d.fixes = (Fix(f"change to `{dym.group(1)}`", Span(d.file, ln, d.col, ln, d.end_col), dym.group(1)),)
            return d
    return d


def _whole_word(text: str, word: str, start: int) -> int:
    """Where a word first stands whole in a text from a start (not inside a longer name), else -1: a
    search by str.find, as a pattern compiled per diagnostic costs more than the rest of the check."""
    i = text.find(word, start)
    while i >= 0:
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(word):i + len(word) + 1]
        if not _NAME_CHAR.fullmatch(before or "-") and not _NAME_CHAR.fullmatch(after or "-"):
            return i
        i = text.find(word, i + 1)
    return -1


_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")


def _grouped(diags: list[Diagnostic], show: int = 3) -> list[Diagnostic]:
    """One diagnostic for the same cause on many places of a board: the first, with a count and the first
    few JSON paths (a small ruleset against a big board would otherwise print a line per hex)."""
    groups: dict[tuple[str, str, str], list[Diagnostic]] = {}
    order: list[Diagnostic | tuple[str, str, str]] = []
    for d in diags:
        if not d.path or d.line:
            order.append(d)
            continue
        key = (d.file, d.severity, re.sub(r"\(-?\d+,\s*-?\d+\)|'[^']*'|\$\.[^\s:]+|\d+", "#", d.message))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(d)
    out: list[Diagnostic] = []
    for item in order:
        if isinstance(item, Diagnostic):
            out.append(item)
            continue
        same = groups[item]
        first = same[0]
        if len(same) > show:
            paths = ", ".join(x.path for x in same[:show])
            seen = set(re.findall(r"'[^']*'", first.message))
            others = list(dict.fromkeys(q for x in same[1:] for q in re.findall(r"'[^']*'", x.message) if q not in seen))
            also = f"; also {', '.join(others[:5])}{', ...' if len(others) > 5 else ''}" if others else ""
            first.message += f" (the same on {len(same)} places: {paths}, ...{also})"
        out.extend([first] if len(same) > show else same)
    return out



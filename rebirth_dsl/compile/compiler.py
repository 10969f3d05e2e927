"""AST + board -> a compiled Ruleset: integer tables, neighbour tuples and closures the engine runs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING, __version__, cache
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.closures import compile_expr
from rebirth_dsl.compile.exprgen import lazy_expr_function
from rebirth_dsl.compile.prims import CompiledExpr
from rebirth_dsl.compile.ruleset import (
    Ability,
    AreaRule,
    CardDef,
    EmptyDeck,
    MajorityRule,
    PlaceDraw,
    PublicRule,
    Reaction,
    Ruleset,
    ScoreTrigger,
    TouchRule,
)
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.ids import join_ids
from rebirth_dsl.lang.vocab import PLACES, TIE_STEPS, TieStep

if TYPE_CHECKING:
    from rebirth_dsl.compile.prims import Fn
    from rebirth_dsl.compile.reads import Reads, Threshold

if TYPE_CHECKING:  # pydantic is not imported to run a ruleset: boards arrive as board.view.BoardView too
    from rebirth_dsl.board.model import Board as BoardModel
    from rebirth_dsl.board.view import BoardView

    Board = BoardModel | BoardView


def _generated(expr: A.Expr, t: Tables) -> CompiledExpr:
    """Expressions read over whole positions (cards, end scoring, tie-breaks) run as generated Python,
    compiled at their first call (exprgen.lazy_expr_function: `rebirth eval` of a short game calls 4 of
    Scotland's 35); the closures of expr.py remain the reference they are tested against, and run where
    Python cannot compile the source (nesting past its parser's limits)."""
    return CompiledExpr(expr, lazy_expr_function(expr, t, lambda: compile_expr(expr, t)))


def _touch_by(ev: A.TouchEvent, t: Tables) -> frozenset[int] | None:
    """The tile kinds a filtered first touch counts (`by settlement`, classes expanded); None: every kind."""
    return frozenset().union(*(t.tile_kind_ids(n.id) for n in ev.by)) if ev.by else None


def _category(cats: list[str], name: str) -> str:
    if name not in cats:
        cats.append(name)
    return name


@lru_cache(maxsize=1)
def _checker_code() -> bytes:
    """The source of everything that decides whether a ruleset passes its checks on a board: the
    language (grammar, parser, AST), the checks and the board's validation."""
    pkg = Path(__file__).resolve().parents[1]
    files = sorted(p for d in ("lang", "check", "board") for p in (pkg / d).iterdir() if p.suffix in (".py", ".lark"))
    return cache.code_of(files)


def _check(rules: A.Rules, board: Board) -> None:
    """Refuse rules with errors (warnings still play). A ruleset and a board whose texts passed before, under
    the same code, pass again: that is remembered in the data-only cache (keyed by the SHA-256 of every
    source text, the board's validated bytes and the code), so a warm `rebirth eval` need not even import
    the checks. A board given as a model (no `digest`) is always checked."""
    board_key = getattr(board, "digest", None)
    key = None
    if board_key:
        texts = [part for name, text in sorted(rules.sources.items()) for part in (name, text)]
        key = cache.digest(__version__, _checker_code(), board_key, rules.file, *texts)
        if cache.load("checked", key) == {"errors": 0}:
            return
    from rebirth_dsl.check.checks import check  # 960 lines to compile and run: for texts not checked before

    problems = [d for d in check(rules, board, full=False) if d.severity != "warning"]
    if problems:
        raise RebirthError(problems)
    if key is not None:
        cache.store("checked", key, {"errors": 0})


def compile_rules(rules: A.Rules, board: Board) -> Ruleset:
    """Resolve every name against the board and compile every expression; raise on any problem."""

    _check(rules, board)
    t = Tables(rules, board)
    rs = Ruleset(t, rules.header.name, rules.header.title or rules.header.name, tile_kinds=list(t.tile_kinds))
    cats: list[str] = []
    track: list[str] = []
    reactions: list[Reaction] = []  # in file order
    for s in rules.statements:
        ids = t.ids(s.span, whole=not isinstance(s, A.AreaBlock | A.MajorityBlock))
        match s:
            case A.PlayersRange():
                rs.players, rs.cites.players = (s.low, s.high), ids
            case A.TileSpec():
                kid = t.tile_kinds.index(s.kind)
                for value, count in s.counts:
                    rs.mix.extend([(kid, value)] * count)
                rs.cites.mix += tuple(i for i in ids if i not in rs.cites.mix)
            case A.SetAside():
                rs.set_aside, rs.set_aside_visible, rs.cites.set_aside = s.count, s.visible, ids
            case A.Hand():
                rs.hand = s.count
            case A.Returns():
                rs.returns[s.players] = list(s.tiles)
                rs.cites.returns[s.players] = ids
            case A.Neutral():
                rs.neutral[s.players] = s
            case A.PublicSetup():
                rs.public = s
            case A.PlaceRule():
                kid = t.tile_kinds.index(s.tile)
                if s.fallback:
                    rs.fallback[kid] = tuple(dict.fromkeys(s.on))
                    rs.cites.fallback[kid] = ids
                else:
                    rs.primary[kid] = tuple(dict.fromkeys(s.on))
                    rs.cites.place[kid] = ids
            case A.OneTile():
                rs.cites.one_tile = ids
            case A.Turns():
                rs.cites.turns = ids
            case A.PassRule():
                rs.cites.passes = ids
            case A.GroupDecl():
                rs.group_kinds = frozenset(t.tile_kinds.index(k) for k in s.kinds)
            case A.Trigger(event=A.PlaceEvent() as ev, action=A.ScoreAction() as act):
                kinds = None if ev.kinds is None else frozenset().union(*(t.tile_kind_ids(k) for k in ev.kinds))
                at = t.hex_matches(ev.at) if ev.at else None
                reactions.append(ScoreTrigger(kinds, at, compile_expr(act.expr, t), _category(cats, act.category),
                                                 ids, _text(rules, act.expr.span), act.expr))
                track.append(act.category)
            case A.Trigger(event=A.PlaceEvent() as ev, action=A.DrawAction() as act):
                kinds = None if ev.kinds is None else frozenset().union(*(t.tile_kind_ids(k) for k in ev.kinds))
                reactions.append(PlaceDraw(kinds, t.hex_matches(ev.at) if ev.at else None, act.deck, ids))
            case A.Trigger(event=A.TouchEvent() as ev, action=A.ScoreAction() as act):
                reactions.append(TouchRule(ev.kind, act, ids, compile_expr(act.expr, t), _text(rules, act.expr.span),
                                              _touch_by(ev, t)))
                _category(cats, act.category)
                track.append(act.category)
            case A.Trigger(event=A.TouchEvent() as ev):
                reactions.append(TouchRule(ev.kind, s.action, ids, by=_touch_by(ev, t)))
            case A.Trigger():  # check refuses every other combination; reaching here is a bug, never silence
                raise RebirthError.single("this trigger and action cannot be compiled", file=s.span.file,
                                          line=s.span.line, col=s.span.col)
            case A.AreaBlock():
                rule = _area(s, t, rules, cats)
                rs.areas[s.kind] = rule
                reactions.append(rule)
                track.append(rule.category)
            case A.MajorityBlock():
                majority = _majority(s, t)
                rs.majorities.append(majority)
                reactions.append(majority)
            case A.DeckBlock():
                if s.on_empty is None:
                    rs.empty_decks[s.name] = EmptyDeck(None, "draw", t.ids(s.empty_span))
                else:
                    act = s.on_empty
                    rs.empty_decks[s.name] = EmptyDeck(CompiledExpr(act.expr, compile_expr(act.expr, t)),
                                                       _category(cats, act.category),
                                                       t.ids(s.empty_span), _text(rules, act.expr.span))
                    track.append(act.category)
                rs.decks[s.name] = [_card(c, t) for c in s.cards for _ in range(c.copies)]
            case A.PublicDecl():
                rs.public_category = _category(cats, s.category)
                track.append(s.category)
                reactions.append(PublicRule(s.deck, s.category, ids, s.placer_first))
            case A.AbilityDecl():
                fn = None
                if isinstance(s.effect, A.ScoreEffect):
                    fn = compile_expr(s.effect.expr, t)
                    _category(cats, s.effect.category)
                    track.append(s.effect.category)
                rs.abilities[s.name] = Ability(s.name, s.effect, ids, fn)
            case A.EndIncomplete():
                rs.end_incomplete.append((s.kind, _generated(s.expr, t), _category(cats, s.category), ids))
            case A.EndOwned():
                rs.end_owned.append((s.kind, _generated(s.expr, t), _category(cats, s.category), ids))
            case A.EndHeld():
                rs.end_held = (_category(cats, s.category), ids)
            case A.WinnerTies():
                rs.winner_ties = [(_generated(st.expr, t), st.among_tied, _text(rules, st.span)) for st in s.steps]
    rs.reactions = tuple(reactions)
    rs.categories = cats
    rs.track_categories = [c for c in cats if c in track]
    rs.freeze()
    return rs


def _card(c: A.Card, t: Tables) -> CardDef:
    """A card with its compiled condition, what the condition reads, and its threshold form if it has one
    (those two found when first read: CardDef)."""
    def analysis() -> tuple[Reads | None, Threshold | None, CompiledExpr | None]:
        # only the engines that play on from a position read a card's analysis: its module, imported here
        from rebirth_dsl.compile.reads import reads_of, threshold_of

        th = threshold_of(c.condition, t)
        return reads_of(c.condition, t), th, None if th is None else _generated(th.measure, t)

    return CardDef(c.name, c.points, c.small, _generated(c.condition, t), t.ids(c.span), analysis=analysis)


def _text(rules: A.Rules, span: A.Span) -> str:
    src = rules.sources.get(span.file, "")
    lines = src.splitlines()
    if not span.line or span.line > len(lines):
        return ""
    if span.end_line == span.line:
        return lines[span.line - 1][span.col - 1:span.end_col - 1].strip()
    return lines[span.line - 1][span.col - 1:].split("#")[0].strip()


def _area(s: A.AreaBlock, t: Tables, rules: A.Rules, cats: list[str]) -> AreaRule:
    pay: dict[tuple[int, int | None], tuple[Fn, ...]] = {}
    pay_exprs: dict[tuple[int, int | None], tuple[A.Expr, ...]] = {}
    ties: tuple[TieStep, ...] = ()
    alone: tuple[int, ...] = ()
    ids: list[str] = list(t.ids(s.span, whole=False))
    rank_ids: list[str] = []
    pay_ids: dict[tuple[int, int | None], tuple[str, ...]] = {}
    alone_ids: tuple[str, ...] = ()
    for it in s.items:
        its = t.ids(it.span)
        ids.extend(i for i in its if i not in ids)
        match it:
            case A.Pay():
                pay[(it.size, it.players)] = tuple(compile_expr(e, t) for e in it.amounts)
                pay_exprs[(it.size, it.players)] = it.amounts
                pay_ids[(it.size, it.players)] = its
            case A.Ties():
                ties = tuple(TIE_STEPS[st] for st in it.steps)
                rank_ids.extend(its)
            case A.RankBy():
                rank_ids[:0] = its
            case A.Alone():
                alone = tuple(PLACES.index(p) for p in it.places)
                alone_ids = its
    paid = {key: (join_ids(tuple(rank_ids), pids), join_ids(tuple(rank_ids), pids, alone_ids))
            for key, pids in pay_ids.items()}
    return AreaRule(s.kind, _category(cats, s.category or s.kind), ties, pay, alone, tuple(ids), tuple(rank_ids),
                    pay_ids, alone_ids, paid, pay_exprs)


def _majority(s: A.MajorityBlock, t: Tables) -> MajorityRule:
    metrics: tuple[frozenset[int] | None, ...] = (None,)
    placer_takes = False
    ids: list[str] = list(t.ids(s.span, whole=False))
    for it in s.items:
        ids.extend(i for i in t.ids(it.span) if i not in ids)
        match it:
            case A.Compare():
                metrics = tuple(None if m == "any" else t.tile_kind_ids(m) for m in it.metrics)
            case A.FinalTie():
                placer_takes = it.placer_takes
    names: tuple[str, ...] = ("any",)
    step_ids: dict[str, tuple[str, ...]] = {}
    for it in s.items:
        its = t.ids(it.span)
        match it:
            case A.OverAdjacent():
                step_ids["over"] = its
            case A.UnownedTakes():
                step_ids["unowned"] = its
            case A.FinalTie():
                step_ids["final"] = its
            case A.Compare():
                names = it.metrics
                # `# S-K3, S-K4` on a two-metric line: one id per metric, in order
                for i in range(len(it.metrics)):
                    step_ids[f"compare.{i}"] = (its[i],) if len(its) == len(it.metrics) else its
    lms = tuple(i for i, k in enumerate(t.landmark_kind) if k == s.kind)
    # A majority scores nothing by itself (the end block pays for holding), so its category is only a label.
    return MajorityRule(s.kind, s.category or s.kind, lms, metrics, placer_takes, tuple(ids), names, step_ids)

"""Lark parse tree -> AST. Nothing else happens here: names are checked later, in checks.py."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A


def _span(file: str, meta: Meta) -> A.Span:
    if getattr(meta, "empty", True):
        return A.NOSPAN
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _count(tok: Token) -> int:
    return int(str(tok)[1:])


def _str(tok: Token) -> str:
    return str(tok)[1:-1]


@v_args(meta=True)
class Lower(Transformer):
    """Turns each grammar rule into its AST node; blocks of keyed statements are flattened."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file

    def s(self, meta: Meta) -> Span:
        """The span of a rule."""
        return _span(self.file, meta)

    # top level
    def start(self, meta: Meta, items: list[Any]) -> tuple[A.Header, list[Any]]:
        """The header and the flattened statement list."""
        header, *rest = items
        flat: list[Any] = []
        for it in rest:
            flat.extend(it if isinstance(it, list) else [it])
        return header, flat

    def header(self, meta: Meta, items: list[Any]) -> A.Header:
        """`ruleset NAME "title" extends "file"`."""
        title = _str(items[1]) if items[1] is not None else ""
        return A.Header(str(items[0]), title, items[2], self.s(meta))

    def extends_clause(self, meta: Meta, items: list[Token]) -> str:
        """`extends "file"`."""
        return _str(items[0])

    def players_range(self, meta: Meta, items: list[Token]) -> A.PlayersRange:
        """`players 2 to 4`."""
        return A.PlayersRange(int(items[0]), int(items[1]), self.s(meta))

    def name_list(self, meta: Meta, items: list[Token]) -> tuple[str, ...]:
        """A comma-separated list of names."""
        return tuple(str(t) for t in items)

    def hex_decl(self, meta: Meta, items: list[Any]) -> A.Declare:
        """`hex plain, food, ...`."""
        return A.Declare("hex", items[0], self.s(meta))

    def landmark_decl(self, meta: Meta, items: list[Any]) -> A.Declare:
        """`landmark castle, cathedral`."""
        return A.Declare("landmark", items[0], self.s(meta))

    def tag_decl(self, meta: Meta, items: list[Any]) -> A.Declare:
        """`tag harbour, clover, neutral`."""
        return A.Declare("tag", items[0], self.s(meta), items[1] or ())

    # tiles
    def tiles_block(self, meta: Meta, items: list[Any]) -> list[A.TileSpec]:
        """The tile specs, flattened."""
        return list(items)

    def tile_plain(self, meta: Meta, items: list[Token]) -> A.TileSpec:
        """`food x12`."""
        return A.TileSpec(str(items[0]), None, ((0, _count(items[1])),), self.s(meta))

    def tile_valued(self, meta: Meta, items: list[Any]) -> A.TileSpec:
        """`settlement influence 1 x3, 2 x4`."""
        return A.TileSpec(str(items[0]), str(items[1]), tuple(items[2:]), self.s(meta))

    def value_count(self, meta: Meta, items: list[Token]) -> tuple[int, int]:
        """`1 x3`."""
        return int(items[0]), _count(items[1])

    def class_decl(self, meta: Meta, items: list[Any]) -> A.ClassDecl:
        """`class farm = food, energy`."""
        return A.ClassDecl(str(items[0]), items[1], self.s(meta))

    # setup
    def setup_block(self, meta: Meta, items: list[Any]) -> list[Any]:
        """Setup statements, flattened."""
        return list(items)

    def set_aside(self, meta: Meta, items: list[Token]) -> A.SetAside:
        """`set aside 2 visible`."""
        return A.SetAside(int(items[0]), str(items[1]) == "visible", self.s(meta))

    def hand(self, meta: Meta, items: list[Token]) -> A.Hand:
        """`hand 1`."""
        return A.Hand(int(items[0]), self.s(meta))

    def returns(self, meta: Meta, items: list[Any]) -> A.Returns:
        """`players 4: return food x3, settlement:2`."""
        return A.Returns(int(items[0]), tuple(items[1:]), self.s(meta))

    def tile_count(self, meta: Meta, items: list[Token | None]) -> A.TileCount:
        """`settlement:2 x1`."""
        value = int(items[1]) if items[1] is not None else None
        count = _count(items[2]) if items[2] is not None else 1
        return A.TileCount(str(items[0]), value, count, self.s(meta))

    def neutral(self, meta: Meta, items: list[Token]) -> A.Neutral:
        """`players 2: neutral 32 on neutral`."""
        return A.Neutral(int(items[0]), int(items[1]), str(items[2]), self.s(meta))

    def public_setup(self, meta: Meta, items: list[Token]) -> A.PublicSetup:
        """`public 8 from mission`."""
        return A.PublicSetup(int(items[0]), str(items[1]), self.s(meta))

    # placement
    def place_rule(self, meta: Meta, items: list[Any]) -> A.PlaceRule:
        """`place food on food, plain`."""
        return A.PlaceRule(str(items[0]), items[1], False, self.s(meta))

    def fallback_rule(self, meta: Meta, items: list[Any]) -> A.PlaceRule:
        """`fallback food on energy`."""
        return A.PlaceRule(str(items[0]), items[1], True, self.s(meta))

    def one_tile(self, meta: Meta, items: list[Any]) -> A.OneTile:
        """`one tile per hex`."""
        return A.OneTile(self.s(meta))

    def turns(self, meta: Meta, items: list[Any]) -> A.Turns:
        """`turns clockwise`."""
        return A.Turns(self.s(meta))

    def pass_rule(self, meta: Meta, items: list[Any]) -> A.PassRule:
        """`when no hex is legal: pass`."""
        return A.PassRule(self.s(meta))

    def group_decl(self, meta: Meta, items: list[Any]) -> A.GroupDecl:
        """`group food, energy`."""
        return A.GroupDecl(items[0], self.s(meta))

    # triggers
    def trigger(self, meta: Meta, items: list[Any]) -> A.Trigger:
        """`on EVENT: ACTION`."""
        return A.Trigger(items[0], items[1], self.s(meta))

    def tile_sel(self, meta: Meta, items: list[Any]) -> tuple[str, ...] | None:
        """`any` (None) or a list of kinds."""
        return None if isinstance(items[0], Token) and items[0].type == "ANY" else items[0]

    def ev_place(self, meta: Meta, items: list[Any]) -> A.PlaceEvent:
        """`place food, energy at harbour`."""
        at = str(items[1]) if items[1] is not None else None
        return A.PlaceEvent(items[0], at, self.s(meta))

    def ev_touch(self, meta: Meta, items: list[Token]) -> A.TouchEvent:
        """`first touch cathedral`."""
        return A.TouchEvent(str(items[0]), self.s(meta))

    def act_score(self, meta: Meta, items: list[Any]) -> A.ScoreAction:
        """`score EXPR as CATEGORY`."""
        return A.ScoreAction(items[0], str(items[1]), self.s(meta))

    def act_draw(self, meta: Meta, items: list[Token]) -> A.DrawAction:
        """`draw DECK`."""
        return A.DrawAction(str(items[0]), self.s(meta))

    def act_ability(self, meta: Meta, items: list[Any]) -> A.AbilityAction:
        """`use ability`."""
        return A.AbilityAction(self.s(meta))

    # areas
    def area_block(self, meta: Meta, items: list[Any]) -> A.AreaBlock:
        """`area KIND as CATEGORY { ... }`."""
        category = str(items[1]) if items[1] is not None else None
        return A.AreaBlock(str(items[0]), category, tuple(items[2:]), self.s(meta))

    def rank_by(self, meta: Meta, items: list[Token]) -> A.RankBy:
        """`rank by influence`."""
        return A.RankBy(str(items[0]), self.s(meta))

    def ties(self, meta: Meta, items: list[Any]) -> A.Ties:
        """`ties: completer last, then clockwise from completer`."""
        return A.Ties(tuple(items), self.s(meta))

    def tie_step(self, meta: Meta, items: list[Token]) -> tuple[str, ...]:
        """A tie-break phrase, checked against the known phrases later."""
        return tuple(str(t) for t in items)

    def pay(self, meta: Meta, items: list[Any]) -> A.Pay:
        """`pay size 3 players 2: 8, 5`."""
        size = int(items[0])
        players = int(items[1]) if items[1] is not None else None
        return A.Pay(size, players, tuple(items[2:]), self.s(meta))

    def alone(self, meta: Meta, items: list[Token]) -> A.Alone:
        """`alone: first + second`."""
        return A.Alone(tuple(str(t) for t in items), self.s(meta))

    # majorities
    def majority_block(self, meta: Meta, items: list[Any]) -> A.MajorityBlock:
        """`majority KIND as CATEGORY { ... }`."""
        category = str(items[1]) if items[1] is not None else None
        return A.MajorityBlock(str(items[0]), category, tuple(items[2:]), self.s(meta))

    def over_adjacent(self, meta: Meta, items: list[Any]) -> A.OverAdjacent:
        """`over adjacent`."""
        return A.OverAdjacent(self.s(meta))

    def unowned_takes(self, meta: Meta, items: list[Any]) -> A.UnownedTakes:
        """`unowned: placer takes`."""
        return A.UnownedTakes(self.s(meta))

    def compare(self, meta: Meta, items: list[str]) -> A.Compare:
        """`compare tiles any, then tiles farm`."""
        return A.Compare(tuple(items), self.s(meta))

    def metric(self, meta: Meta, items: list[Token]) -> str:
        """`tiles any` / `tiles farm`."""
        return str(items[0])

    def final_owner(self, meta: Meta, items: list[Any]) -> A.FinalTie:
        """`final tie: owner keeps`."""
        return A.FinalTie(False, self.s(meta))

    def final_placer(self, meta: Meta, items: list[Any]) -> A.FinalTie:
        """`final tie: placer takes`."""
        return A.FinalTie(True, self.s(meta))

    # decks and abilities
    def deck_block(self, meta: Meta, items: list[Any]) -> A.DeckBlock:
        """`deck NAME { [when empty: ...] card ... }`."""
        name, empty, *cards = items
        on_empty, empty_span = (None, A.NOSPAN) if empty is None else empty
        return A.DeckBlock(str(name), tuple(cards), self.s(meta), on_empty, empty_span)

    def empty_nothing(self, meta: Meta, items: list[Any]) -> tuple[None, A.Span]:
        """`when empty: draw nothing`."""
        return None, self.s(meta)

    def empty_score(self, meta: Meta, items: list[Any]) -> tuple[A.ScoreAction, A.Span]:
        """`when empty: score EXPR as CATEGORY`."""
        return A.ScoreAction(items[0], str(items[1]), self.s(meta)), self.s(meta)

    def card(self, meta: Meta, items: list[Any]) -> A.Card:
        """`card "Name" 6 / 2 x2: EXPR`."""
        small = int(items[2]) if items[2] is not None else None
        copies = _count(items[3]) if items[3] is not None else 1
        return A.Card(_str(items[0]), int(items[1]), small, copies, items[4], self.s(meta))

    def public_decl(self, meta: Meta, items: list[Token]) -> A.PublicDecl:
        """`public DECK as CATEGORY: first big, later small`."""
        return A.PublicDecl(str(items[0]), str(items[1]), items[2], self.s(meta))

    def order_placer_first(self, meta: Meta, items: list[Any]) -> bool:
        """`placer first`."""
        return True

    def order_seats(self, meta: Meta, items: list[Any]) -> bool:
        """`seat order`."""
        return False

    def ability_decl(self, meta: Meta, items: list[Any]) -> A.AbilityDecl:
        """`ability NAME: EFFECT`."""
        return A.AbilityDecl(str(items[0]), items[1], self.s(meta))

    def ab_score(self, meta: Meta, items: list[Any]) -> A.ScoreEffect:
        """`score EXPR as CATEGORY`."""
        return A.ScoreEffect(items[0], str(items[1]), self.s(meta))

    def ab_take_aside(self, meta: Meta, items: list[Any]) -> A.TakeAsideEffect:
        """`take set aside`."""
        return A.TakeAsideEffect(self.s(meta))

    def ab_draw_keep(self, meta: Meta, items: list[Token]) -> A.DrawKeepEffect:
        """`draw 3 keep 1`."""
        return A.DrawKeepEffect(int(items[0]), int(items[1]), str(items[2]), self.s(meta))

    def ab_draw_card(self, meta: Meta, items: list[Token]) -> A.DrawCardEffect:
        """`draw DECK`."""
        return A.DrawCardEffect(str(items[0]), self.s(meta))

    def ab_double(self, meta: Meta, items: list[Token]) -> A.DoubleEffect:
        """`double DECK`."""
        return A.DoubleEffect(str(items[0]), int(items[1]), int(items[2]), str(items[3]), self.s(meta))

    # end
    def end_block(self, meta: Meta, items: list[Any]) -> list[Any]:
        """End statements, flattened."""
        return list(items)

    def end_incomplete(self, meta: Meta, items: list[Any]) -> A.EndIncomplete:
        """`incomplete KIND: EXPR as CATEGORY`."""
        return A.EndIncomplete(str(items[0]), items[1], str(items[2]), self.s(meta))

    def end_owned(self, meta: Meta, items: list[Any]) -> A.EndOwned:
        """`each KIND owned: EXPR as CATEGORY`."""
        return A.EndOwned(str(items[0]), items[1], str(items[2]), self.s(meta))

    def end_held(self, meta: Meta, items: list[Token]) -> A.EndHeld:
        """`held cards as CATEGORY`."""
        return A.EndHeld(str(items[0]), self.s(meta))

    def winner_ties(self, meta: Meta, items: list[A.TieBreak]) -> A.WinnerTies:
        """`winner ties: STEP, then STEP`."""
        return A.WinnerTies(tuple(items), self.s(meta))

    def tb_among(self, meta: Meta, items: list[Any]) -> A.TieBreak:
        """`EXPR among tied`."""
        return A.TieBreak(items[0], True, self.s(meta))

    def tb_anywhere(self, meta: Meta, items: list[Any]) -> A.TieBreak:
        """`EXPR anywhere`."""
        return A.TieBreak(items[0], False, self.s(meta))

    def without_trigger(self, meta: Meta, items: list[Any]) -> A.Without:
        """`without on EVENT`."""
        return A.Without(("on",) + items[0].key, self.s(meta))

    def without_ability(self, meta: Meta, items: list[Token]) -> A.Without:
        """`without ability NAME`."""
        return A.Without(("ability", str(items[0])), self.s(meta))

    # expressions
    def or_expr(self, meta: Meta, items: list[Any]) -> A.Expr:
        """`a or b or c`."""
        return self._fold("or", items, meta)

    def and_expr(self, meta: Meta, items: list[Any]) -> A.Expr:
        """`a and b`."""
        return self._fold("and", items, meta)

    def _fold(self, op: str, items: list[Any], meta: Meta) -> A.Expr:
        out = items[0]
        for it in items[1:]:
            out = A.BinOp(op, out, it, self.s(meta))
        return out

    def not_(self, meta: Meta, items: list[Any]) -> A.Not:
        """`not a`."""
        return A.Not(items[0], self.s(meta))

    def cmp(self, meta: Meta, items: list[Any]) -> A.BinOp:
        """`a >= b`."""
        return A.BinOp(str(items[1]), items[0], items[2], self.s(meta))

    def sum(self, meta: Meta, items: list[Any]) -> A.Expr:
        """`a + b - c`."""
        return self._arith(items, meta)

    def prod(self, meta: Meta, items: list[Any]) -> A.Expr:
        """`a * b`."""
        return self._arith(items, meta)

    def _arith(self, items: list[Any], meta: Meta) -> A.Expr:
        out = items[0]
        for i in range(1, len(items), 2):
            out = A.BinOp(str(items[i]), out, items[i + 1], self.s(meta))
        return out

    def num(self, meta: Meta, items: list[Token]) -> A.Num:
        """An integer."""
        return A.Num(int(items[0]), self.s(meta))

    def name(self, meta: Meta, items: list[Token]) -> A.Name:
        """A bare name."""
        return A.Name(str(items[0]), self.s(meta))

    def call(self, meta: Meta, items: list[Any]) -> A.Call:
        """`f(a, b)`."""
        args = tuple(a for a in items[1:] if a is not None)
        return A.Call(str(items[0]), args, self.s(meta))

    def landmark_named(self, meta: Meta, items: list[Token]) -> A.Landmark:
        """`castle "NAME"`."""
        return A.Landmark(str(items[0]), _str(items[1]), None, self.s(meta))

    def landmark_tagged(self, meta: Meta, items: list[Token]) -> A.Landmark:
        """`castle with clover`."""
        return A.Landmark(str(items[0]), None, str(items[1]), self.s(meta))

    def paren(self, meta: Meta, items: list[Any]) -> A.Expr:
        """`( expr )`."""
        return items[0]

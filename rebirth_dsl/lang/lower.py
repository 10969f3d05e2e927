"""Lark parse tree -> AST. Nothing else happens here: names are checked later, in checks.py.

Lark hands each callback its children untyped; each `items` below is typed as what its grammar rule
passes (tokens, or what the callbacks of its sub-rules returned), and the mixed ones are narrowed where
they are taken apart, so the AST is built from checked types."""

from __future__ import annotations

from lark import Token, Transformer, v_args
from lark.tree import Meta

from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES


def _span(file: str, meta: Meta) -> Span:
    if getattr(meta, "empty", True):
        return A.NOSPAN
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


_Empty = tuple[A.ScoreAction | None, Span]  # `when empty:` of a deck: what a draw from it does, and where


def _count(tok: Token) -> int:
    return int(str(tok)[1:])


def _str(tok: Token) -> str:
    return str(tok)[1:-1]


def _tok(x: object) -> Token:
    """A child that the grammar makes a token."""
    assert isinstance(x, Token), x
    return x


def _expr(x: object) -> A.Expr:
    """A child that the grammar makes an expression."""
    assert isinstance(x, A.Expr), x
    return x


@v_args(meta=True)
class Lower(Transformer[Token, "tuple[A.Header, list[A.Statement]]"]):
    """Turns each grammar rule into its AST node; blocks of keyed statements are flattened."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file

    def s(self, meta: Meta) -> Span:
        """The span of a rule."""
        return _span(self.file, meta)

    # top level
    def start(self, meta: Meta, items: list[A.Header | A.Statement | list[A.Statement]]
              ) -> tuple[A.Header, list[A.Statement]]:
        """The header and the flattened statement list."""
        header, *rest = items
        assert isinstance(header, A.Header)
        flat: list[A.Statement] = []
        for it in rest:
            assert not isinstance(it, A.Header)
            flat.extend(it if isinstance(it, list) else [it])
        return header, flat

    def header(self, meta: Meta, items: list[Token | str | None]) -> A.Header:
        """`ruleset NAME "title" extends "file"`."""
        name, title, extends = items
        assert isinstance(title, Token | None)
        return A.Header(str(name), _str(title) if title is not None else "", extends, self.s(meta))

    def extends_clause(self, meta: Meta, items: list[Token]) -> str:
        """`extends "file"`."""
        return _str(items[0])

    def board_decl(self, meta: Meta, items: list[Token]) -> A.BoardDecl:
        """`board "file.json"` or `board NAME`."""
        tok = items[0]
        named = tok.type == "NAME"
        return A.BoardDecl(str(tok) if named else _str(tok), named, self.s(meta))

    def category_decl(self, meta: Meta, items: list[tuple[str, ...]]) -> A.CategoryDecl:
        """`category NAME, ...`."""
        return A.CategoryDecl(items[0], self.s(meta))

    def players_range(self, meta: Meta, items: list[Token]) -> A.PlayersRange:
        """`players 2 to 4`."""
        return A.PlayersRange(int(items[0]), int(items[1]), self.s(meta))

    def name_list(self, meta: Meta, items: list[Token]) -> tuple[str, ...]:
        """A comma-separated list of names."""
        return tuple(str(t) for t in items)

    def hex_decl(self, meta: Meta, items: list[tuple[str, ...]]) -> A.Declare:
        """`hex plain, food, ...`."""
        return A.Declare("hex", items[0], self.s(meta))

    def landmark_decl(self, meta: Meta, items: list[tuple[str, ...]]) -> A.Declare:
        """`landmark castle, cathedral`."""
        return A.Declare("landmark", items[0], self.s(meta))

    def tag_decl(self, meta: Meta, items: list[tuple[str, ...] | None]) -> A.Declare:
        """`tag harbour, clover, neutral`."""
        names, on = items
        assert names is not None
        return A.Declare("tag", names, self.s(meta), on or ())

    # tiles
    def tiles_block(self, meta: Meta, items: list[A.TileSpec]) -> list[A.TileSpec]:
        """The tile specs, flattened."""
        return list(items)

    def tile_plain(self, meta: Meta, items: list[Token]) -> A.TileSpec:
        """`food x12`."""
        return A.TileSpec(str(items[0]), None, ((0, _count(items[1])),), self.s(meta))

    def tile_valued(self, meta: Meta, items: list[Token | tuple[int, int]]) -> A.TileSpec:
        """`settlement influence 1 x3, 2 x4`."""
        counts = tuple(c for c in items[2:] if isinstance(c, tuple))
        return A.TileSpec(str(items[0]), str(items[1]), counts, self.s(meta))

    def value_count(self, meta: Meta, items: list[Token]) -> tuple[int, int]:
        """`1 x3`."""
        return int(items[0]), _count(items[1])

    def class_decl(self, meta: Meta, items: list[Token | tuple[str, ...]]) -> A.ClassDecl:
        """`class farm = food, energy`."""
        name, kinds = items
        assert not isinstance(kinds, Token)
        return A.ClassDecl(str(name), kinds, self.s(meta))

    # setup
    def setup_block(self, meta: Meta, items: list[A.Statement]) -> list[A.Statement]:
        """Setup statements, flattened."""
        return list(items)

    def set_aside(self, meta: Meta, items: list[Token]) -> A.SetAside:
        """`set aside 2 visible`."""
        return A.SetAside(int(items[0]), str(items[1]) == "visible", self.s(meta))

    def hand(self, meta: Meta, items: list[Token]) -> A.Hand:
        """`hand 1`."""
        return A.Hand(int(items[0]), self.s(meta))

    def returns(self, meta: Meta, items: list[Token | A.TileCount]) -> A.Returns:
        """`players 4: return food x3, settlement:2`."""
        tiles = tuple(t for t in items[1:] if isinstance(t, A.TileCount))
        return A.Returns(int(_tok(items[0])), tiles, self.s(meta))

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
    def place_rule(self, meta: Meta, items: list[Token | tuple[str, ...]]) -> A.PlaceRule:
        """`place food on food, plain`."""
        tile, on = items
        assert not isinstance(on, Token)
        return A.PlaceRule(str(tile), on, False, self.s(meta))

    def fallback_rule(self, meta: Meta, items: list[Token | tuple[str, ...]]) -> A.PlaceRule:
        """`fallback food on energy`."""
        tile, on = items
        assert not isinstance(on, Token)
        return A.PlaceRule(str(tile), on, True, self.s(meta))

    def one_tile(self, meta: Meta, items: list[object]) -> A.OneTile:
        """`one tile per hex`."""
        return A.OneTile(self.s(meta))

    def turns(self, meta: Meta, items: list[object]) -> A.Turns:
        """`turns clockwise`."""
        return A.Turns(self.s(meta))

    def pass_rule(self, meta: Meta, items: list[object]) -> A.PassRule:
        """`when no hex is legal: pass`."""
        return A.PassRule(self.s(meta))

    def group_decl(self, meta: Meta, items: list[tuple[str, ...]]) -> A.GroupDecl:
        """`group food, energy`."""
        return A.GroupDecl(items[0], self.s(meta))

    # triggers
    def trigger(self, meta: Meta, items: list[A.Event | A.Action]) -> A.Trigger:
        """`on EVENT: ACTION`."""
        event, action = items
        assert isinstance(event, A.Event) and isinstance(action, A.Action)
        return A.Trigger(event, action, self.s(meta))

    def tile_sel(self, meta: Meta, items: list[Token | tuple[str, ...]]) -> tuple[str, ...] | None:
        """`any` (None) or a list of kinds."""
        sel = items[0]
        return None if isinstance(sel, Token) else sel  # the one token here is ANY

    def ev_place(self, meta: Meta, items: list[Token | tuple[str, ...] | None]) -> A.PlaceEvent:
        """`place food, energy at harbour`."""
        kinds, at = items
        assert not isinstance(kinds, Token)
        return A.PlaceEvent(kinds, str(at) if at is not None else None, self.s(meta))

    def ev_touch(self, meta: Meta, items: list[Token | None]) -> A.TouchEvent:
        """`first touch cathedral` or `first touch well by settlement, food` (each kind with its own span)."""
        kind, *by = items
        names = tuple(A.Name(str(tk), Span(self.file, tk.line or 0, tk.column or 0, tk.end_line or 0,
                                                 tk.end_column or 0))
                      for tk in by if tk is not None)
        return A.TouchEvent(str(kind), self.s(meta), names)

    def act_score(self, meta: Meta, items: list[A.Expr | Token]) -> A.ScoreAction:
        """`score EXPR as CATEGORY`."""
        return A.ScoreAction(_expr(items[0]), str(items[1]), self.s(meta))

    def act_draw(self, meta: Meta, items: list[Token]) -> A.DrawAction:
        """`draw DECK`."""
        return A.DrawAction(str(items[0]), self.s(meta))

    def act_ability(self, meta: Meta, items: list[object]) -> A.AbilityAction:
        """`use ability`."""
        return A.AbilityAction(self.s(meta))

    # areas
    def area_block(self, meta: Meta, items: list[Token | A.AreaItem | None]) -> A.AreaBlock:
        """`area KIND as CATEGORY { ... }`."""
        category = str(items[1]) if items[1] is not None else None
        parts = tuple(it for it in items[2:] if isinstance(it, A.AreaItem))
        return A.AreaBlock(str(items[0]), category, parts, self.s(meta))

    def rank_by(self, meta: Meta, items: list[Token]) -> A.RankBy:
        """`rank by influence`."""
        return A.RankBy(str(items[0]), self.s(meta))

    def ties(self, meta: Meta, items: list[tuple[str, ...]]) -> A.Ties:
        """`ties: completer last, then clockwise from completer`."""
        return A.Ties(tuple(items), self.s(meta))

    def tie_step(self, meta: Meta, items: list[Token]) -> tuple[str, ...]:
        """A tie-break phrase, checked against the known phrases later."""
        return tuple(str(t) for t in items)

    def pay(self, meta: Meta, items: list[Token | A.Expr | None]) -> A.Pay:
        """`pay size 3 players 2: 8, 5`."""
        size = int(_tok(items[0]))
        players = int(_tok(items[1])) if items[1] is not None else None
        return A.Pay(size, players, tuple(_expr(a) for a in items[2:]), self.s(meta))

    def alone(self, meta: Meta, items: list[Token]) -> A.Alone:
        """`alone: first + second`."""
        return A.Alone(tuple(str(t) for t in items), self.s(meta))

    # majorities
    def majority_block(self, meta: Meta, items: list[Token | A.MajorityItem | None]) -> A.MajorityBlock:
        """`majority KIND as CATEGORY { ... }`."""
        category = str(items[1]) if items[1] is not None else None
        parts = tuple(it for it in items[2:] if isinstance(it, A.MajorityItem))
        return A.MajorityBlock(str(items[0]), category, parts, self.s(meta))

    def over_adjacent(self, meta: Meta, items: list[object]) -> A.OverAdjacent:
        """`over adjacent`."""
        return A.OverAdjacent(self.s(meta))

    def unowned_takes(self, meta: Meta, items: list[object]) -> A.UnownedTakes:
        """`unowned: placer takes`."""
        return A.UnownedTakes(self.s(meta))

    def compare(self, meta: Meta, items: list[str]) -> A.Compare:
        """`compare tiles any, then tiles farm`."""
        return A.Compare(tuple(items), self.s(meta))

    def metric(self, meta: Meta, items: list[Token]) -> str:
        """`tiles any` / `tiles farm`."""
        return str(items[0])

    def final_owner(self, meta: Meta, items: list[object]) -> A.FinalTie:
        """`final tie: owner keeps`."""
        return A.FinalTie(False, self.s(meta))

    def final_placer(self, meta: Meta, items: list[object]) -> A.FinalTie:
        """`final tie: placer takes`."""
        return A.FinalTie(True, self.s(meta))

    # decks and abilities
    def deck_block(self, meta: Meta, items: list[Token | _Empty | A.Card | None]) -> A.DeckBlock:
        """`deck NAME { [when empty: ...] card ... }`."""
        name, empty, *rest = items
        assert isinstance(empty, tuple | None)
        on_empty, empty_span = (None, A.NOSPAN) if empty is None else empty
        cards = tuple(c for c in rest if isinstance(c, A.Card))
        return A.DeckBlock(str(name), cards, self.s(meta), on_empty, empty_span)

    def empty_nothing(self, meta: Meta, items: list[object]) -> _Empty:
        """`when empty: draw nothing`."""
        return None, self.s(meta)

    def empty_score(self, meta: Meta, items: list[A.Expr | Token]) -> _Empty:
        """`when empty: score EXPR as CATEGORY`."""
        return A.ScoreAction(_expr(items[0]), str(items[1]), self.s(meta)), self.s(meta)

    def card(self, meta: Meta, items: list[Token | A.Expr | None]) -> A.Card:
        """`card "Name" 6 / 2 x2: EXPR`."""
        name, points, small, copies, condition = items
        return A.Card(_str(_tok(name)), int(_tok(points)), int(_tok(small)) if small is not None else None,
                      _count(_tok(copies)) if copies is not None else 1, _expr(condition), self.s(meta))

    def public_decl(self, meta: Meta, items: list[Token | bool]) -> A.PublicDecl:
        """`public DECK as CATEGORY: first big, later small`."""
        deck, category, placer_first = items
        assert isinstance(placer_first, bool)
        return A.PublicDecl(str(deck), str(category), placer_first, self.s(meta))

    def order_placer_first(self, meta: Meta, items: list[object]) -> bool:
        """`placer first`."""
        return True

    def order_seats(self, meta: Meta, items: list[object]) -> bool:
        """`seat order`."""
        return False

    def ability_decl(self, meta: Meta, items: list[Token | A.Effect]) -> A.AbilityDecl:
        """`ability NAME: EFFECT`."""
        name, effect = items
        assert isinstance(effect, A.Effect)
        return A.AbilityDecl(str(name), effect, self.s(meta))

    def ab_score(self, meta: Meta, items: list[A.Expr | Token]) -> A.ScoreEffect:
        """`score EXPR as CATEGORY`."""
        return A.ScoreEffect(_expr(items[0]), str(items[1]), self.s(meta))

    def ab_take_aside(self, meta: Meta, items: list[object]) -> A.TakeAsideEffect:
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
    def end_block(self, meta: Meta, items: list[A.Statement]) -> list[A.Statement]:
        """End statements, flattened."""
        return list(items)

    def end_incomplete(self, meta: Meta, items: list[Token | A.Expr]) -> A.EndIncomplete:
        """`incomplete KIND: EXPR as CATEGORY`."""
        return A.EndIncomplete(str(items[0]), _expr(items[1]), str(items[2]), self.s(meta))

    def end_owned(self, meta: Meta, items: list[Token | A.Expr]) -> A.EndOwned:
        """`each KIND owned: EXPR as CATEGORY`."""
        return A.EndOwned(str(items[0]), _expr(items[1]), str(items[2]), self.s(meta))

    def end_held(self, meta: Meta, items: list[Token]) -> A.EndHeld:
        """`held cards as CATEGORY`."""
        return A.EndHeld(str(items[0]), self.s(meta))

    def winner_ties(self, meta: Meta, items: list[A.TieBreak]) -> A.WinnerTies:
        """`winner ties: STEP, then STEP`."""
        return A.WinnerTies(tuple(items), self.s(meta))

    def tb_among(self, meta: Meta, items: list[A.Expr]) -> A.TieBreak:
        """`EXPR among tied`."""
        return A.TieBreak(items[0], True, self.s(meta))

    def tb_anywhere(self, meta: Meta, items: list[A.Expr]) -> A.TieBreak:
        """`EXPR anywhere`."""
        return A.TieBreak(items[0], False, self.s(meta))

    def without_trigger(self, meta: Meta, items: list[A.Event]) -> A.Without:
        """`without on EVENT`."""
        return A.Without(("on",) + items[0].key, self.s(meta))

    def without_ability(self, meta: Meta, items: list[Token]) -> A.Without:
        """`without ability NAME`."""
        return A.Without(("ability", str(items[0])), self.s(meta))

    # expressions
    def or_expr(self, meta: Meta, items: list[A.Expr]) -> A.Expr:
        """`a or b or c`."""
        return self._fold("or", items, meta)

    def and_expr(self, meta: Meta, items: list[A.Expr]) -> A.Expr:
        """`a and b`."""
        return self._fold("and", items, meta)

    def _fold(self, op: str, items: list[A.Expr], meta: Meta) -> A.Expr:
        out = items[0]
        for it in items[1:]:
            out = A.BinOp(op, out, it, self.s(meta))
        return out

    def not_(self, meta: Meta, items: list[A.Expr]) -> A.Not:
        """`not a`."""
        return A.Not(items[0], self.s(meta))

    def cmp(self, meta: Meta, items: list[A.Expr | Token]) -> A.BinOp:
        """`a >= b`."""
        return A.BinOp(str(items[1]), _expr(items[0]), _expr(items[2]), self.s(meta))

    def sum(self, meta: Meta, items: list[A.Expr | Token]) -> A.Expr:
        """`a + b - c`."""
        return self._arith(items, meta)

    def prod(self, meta: Meta, items: list[A.Expr | Token]) -> A.Expr:
        """`a * b`."""
        return self._arith(items, meta)

    def _arith(self, items: list[A.Expr | Token], meta: Meta) -> A.Expr:
        out = _expr(items[0])  # operands and operators alternate: a + b - c
        for i in range(1, len(items), 2):
            out = A.BinOp(str(items[i]), out, _expr(items[i + 1]), self.s(meta))
        return out

    def num(self, meta: Meta, items: list[Token]) -> A.Num:
        """An integer."""
        return A.Num(int(items[0]), self.s(meta))

    def name(self, meta: Meta, items: list[Token]) -> A.Name | A.Call:
        """A bare name; the name of a built-in that may take no argument (`players`) is a call of it."""
        if (sig := SIGNATURES.get(str(items[0]))) is not None and all(p.endswith("*") for p in sig.params):
            return A.Call(str(items[0]), (), self.s(meta))
        return A.Name(str(items[0]), self.s(meta))

    def call(self, meta: Meta, items: list[Token | A.Expr | None]) -> A.Call:
        """`f(a, b)`."""
        args = tuple(_expr(a) for a in items[1:] if a is not None)
        return A.Call(str(items[0]), args, self.s(meta))

    def player_entry(self, meta: Meta, items: list[Token | None]) -> A.PlayerEntry:
        """`2 to 3: 15` or `4: 13`, an entry of `players(...)`."""
        low, high, value = items
        assert low is not None and value is not None
        return A.PlayerEntry(int(low), int(high) if high is not None else int(low), int(value), self.s(meta))

    def landmark_named(self, meta: Meta, items: list[Token]) -> A.Landmark:
        """`castle "NAME"`."""
        return A.Landmark(str(items[0]), _str(items[1]), None, self.s(meta))

    def landmark_tagged(self, meta: Meta, items: list[Token]) -> A.Landmark:
        """`castle with clover`."""
        return A.Landmark(str(items[0]), None, str(items[1]), self.s(meta))

    def paren(self, meta: Meta, items: list[A.Expr]) -> A.Expr:
        """`( expr )`."""
        return items[0]

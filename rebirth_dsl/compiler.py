"""AST + board -> a compiled Ruleset: integer tables, neighbour tuples and closures the engine runs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import ast as A
from .board import Board
from .errors import RebirthError
from .expr import Fn, compile_expr

_ID = re.compile(r"\b[A-Z]{1,3}-[A-Z]{0,3}[0-9]+\b")


def comment_ids(source: str) -> dict[int, tuple[str, ...]]:
    """Rule ids cited in each line's comment: {line number: ids}."""
    out: dict[int, tuple[str, ...]] = {}
    for n, line in enumerate(source.splitlines(), 1):
        in_str = False
        for i, ch in enumerate(line):
            if ch == '"':
                in_str = not in_str
            elif ch == "#" and not in_str:
                ids = tuple(_ID.findall(line[i:]))
                if ids:
                    out[n] = ids
                break
    return out


class Tables:
    """Names the rules declare, and (with a board) the board's integer tables."""

    def __init__(self, rules: A.Rules, board: Board | None = None) -> None:
        self.rules = rules
        self.board = board
        self.board_file = ""
        self.require_landmarks = True
        st = rules.statements
        self.hex_kinds: list[str] = []
        self.landmark_kinds: list[str] = []
        self.tags: list[str] = []
        self.tag_on: dict[str, tuple[str, ...]] = {}
        for s in st:
            if isinstance(s, A.Declare):
                target = {"hex": self.hex_kinds, "landmark": self.landmark_kinds, "tag": self.tags}[s.what]
                target.extend(n for n in s.names if n not in target)
                if s.what == "tag" and s.on:
                    self.tag_on.update(dict.fromkeys(s.names, s.on))
        self.tile_kinds: list[str] = []
        self.attributes: set[str] = set()
        self.attribute_of: dict[str, str | None] = {}
        for s in st:
            if isinstance(s, A.TileSpec) and s.kind not in self.tile_kinds:
                self.tile_kinds.append(s.kind)
                self.attribute_of[s.kind] = s.attribute
                if s.attribute:
                    self.attributes.add(s.attribute)
        self.classes: dict[str, tuple[str, ...]] = {s.name: s.kinds for s in st if isinstance(s, A.ClassDecl)}
        self.decks: dict[str, A.DeckBlock] = {s.name: s for s in st if isinstance(s, A.DeckBlock)}
        self._ids: dict[str, dict[int, tuple[str, ...]]] = {f: comment_ids(src) for f, src in rules.sources.items()}
        if board is not None:
            self._bind(board)

    # ----- names ------------------------------------------------------------------------------
    def selector_kind(self, name: str) -> str | None:
        """What a bare name denotes, if anything."""
        if name in self.tile_kinds:
            return "tile kind"
        if name in self.classes:
            return "class"
        if name in self.hex_kinds:
            return "hex kind"
        if name in self.landmark_kinds:
            return "landmark kind"
        if name in self.tags:
            return "tag"
        return None

    def all_selector_names(self) -> list[str]:
        """Every declared kind, class and tag name."""
        return self.tile_kinds + list(self.classes) + self.hex_kinds + self.landmark_kinds + self.tags

    def selector_options(self, what: str) -> list[str]:
        """The names a selector argument may take."""
        if what == "tile":
            return self.tile_kinds + list(self.classes)
        if what in ("hex", "near"):
            return self.hex_kinds + self.landmark_kinds + self.tags
        return list(self.landmark_kinds)

    def tile_kind_ids(self, name: str) -> frozenset[int]:
        """Kind ids named by a tile kind or a class."""
        kinds = self.classes.get(name, (name,))
        return frozenset(self.tile_kinds.index(k) for k in kinds if k in self.tile_kinds)

    def ids(self, span: A.Span, whole: bool = True) -> tuple[str, ...]:
        """The rule ids cited in the comments on a statement's lines."""
        table = self._ids.get(span.file, {})
        last = span.end_line if whole and span.end_line else span.line
        out: list[str] = []
        for ln in range(span.line, last + 1):
            out.extend(i for i in table.get(ln, ()) if i not in out)
        return tuple(out)

    # ----- board ------------------------------------------------------------------------------
    def _bind(self, board: Board) -> None:
        geo = board.geometry
        self.n = len(board.hexes)
        self.coords = geo.coords
        self.index = geo.index
        self.neighbours = geo.neighbours
        self.hex_kind: list[str] = [h.kind for h in board.hexes]
        self.hex_tags: list[frozenset[str]] = [frozenset(h.tags) for h in board.hexes]
        self.landmark_hex: list[int] = []
        self.landmark_kind: list[str] = []
        self.landmark_name: list[str] = []
        self.landmark_of_hex: dict[int, int] = {}
        self.landmark_ability: list[str | None] = []
        for i, h in enumerate(board.hexes):
            if h.kind in self.landmark_kinds:
                self.landmark_ability.append(h.ability)
                self.landmark_of_hex[i] = len(self.landmark_hex)
                self.landmark_hex.append(i)
                self.landmark_kind.append(h.kind)
                self.landmark_name.append(h.name or f"{h.kind} ({h.q},{h.r})")
        self.landmark_names = list(zip(self.landmark_kind, self.landmark_name, strict=True))
        self.area_names: list[str] = []
        self.area_of: list[int] = []
        for h in board.hexes:
            if h.area is None:
                self.area_of.append(-1)
                continue
            if h.area not in self.area_names:
                self.area_names.append(h.area)
            self.area_of.append(self.area_names.index(h.area))
        self.area_hexes: list[tuple[int, ...]] = [
            tuple(i for i, a in enumerate(self.area_of) if a == k) for k in range(len(self.area_names))
        ]
        self.area_kind: list[str] = [self.hex_kind[hs[0]] for hs in self.area_hexes]

    def hex_matches(self, name: str) -> list[bool]:
        """Per hex: is it of this kind or does it carry this tag."""
        return [self.hex_kind[h] == name or name in self.hex_tags[h] for h in range(self.n)]

    def find_landmark(self, kind: str, name: str | None, tag: str | None) -> int | None:
        """The index of a landmark by kind and name, or kind and tag."""
        if self.board is None:
            return None
        for i, (k, n) in enumerate(self.landmark_names):
            if k != kind:
                continue
            if name is not None and n == name:
                return i
            if tag is not None and tag in self.hex_tags[self.landmark_hex[i]]:
                return i
        return None


# ----- the compiled ruleset -------------------------------------------------------------------
@dataclass
class ScoreTrigger:
    """A placement trigger: on a tile of these kinds (on hexes matching `at`), score `fn` as `category`."""

    kinds: frozenset[int] | None
    at: list[bool] | None
    fn: Fn
    category: str
    ids: tuple[str, ...]
    text: str
    expr: A.Expr | None = None  # kept so the fast engine can specialise known shapes


@dataclass
class AreaRule:
    """S-A1..S-A4 as data: ranking attribute, tie-break steps, payouts and the alone rule."""

    kind: str
    category: str
    ties: tuple[tuple[str, ...], ...]
    pay: dict[tuple[int, int | None], tuple[Fn, ...]]
    alone: tuple[int, ...]
    ids: tuple[str, ...]
    rank_ids: tuple[str, ...] = ()  # rank + ties
    pay_ids: dict[tuple[int, int | None], tuple[str, ...]] = field(default_factory=dict)
    alone_ids: tuple[str, ...] = ()


@dataclass
class MajorityRule:
    """S-K1..S-K5 as data: landmarks of a kind, comparison metrics, and the final tie."""

    kind: str
    category: str
    landmarks: tuple[int, ...]
    metrics: tuple[frozenset[int] | None, ...]
    placer_takes_tie: bool
    ids: tuple[str, ...]
    metric_names: tuple[str, ...] = ("any",)
    step_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # over, unowned, compare.N, final


@dataclass
class TouchRule:
    """`on first touch KIND: ACTION`: S-M1 draws a card, I-R1 uses the landmark's ability."""

    kind: str
    action: A.Action
    ids: tuple[str, ...]


@dataclass
class PublicRule:
    """I-M1: the face-up cards of a deck, checked after every placement; big to the first, small later."""

    deck: str
    category: str
    ids: tuple[str, ...]


@dataclass
class CardDef:
    """One card: name, points (big), small points, condition."""

    name: str
    points: int
    small: int | None
    cond: Fn
    ids: tuple[str, ...]


@dataclass
class Ruleset:
    """Everything the engine needs, resolved against one board."""

    t: Tables
    name: str
    title: str
    players: tuple[int, int] = (2, 4)
    tile_kinds: list[str] = field(default_factory=list)
    mix: list[tuple[int, int]] = field(default_factory=list)  # (kind id, value) per tile of one colour
    set_aside: int = 0
    set_aside_visible: bool = True
    mix_ids: tuple[str, ...] = ()
    returns_ids: dict[int, tuple[str, ...]] = field(default_factory=dict)
    set_aside_ids: tuple[str, ...] = ()
    hand: int = 1
    returns: dict[int, list[A.TileCount]] = field(default_factory=dict)
    neutral: dict[int, A.Neutral] = field(default_factory=dict)
    public: A.PublicSetup | None = None
    # tile kind id -> hex kinds, in the rules' order (never a set: iteration order must not depend on hashing)
    primary: dict[int, tuple[str, ...]] = field(default_factory=dict)
    fallback: dict[int, tuple[str, ...]] = field(default_factory=dict)
    place_ids: dict[int, tuple[str, ...]] = field(default_factory=dict)
    fallback_ids: dict[int, tuple[str, ...]] = field(default_factory=dict)
    one_tile_ids: tuple[str, ...] = ()
    turn_ids: tuple[str, ...] = ()
    pass_ids: tuple[str, ...] = ()
    pass_allowed: bool = False
    group_kinds: frozenset[int] = frozenset()
    group_ids: tuple[str, ...] = ()
    # the statements that react to a placement, in file order
    reactions: list[ScoreTrigger | AreaRule | MajorityRule | TouchRule | PublicRule] = field(default_factory=list)
    areas: dict[str, AreaRule] = field(default_factory=dict)
    majorities: list[MajorityRule] = field(default_factory=list)
    decks: dict[str, list[CardDef]] = field(default_factory=dict)
    public_category: str | None = None
    abilities: dict[str, A.AbilityDecl] = field(default_factory=dict)
    ability_fns: dict[str, Fn] = field(default_factory=dict)
    ability_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)
    public_ids: tuple[str, ...] = ()
    end_incomplete: list[tuple[str, Fn, str, tuple[str, ...]]] = field(default_factory=list)
    end_owned: list[tuple[str, Fn, str, tuple[str, ...]]] = field(default_factory=list)
    end_held: tuple[str, tuple[str, ...]] | None = None
    winner_ties: list[tuple[Fn, bool, str]] = field(default_factory=list)
    winner_ids: tuple[str, ...] = ()
    categories: list[str] = field(default_factory=list)
    track_categories: list[str] = field(default_factory=list)

    # ----- tiles ------------------------------------------------------------------------------
    def tile_name(self, kind: int, value: int) -> str:
        """`food` or `settlement:3`."""
        k = self.tile_kinds[kind]
        return f"{k}:{value}" if self.t.attribute_of.get(k) else k

    def parse_tile(self, text: str) -> tuple[int, int]:
        """`settlement:3` -> (kind id, value); raises a RebirthError naming the valid tiles."""
        kind, _, val = str(text).partition(":")
        if kind not in self.tile_kinds:
            from .errors import did_you_mean

            dym = did_you_mean(kind, self.tile_kinds)
            raise RebirthError.single(f"unknown tile {text!r}" + (f"; did you mean {dym!r}?" if dym else "")
                                      + f" (tiles: {', '.join(self.tile_kinds)})")
        kid = self.tile_kinds.index(kind)
        has_attr = self.t.attribute_of.get(kind) is not None
        if has_attr:
            valid = sorted({v for k, v in self.mix if k == kid})
            if not val.isdigit() or int(val) not in valid:
                raise RebirthError.single(f"tile {text!r} needs a value: {', '.join(f'{kind}:{v}' for v in valid)}")
            return kid, int(val)
        if val:
            raise RebirthError.single(f"tile {text!r}: a {kind} has no value; write {kind!r}")
        return kid, 0


def _generated(expr: A.Expr, t: Tables) -> Fn:
    """Expressions read over whole positions (cards, end scoring, tie-breaks) run as generated Python;
    the closures of expr.py remain the reference they are tested against."""
    from .exprgen import compile_expr_source

    return compile_expr_source(expr, t)[0]


def _category(cats: list[str], name: str) -> str:
    if name not in cats:
        cats.append(name)
    return name


def compile_rules(rules: A.Rules, board: Board) -> Ruleset:
    """Resolve every name against the board and compile every expression; raise on any problem."""
    from .checks import check

    problems = check(rules, board, full=False)
    if problems:
        raise RebirthError(problems)
    t = Tables(rules, board)
    rs = Ruleset(t, rules.header.name, rules.header.title or rules.header.name, tile_kinds=list(t.tile_kinds))
    cats: list[str] = []
    track: list[str] = []
    for s in rules.statements:
        ids = t.ids(s.span, whole=not isinstance(s, A.AreaBlock | A.MajorityBlock))
        match s:
            case A.PlayersRange():
                rs.players = (s.low, s.high)
            case A.TileSpec():
                kid = t.tile_kinds.index(s.kind)
                for value, count in s.counts:
                    rs.mix.extend([(kid, value)] * count)
                rs.mix_ids += tuple(i for i in ids if i not in rs.mix_ids)
            case A.SetAside():
                rs.set_aside, rs.set_aside_visible, rs.set_aside_ids = s.count, s.visible, ids
            case A.Hand():
                rs.hand = s.count
            case A.Returns():
                rs.returns[s.players] = list(s.tiles)
                rs.returns_ids[s.players] = ids
            case A.Neutral():
                rs.neutral[s.players] = s
            case A.PublicSetup():
                rs.public = s
                rs.public_ids = ids
            case A.PlaceRule():
                kid = t.tile_kinds.index(s.tile)
                if s.fallback:
                    rs.fallback[kid] = tuple(dict.fromkeys(s.on))
                    rs.fallback_ids[kid] = ids
                else:
                    rs.primary[kid] = tuple(dict.fromkeys(s.on))
                    rs.place_ids[kid] = ids
            case A.OneTile():
                rs.one_tile_ids = ids
            case A.Turns():
                rs.turn_ids = ids
            case A.PassRule():
                rs.pass_allowed, rs.pass_ids = True, ids
            case A.GroupDecl():
                rs.group_kinds = frozenset(t.tile_kinds.index(k) for k in s.kinds)
                rs.group_ids = ids
            case A.Trigger(event=A.PlaceEvent() as ev, action=A.ScoreAction() as act):
                kinds = None if ev.kinds is None else frozenset().union(*(t.tile_kind_ids(k) for k in ev.kinds))
                at = t.hex_matches(ev.at) if ev.at else None
                rs.reactions.append(ScoreTrigger(kinds, at, compile_expr(act.expr, t), _category(cats, act.category),
                                                 ids, _text(rules, act.expr.span), act.expr))
                track.append(act.category)
            case A.Trigger(event=A.TouchEvent() as ev):
                rs.reactions.append(TouchRule(ev.kind, s.action, ids))
            case A.AreaBlock():
                rule = _area(s, t, rules, cats)
                rs.areas[s.kind] = rule
                rs.reactions.append(rule)
                track.append(rule.category)
            case A.MajorityBlock():
                rule = _majority(s, t)
                rs.majorities.append(rule)
                rs.reactions.append(rule)
            case A.DeckBlock():
                rs.decks[s.name] = [
                    CardDef(c.name, c.points, c.small, _generated(c.condition, t), t.ids(c.span))
                    for c in s.cards for _ in range(c.copies)
                ]
            case A.PublicDecl():
                rs.public_category = _category(cats, s.category)
                track.append(s.category)
                rs.reactions.append(PublicRule(s.deck, s.category, ids))
            case A.AbilityDecl():
                rs.abilities[s.name] = s
                rs.ability_ids[s.name] = ids
                if s.effect == "score" and s.expr is not None and s.category:
                    rs.ability_fns[s.name] = compile_expr(s.expr, t)
                    _category(cats, s.category)
                    track.append(s.category)
            case A.EndIncomplete():
                rs.end_incomplete.append((s.kind, _generated(s.expr, t), _category(cats, s.category), ids))
            case A.EndOwned():
                rs.end_owned.append((s.kind, _generated(s.expr, t), _category(cats, s.category), ids))
            case A.EndHeld():
                rs.end_held = (_category(cats, s.category), ids)
            case A.WinnerTies():
                rs.winner_ties = [(_generated(st.expr, t), st.among_tied, _text(rules, st.span)) for st in s.steps]
                rs.winner_ids = ids
    rs.categories = cats
    rs.track_categories = [c for c in cats if c in track]
    return rs


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
    ties: tuple[tuple[str, ...], ...] = ()
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
                pay_ids[(it.size, it.players)] = its
            case A.Ties():
                ties = it.steps
                rank_ids.extend(its)
            case A.RankBy():
                rank_ids[:0] = its
            case A.Alone():
                alone = tuple(PLACES.index(p) for p in it.places)
                alone_ids = its
    return AreaRule(s.kind, _category(cats, s.category or s.kind), ties, pay, alone, tuple(ids), tuple(rank_ids),
                    pay_ids, alone_ids)


PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")
TIE_STEPS = {
    ("completer", "last"): "the player who completed the area loses the tie",
    ("completer", "first"): "the player who completed the area wins the tie",
    ("clockwise", "from", "completer"): "the first player clockwise after the completer wins",
    ("counterclockwise", "from", "completer"): "the first player counter-clockwise from the completer wins",
    ("seat", "order"): "the earlier seat wins",
}


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

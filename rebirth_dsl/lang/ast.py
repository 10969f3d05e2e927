"""The rules AST: frozen, slotted dataclasses (with shared methods: see shared_methods), each carrying the
span of its source text.

Statements that can be overridden by an extending ruleset have a `key`: a child statement with the
same key replaces the parent's, and `without` removes one.
"""

from __future__ import annotations

from rebirth_dsl.errors import Span as Span  # exported: every node carries one (A.Span)
from rebirth_dsl.shared_methods import Node, field, node

NOSPAN = Span("", 0, 0)

# A statement's identity for overrides: its head word, then the names and numbers that tell it apart
# (`("pay", 3, None)`, `("on", "place", ("food",), "harbour")`).
KeyPart = str | int | tuple[str, ...] | None
Key = tuple[KeyPart, ...]


# ----- expressions -----------------------------------------------------------------------------
@node
class Num(Node):
    """An integer literal."""

    value: int
    span: Span = NOSPAN


@node
class Name(Node):
    """A bare name: a variable (me, placed, influence, ...) or a kind, class or tag."""

    id: str
    span: Span = NOSPAN


@node
class Call(Node):
    """A call of a built-in function."""

    fn: str
    args: tuple[Expr, ...]
    span: Span = NOSPAN


@node
class Landmark(Node):
    """A landmark reference: `castle "NAME"` (by name) or `castle with clover` (by tag)."""

    kind: str
    name: str | None
    tag: str | None
    span: Span = NOSPAN


@node
class BinOp(Node):
    """Arithmetic (+ - *), comparison (>= ...), or boolean (and, or)."""

    op: str
    left: Expr
    right: Expr
    span: Span = NOSPAN


@node
class Not(Node):
    """Boolean negation."""

    operand: Expr
    span: Span = NOSPAN


@node
class PlayerEntry(Node):
    """One entry of a player-count table, an argument of `players(...)` only: `2 to 3: 15` (15 with 2 or 3
    players) or `4: 13` (low and high the same count)."""

    low: int
    high: int
    value: int
    span: Span = NOSPAN


Expr = Num | Name | Call | Landmark | BinOp | Not | PlayerEntry


# ----- statements ------------------------------------------------------------------------------
@node
class Header(Node):
    """`ruleset NAME "title" extends "file"`."""

    name: str
    title: str
    extends: str | None
    span: Span = NOSPAN


@node
class PlayersRange(Node):
    """`players 2 to 4` (S-U1)."""

    low: int
    high: int
    span: Span = NOSPAN
    key: Key = ("players",)


@node
class BoardDecl(Node):
    """`board "wells.json"` (a board file, by a path relative to the rules file) or `board scotland` (a
    bundled board): the board the ruleset plays on unless a command names another. An extending ruleset
    inherits its base's unless it names its own."""

    ref: str  # as written
    named: bool  # the bare-name form: a bundled board
    span: Span = NOSPAN
    # the folder of the file the statement was read from, set by the loader (lang.parser.load_rules): a
    # path is relative to the file that wrote it, not to the variant that inherits it
    folder: str = field(default="", compare=False)
    key: Key = ("board",)


@node
class CategoryDecl(Node):
    """`category wells, springs`: scoring categories this ruleset adds. A ruleset that extends another
    may score only into the categories its base scores into and those it declares (a typo is an error);
    a ruleset of its own introduces a category by scoring into it."""

    names: tuple[str, ...]
    span: Span = NOSPAN


@node
class Declare(Node):
    """`hex ...`, `landmark ...`, `tag ...`: names a board may use."""

    what: str  # "hex" | "landmark" | "tag"
    names: tuple[str, ...]
    span: Span = NOSPAN
    on: tuple[str, ...] = ()  # tags only: the hex kinds the tag may sit on (empty: any)


@node
class TileSpec(Node):
    """One kind of tile of a colour: `food x12`, or `settlement influence 1 x3, 2 x4`."""

    kind: str
    attribute: str | None
    counts: tuple[tuple[int, int], ...]  # (value, count); value 0 when the kind has no attribute
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Tile kinds override one by one."""
        return ("tile", self.kind)


@node
class ClassDecl(Node):
    """`class farm = food, energy`: a name for a set of tile kinds."""

    name: str
    kinds: tuple[str, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Classes override by name."""
        return ("class", self.name)


@node
class TileCount(Node):
    """`settlement:2` or `food x3` in a return list."""

    kind: str
    value: int | None
    count: int
    span: Span = NOSPAN


@node
class SetAside(Node):
    """`set aside 2 visible` (S-U4, I-U1)."""

    count: int
    visible: bool
    span: Span = NOSPAN
    key: Key = ("set aside",)


@node
class Hand(Node):
    """`hand 1`: tiles drawn into hand at the start (S-U4)."""

    count: int
    span: Span = NOSPAN
    key: Key = ("hand",)


@node
class Returns(Node):
    """`players 4: return ...` (S-U3)."""

    players: int
    tiles: tuple[TileCount, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One return list per player count."""
        return ("return", self.players)


@node
class Neutral(Node):
    """`players 2: neutral 32 on neutral` (S-U2)."""

    players: int
    count: int
    tag: str
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One neutral rule per player count."""
        return ("neutral", self.players)


@node
class PublicSetup(Node):
    """`public 8 from mission`: cards laid face up at the start (I-M1)."""

    count: int
    deck: str
    span: Span = NOSPAN
    key: Key = ("public",)


@node
class PlaceRule(Node):
    """`place food on food, plain` (S-P2, S-P4), or `fallback food on energy` (S-P3)."""

    tile: str
    on: tuple[str, ...]
    fallback: bool = False
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One placement rule and one fallback per tile kind."""
        return ("fallback" if self.fallback else "place", self.tile)


@node
class OneTile(Node):
    """`one tile per hex` (S-P1): a hex with a tile takes no other."""

    span: Span = NOSPAN
    key: Key = ("one tile",)


@node
class Turns(Node):
    """`turns clockwise` (S-T1): place the hand tile, score, draw; then the next seat."""

    span: Span = NOSPAN
    key: Key = ("turns",)


@node
class PassRule(Node):
    """`when no hex is legal: pass` (S-P5)."""

    span: Span = NOSPAN
    key: Key = ("pass",)


@node
class GroupDecl(Node):
    """`group food, energy`: adjacent tiles of one of these kinds and one owner form groups (S-F1)."""

    kinds: tuple[str, ...]
    span: Span = NOSPAN
    key: Key = ("group",)


@node
class PlaceEvent(Node):
    """`place food, energy at harbour`: a tile of these kinds (None: any) placed (on a hex with X)."""

    kinds: tuple[str, ...] | None
    at: str | None
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Identity of the event for overrides."""
        return ("place", self.kinds, self.at)


@node
class TouchEvent(Node):
    """`first touch cathedral [by settlement]`: a player's first tile adjacent to a given landmark (among
    the player's tiles of these kinds or classes only, when `by` names some: see rules/touch.py)."""

    kind: str
    span: Span = NOSPAN
    by: tuple[Name, ...] = ()

    @property
    def key(self) -> Key:
        """Identity of the event for overrides."""
        return ("touch", self.kind) + ((tuple(n.id for n in self.by),) if self.by else ())


Event = PlaceEvent | TouchEvent


@node
class ScoreAction(Node):
    """`score EXPR as CATEGORY`."""

    expr: Expr
    category: str
    span: Span = NOSPAN


@node
class DrawAction(Node):
    """`draw DECK`: the top card of a deck into the player's hand (S-M1)."""

    deck: str
    span: Span = NOSPAN


@node
class AbilityAction(Node):
    """`use ability`: the touched landmark's printed ability (I-R1)."""

    span: Span = NOSPAN


Action = ScoreAction | DrawAction | AbilityAction


@node
class Trigger(Node):
    """`on EVENT: ACTION`."""

    event: Event
    action: Action
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Triggers override by their event."""
        return ("on",) + self.event.key


@node
class RankBy(Node):
    """`rank by influence` (S-A1)."""

    attribute: str
    span: Span = NOSPAN
    key: Key = ("rank",)


@node
class Ties(Node):
    """`ties: completer last, then clockwise from completer` (S-A2)."""

    steps: tuple[tuple[str, ...], ...]
    span: Span = NOSPAN
    key: Key = ("ties",)


@node
class Pay(Node):
    """`pay size 3: 8, 5, 0` or `pay size 4 players 2: 17, 8` (S-A3, I-A1)."""

    size: int
    players: int | None
    amounts: tuple[Expr, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One payout per size and player count."""
        return ("pay", self.size, self.players)


@node
class Alone(Node):
    """`alone: first + second` (S-A3)."""

    places: tuple[str, ...]
    span: Span = NOSPAN
    key: Key = ("alone",)


AreaItem = RankBy | Ties | Pay | Alone


@node
class AreaBlock(Node):
    """`area settlement as areas { ... }` (S-A1..S-A4)."""

    kind: str
    category: str | None
    items: tuple[AreaItem, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Area blocks merge item by item under an extending ruleset."""
        return ("area", self.kind)


@node
class OverAdjacent(Node):
    """`over adjacent`: the majority counts tiles on the hexes next to the landmark (S-K1)."""

    span: Span = NOSPAN
    key: Key = ("over",)


@node
class UnownedTakes(Node):
    """`unowned: placer takes` (S-K2)."""

    span: Span = NOSPAN
    key: Key = ("unowned",)


@node
class Compare(Node):
    """`compare tiles any, then tiles farm` (S-K3, S-K4)."""

    metrics: tuple[str, ...]  # "any" or a tile kind/class name
    span: Span = NOSPAN
    key: Key = ("compare",)


@node
class FinalTie(Node):
    """`final tie: owner keeps` / `final tie: placer takes` (S-K5)."""

    placer_takes: bool
    span: Span = NOSPAN
    key: Key = ("final",)


MajorityItem = OverAdjacent | UnownedTakes | Compare | FinalTie


@node
class MajorityBlock(Node):
    """`majority castle as castles { ... }` (S-K1..S-K5)."""

    kind: str
    category: str | None
    items: tuple[MajorityItem, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Majority blocks merge item by item."""
        return ("majority", self.kind)


@node
class Card(Node):
    """`card "Name" 5: EXPR`, or `card "Name" 6 / 2 x2: EXPR` (big / small, copies)."""

    name: str
    points: int
    small: int | None
    copies: int
    condition: Expr
    span: Span = NOSPAN


@node
class DeckBlock(Node):
    """`deck mission { when empty: draw nothing; card ... }` (S-M3): replaced whole by an extending ruleset.
    `on_empty` is what a draw from the empty deck does: nothing (None), or score an expression."""

    name: str
    cards: tuple[Card, ...]
    span: Span = NOSPAN
    on_empty: ScoreAction | None = None
    empty_span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Decks override whole."""
        return ("deck", self.name)


@node
class PublicDecl(Node):
    """`public mission as public_missions: first big, later small, placer first|seat order` (I-M1): after every
    placement each player is checked against every face-up card, the placer first then clockwise, or in
    seat order."""

    deck: str
    category: str
    placer_first: bool = True
    span: Span = NOSPAN
    key: Key = ("public mode",)


@node
class ScoreEffect(Node):
    """`score EXPR as CATEGORY`: the ability scores at once."""

    expr: Expr
    category: str
    span: Span = NOSPAN


@node
class TakeAsideEffect(Node):
    """`take set aside`: one of the player's set-aside tiles goes into hand."""

    span: Span = NOSPAN


@node
class DrawKeepEffect(Node):
    """`draw N keep K, rest to bottom|top|box`: the turn's draw becomes N tiles, K are kept, and the rest go to
    the bottom or the top of the supply, or back in the box."""

    draw: int
    keep: int
    rest: str
    span: Span = NOSPAN


@node
class DrawCardEffect(Node):
    """`draw DECK`: the top card of a deck into the player's hand."""

    deck: str
    span: Span = NOSPAN


@node
class DoubleEffect(Node):
    """`double DECK by F, M per player, on unfulfilled|any`: a doubling marker goes on a face-up card of the
    deck; the card pays that player F times its points. Each player has M markers; `unfulfilled` allows only
    a card the player has not fulfilled yet."""

    deck: str
    factor: int
    markers: int
    target: str
    span: Span = NOSPAN


Effect = ScoreEffect | TakeAsideEffect | DrawKeepEffect | DrawCardEffect | DoubleEffect


@node
class AbilityDecl(Node):
    """`ability NAME: EFFECT` (I-R1)."""

    name: str
    effect: Effect
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """Abilities override by name."""
        return ("ability", self.name)


@node
class EndIncomplete(Node):
    """`incomplete settlement: influence as incomplete_areas` (S-E1)."""

    kind: str
    expr: Expr
    category: str
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One rule per area kind."""
        return ("incomplete", self.kind)


@node
class EndOwned(Node):
    """`each castle owned: 5 as castles` (S-E2)."""

    kind: str
    expr: Expr
    category: str
    span: Span = NOSPAN

    @property
    def key(self) -> Key:
        """One rule per landmark kind."""
        return ("owned", self.kind)


@node
class EndHeld(Node):
    """`held cards as missions` (S-E3, I-E1)."""

    category: str
    span: Span = NOSPAN
    key: Key = ("held",)


@node
class TieBreak(Node):
    """One step of the winner's tie-break: a player expression, among the tied or anywhere (S-E4)."""

    expr: Expr
    among_tied: bool
    span: Span = NOSPAN


@node
class WinnerTies(Node):
    """`winner ties: STEP, then STEP` (S-E4, I-E2)."""

    steps: tuple[TieBreak, ...]
    span: Span = NOSPAN
    key: Key = ("winner ties",)


@node
class Without(Node):
    """`without on EVENT` / `without ability NAME`: removes a statement of the extended ruleset."""

    target: Key  # the key of the statement it removes
    span: Span = NOSPAN


Statement = (
    PlayersRange | Declare | TileSpec | ClassDecl | SetAside | Hand | Returns | Neutral | PublicSetup
    | PlaceRule | OneTile | Turns | PassRule | GroupDecl | Trigger | AreaBlock | MajorityBlock | DeckBlock | PublicDecl
    | AbilityDecl | EndIncomplete | EndOwned | EndHeld | WinnerTies | Without | BoardDecl | CategoryDecl
)


@node
class Rules(Node):
    """A parsed rules file: header and statements in source order (blocks flattened where keyed)."""

    header: Header
    statements: tuple[Statement, ...]
    file: str = ""
    source: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    # the categories the rulesets this one extends score into (set by lang.parser.merge): what a variant
    # may score into without declaring it
    inherited_categories: tuple[str, ...] = field(default=(), compare=False)

"""The rules AST: frozen, slotted dataclasses, each carrying the span of its source text.

Statements that can be overridden by an extending ruleset have a `key`: a child statement with the
same key replaces the parent's, and `without` removes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rebirth_dsl.errors import Span

NOSPAN = Span("", 0, 0)


# ----- expressions -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal."""

    value: int
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class Name:
    """A bare name: a variable (me, placed, influence, ...) or a kind, class or tag."""

    id: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class Call:
    """A call of a built-in function."""

    fn: str
    args: tuple[Expr, ...]
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class Landmark:
    """A landmark reference: `castle "NAME"` (by name) or `castle with clover` (by tag)."""

    kind: str
    name: str | None
    tag: str | None
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class BinOp:
    """Arithmetic (+ - *), comparison (>= ...), or boolean (and, or)."""

    op: str
    left: Expr
    right: Expr
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class Not:
    """Boolean negation."""

    operand: Expr
    span: Span = NOSPAN


Expr = Num | Name | Call | Landmark | BinOp | Not


# ----- statements ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Header:
    """`ruleset NAME "title" extends "file"`."""

    name: str
    title: str
    extends: str | None
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class PlayersRange:
    """`players 2 to 4` (S-U1)."""

    low: int
    high: int
    span: Span = NOSPAN
    key: tuple = ("players",)


@dataclass(frozen=True, slots=True)
class Declare:
    """`hex ...`, `landmark ...`, `tag ...`: names a board may use."""

    what: str  # "hex" | "landmark" | "tag"
    names: tuple[str, ...]
    span: Span = NOSPAN
    on: tuple[str, ...] = ()  # tags only: the hex kinds the tag may sit on (empty: any)


@dataclass(frozen=True, slots=True)
class TileSpec:
    """One kind of tile of a colour: `food x12`, or `settlement influence 1 x3, 2 x4`."""

    kind: str
    attribute: str | None
    counts: tuple[tuple[int, int], ...]  # (value, count); value 0 when the kind has no attribute
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Tile kinds override one by one."""
        return ("tile", self.kind)


@dataclass(frozen=True, slots=True)
class ClassDecl:
    """`class farm = food, energy`: a name for a set of tile kinds."""

    name: str
    kinds: tuple[str, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Classes override by name."""
        return ("class", self.name)


@dataclass(frozen=True, slots=True)
class TileCount:
    """`settlement:2` or `food x3` in a return list."""

    kind: str
    value: int | None
    count: int
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class SetAside:
    """`set aside 2 visible` (S-U4, I-U1)."""

    count: int
    visible: bool
    span: Span = NOSPAN
    key: tuple = ("set aside",)


@dataclass(frozen=True, slots=True)
class Hand:
    """`hand 1`: tiles drawn into hand at the start (S-U4)."""

    count: int
    span: Span = NOSPAN
    key: tuple = ("hand",)


@dataclass(frozen=True, slots=True)
class Returns:
    """`players 4: return ...` (S-U3)."""

    players: int
    tiles: tuple[TileCount, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One return list per player count."""
        return ("return", self.players)


@dataclass(frozen=True, slots=True)
class Neutral:
    """`players 2: neutral 32 on neutral` (S-U2)."""

    players: int
    count: int
    tag: str
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One neutral rule per player count."""
        return ("neutral", self.players)


@dataclass(frozen=True, slots=True)
class PublicSetup:
    """`public 8 from mission`: cards laid face up at the start (I-M1)."""

    count: int
    deck: str
    span: Span = NOSPAN
    key: tuple = ("public",)


@dataclass(frozen=True, slots=True)
class PlaceRule:
    """`place food on food, plain` (S-P2, S-P4), or `fallback food on energy` (S-P3)."""

    tile: str
    on: tuple[str, ...]
    fallback: bool = False
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One placement rule and one fallback per tile kind."""
        return ("fallback" if self.fallback else "place", self.tile)


@dataclass(frozen=True, slots=True)
class OneTile:
    """`one tile per hex` (S-P1): a hex with a tile takes no other."""

    span: Span = NOSPAN
    key: tuple = ("one tile",)


@dataclass(frozen=True, slots=True)
class Turns:
    """`turns clockwise` (S-T1): place the hand tile, score, draw; then the next seat."""

    span: Span = NOSPAN
    key: tuple = ("turns",)


@dataclass(frozen=True, slots=True)
class PassRule:
    """`when no hex is legal: pass` (S-P5)."""

    span: Span = NOSPAN
    key: tuple = ("pass",)


@dataclass(frozen=True, slots=True)
class GroupDecl:
    """`group food, energy`: adjacent tiles of one of these kinds and one owner form groups (S-F1)."""

    kinds: tuple[str, ...]
    span: Span = NOSPAN
    key: tuple = ("group",)


@dataclass(frozen=True, slots=True)
class PlaceEvent:
    """`place food, energy at harbour`: a tile of these kinds (None: any) placed (on a hex with X)."""

    kinds: tuple[str, ...] | None
    at: str | None
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Identity of the event for overrides."""
        return ("place", self.kinds, self.at)


@dataclass(frozen=True, slots=True)
class TouchEvent:
    """`first touch cathedral`: a player's first tile adjacent to a given landmark."""

    kind: str
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Identity of the event for overrides."""
        return ("touch", self.kind)


Event = PlaceEvent | TouchEvent


@dataclass(frozen=True, slots=True)
class ScoreAction:
    """`score EXPR as CATEGORY`."""

    expr: Expr
    category: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class DrawAction:
    """`draw DECK`: the top card of a deck into the player's hand (S-M1)."""

    deck: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class AbilityAction:
    """`use ability`: the touched landmark's printed ability (I-R1)."""

    span: Span = NOSPAN


Action = ScoreAction | DrawAction | AbilityAction


@dataclass(frozen=True, slots=True)
class Trigger:
    """`on EVENT: ACTION`."""

    event: Event
    action: Action
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Triggers override by their event."""
        return ("on",) + self.event.key


@dataclass(frozen=True, slots=True)
class RankBy:
    """`rank by influence` (S-A1)."""

    attribute: str
    span: Span = NOSPAN
    key: tuple = ("rank",)


@dataclass(frozen=True, slots=True)
class Ties:
    """`ties: completer last, then clockwise from completer` (S-A2)."""

    steps: tuple[tuple[str, ...], ...]
    span: Span = NOSPAN
    key: tuple = ("ties",)


@dataclass(frozen=True, slots=True)
class Pay:
    """`pay size 3: 8, 5, 0` or `pay size 4 players 2: 17, 8` (S-A3, I-A1)."""

    size: int
    players: int | None
    amounts: tuple[Expr, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One payout per size and player count."""
        return ("pay", self.size, self.players)


@dataclass(frozen=True, slots=True)
class Alone:
    """`alone: first + second` (S-A3)."""

    places: tuple[str, ...]
    span: Span = NOSPAN
    key: tuple = ("alone",)


AreaItem = RankBy | Ties | Pay | Alone


@dataclass(frozen=True, slots=True)
class AreaBlock:
    """`area settlement as areas { ... }` (S-A1..S-A4)."""

    kind: str
    category: str | None
    items: tuple[AreaItem, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Area blocks merge item by item under an extending ruleset."""
        return ("area", self.kind)


@dataclass(frozen=True, slots=True)
class OverAdjacent:
    """`over adjacent`: the majority counts tiles on the hexes next to the landmark (S-K1)."""

    span: Span = NOSPAN
    key: tuple = ("over",)


@dataclass(frozen=True, slots=True)
class UnownedTakes:
    """`unowned: placer takes` (S-K2)."""

    span: Span = NOSPAN
    key: tuple = ("unowned",)


@dataclass(frozen=True, slots=True)
class Compare:
    """`compare tiles any, then tiles farm` (S-K3, S-K4)."""

    metrics: tuple[str, ...]  # "any" or a tile kind/class name
    span: Span = NOSPAN
    key: tuple = ("compare",)


@dataclass(frozen=True, slots=True)
class FinalTie:
    """`final tie: owner keeps` / `final tie: placer takes` (S-K5)."""

    placer_takes: bool
    span: Span = NOSPAN
    key: tuple = ("final",)


MajorityItem = OverAdjacent | UnownedTakes | Compare | FinalTie


@dataclass(frozen=True, slots=True)
class MajorityBlock:
    """`majority castle as castles { ... }` (S-K1..S-K5)."""

    kind: str
    category: str | None
    items: tuple[MajorityItem, ...]
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Majority blocks merge item by item."""
        return ("majority", self.kind)


@dataclass(frozen=True, slots=True)
class Card:
    """`card "Name" 5: EXPR`, or `card "Name" 6 / 2 x2: EXPR` (big / small, copies)."""

    name: str
    points: int
    small: int | None
    copies: int
    condition: Expr
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class DeckBlock:
    """`deck mission { when empty: draw nothing; card ... }` (S-M3): replaced whole by an extending ruleset.
    `on_empty` is what a draw from the empty deck does: nothing (None), or score an expression."""

    name: str
    cards: tuple[Card, ...]
    span: Span = NOSPAN
    on_empty: ScoreAction | None = None
    empty_span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Decks override whole."""
        return ("deck", self.name)


@dataclass(frozen=True, slots=True)
class PublicDecl:
    """`public mission as public_missions: first big, later small, placer first|seat order` (I-M1): after every
    placement each player is checked against every face-up card, the placer first then clockwise, or in
    seat order."""

    deck: str
    category: str
    placer_first: bool = True
    span: Span = NOSPAN
    key: tuple = ("public mode",)


@dataclass(frozen=True, slots=True)
class ScoreEffect:
    """`score EXPR as CATEGORY`: the ability scores at once."""

    expr: Expr
    category: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class TakeAsideEffect:
    """`take set aside`: one of the player's set-aside tiles goes into hand."""

    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class DrawKeepEffect:
    """`draw N keep K, rest to bottom|top|box`: the turn's draw becomes N tiles, K are kept, and the rest go to
    the bottom or the top of the supply, or back in the box."""

    draw: int
    keep: int
    rest: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class DrawCardEffect:
    """`draw DECK`: the top card of a deck into the player's hand."""

    deck: str
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class DoubleEffect:
    """`double DECK by F, M per player, on unfulfilled|any`: a doubling marker goes on a face-up card of the
    deck; the card pays that player F times its points. Each player has M markers; `unfulfilled` allows only
    a card the player has not fulfilled yet."""

    deck: str
    factor: int
    markers: int
    target: str
    span: Span = NOSPAN


Effect = ScoreEffect | TakeAsideEffect | DrawKeepEffect | DrawCardEffect | DoubleEffect


@dataclass(frozen=True, slots=True)
class AbilityDecl:
    """`ability NAME: EFFECT` (I-R1)."""

    name: str
    effect: Effect
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """Abilities override by name."""
        return ("ability", self.name)


@dataclass(frozen=True, slots=True)
class EndIncomplete:
    """`incomplete settlement: influence as incomplete_areas` (S-E1)."""

    kind: str
    expr: Expr
    category: str
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One rule per area kind."""
        return ("incomplete", self.kind)


@dataclass(frozen=True, slots=True)
class EndOwned:
    """`each castle owned: 5 as castles` (S-E2)."""

    kind: str
    expr: Expr
    category: str
    span: Span = NOSPAN

    @property
    def key(self) -> tuple:
        """One rule per landmark kind."""
        return ("owned", self.kind)


@dataclass(frozen=True, slots=True)
class EndHeld:
    """`held cards as missions` (S-E3, I-E1)."""

    category: str
    span: Span = NOSPAN
    key: tuple = ("held",)


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One step of the winner's tie-break: a player expression, among the tied or anywhere (S-E4)."""

    expr: Expr
    among_tied: bool
    span: Span = NOSPAN


@dataclass(frozen=True, slots=True)
class WinnerTies:
    """`winner ties: STEP, then STEP` (S-E4, I-E2)."""

    steps: tuple[TieBreak, ...]
    span: Span = NOSPAN
    key: tuple = ("winner ties",)


EndItem = EndIncomplete | EndOwned | EndHeld | WinnerTies


@dataclass(frozen=True, slots=True)
class Without:
    """`without on EVENT` / `without ability NAME`: removes a statement of the extended ruleset."""

    target: tuple
    span: Span = NOSPAN


Statement = (
    PlayersRange | Declare | TileSpec | ClassDecl | SetAside | Hand | Returns | Neutral | PublicSetup
    | PlaceRule | OneTile | Turns | PassRule | GroupDecl | Trigger | AreaBlock | MajorityBlock | DeckBlock | PublicDecl
    | AbilityDecl | EndIncomplete | EndOwned | EndHeld | WinnerTies | Without
)


@dataclass(frozen=True, slots=True)
class Rules:
    """A parsed rules file: header and statements in source order (blocks flattened where keyed)."""

    header: Header
    statements: tuple[Statement, ...]
    file: str = ""
    source: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False)

"""The compiled ruleset: everything the engine needs, resolved against one board."""

from __future__ import annotations

import re
from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.prims import CompiledExpr
from rebirth_dsl.errors import RebirthError, did_you_mean
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.vocab import TieStep
from rebirth_dsl.shared_methods import Record, field, record

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.compile.prims import Fn
    from rebirth_dsl.compile.reads import Reads, Threshold  # a card's analysis: made on its first read


# ----- what later stages derive from a ruleset, once ----------------------------------------------
class Derived:
    """The products later stages derive from a ruleset once (runtime tables, generated engines), one typed
    member each: a field made for them on the ruleset, so nothing is stuck onto it afterwards. Each member
    is filled and read by one function of the module that owns the product, and nothing else reads it; a
    product is asked for by calling that function, never found because some other caller made it first.
    Members typed Any hold a type of a later layer (named beside it), which this layer cannot import."""

    __slots__ = ("parsed_tiles", "colour_tiles", "deck_names", "static", "blank", "fresh", "copied", "tile_names",
                 "public_reads", "public_start", "public_warm", "fast", "end_quiet", "tally", "points", "evaluation",
                 "native")

    def __init__(self) -> None:
        self.parsed_tiles: dict[str, tuple[int, int]] = {}  # Ruleset.parse_tile, by text
        self.colour_tiles: dict[int, tuple[tuple[int, int], ...]] = {}  # runtime.setup.deal, by player count
        self.deck_names: tuple[tuple[str, tuple[str, ...]], ...] | None = None  # runtime.setup.deal
        self.static: Any = None  # runtime.game.Static: runtime.game.static(rs)
        self.blank: dict[tuple[int, type], Any] = {}  # runtime.game.blank: a State, by (players, class)
        self.fresh: dict[tuple[int, type], Callable[[], Any]] = {}  # runtime.game.Game.__new__, likewise
        self.copied: dict[tuple[int, type], int] = {}  # runtime.game.Game.__new__: games copied before `fresh`
        # runtime.abilities.tile_choices: the names and the tiles they name
        self.tile_names: dict[frozenset[tuple[int, int]], tuple[tuple[str, ...], tuple[tuple[int, int], ...]]] = {}
        self.public_reads: Any = None  # accel.public._Watch per player count: accel.public._watches(rs)
        self.public_start: dict[int, tuple[int, ...]] = {}  # accel.public._first, by player count
        self.public_warm: list[Any] | None = None  # accel.public._warm_slot: the last positions warmed
        self.fast: Any = None  # pyengine.fast.Compiled: pyengine.fast.compiled(rs)
        self.end_quiet: Callable[[Any], list[Any]] | None = None  # accel.fast_end.end_quiet(rs, Event)
        self.tally: Any = None  # play.tally._Tables: play.tally._tables(rs)
        self.points: Any = None  # play.points.Points: play.points.points_for(rs)
        self.evaluation: Any = None  # play.evaluate.Evaluation: play.evaluate.evaluation_for(rs)
        self.native: Any = None  # native.lib.NativeEngine, or why not (str): native.engine(rs)


# ----- the compiled ruleset -------------------------------------------------------------------
@record
class ScoreTrigger(Record):
    """A placement trigger: on a tile of these kinds (on hexes matching `at`), score `fn` as `category`."""

    kinds: frozenset[int] | None
    at: list[bool] | None
    fn: Fn
    category: str
    ids: tuple[str, ...]
    text: str
    expr: A.Expr | None = None  # kept so the fast engine can specialise known shapes


@record
class AreaRule(Record):
    """S-A1..S-A4 as data: ranking attribute, tie-break steps, payouts and the alone rule."""

    kind: str
    category: str
    ties: tuple[TieStep, ...]
    pay: dict[tuple[int, int | None], tuple[Fn, ...]]
    alone: tuple[int, ...]
    ids: tuple[str, ...]
    rank_ids: tuple[str, ...] = ()  # rank + ties
    pay_ids: dict[tuple[int, int | None], tuple[str, ...]] = field(default_factory=dict)
    alone_ids: tuple[str, ...] = ()
    # the ids an area's payment cites, per payout key: (by place, alone), joined once here
    paid_ids: dict[tuple[int, int | None], tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    pay_exprs: dict[tuple[int, int | None], tuple[A.Expr, ...]] = field(default_factory=dict)  # for code generation


@record
class MajorityRule(Record):
    """S-K1..S-K5 as data: landmarks of a kind, comparison metrics, and the final tie."""

    kind: str
    category: str
    landmarks: tuple[int, ...]
    metrics: tuple[frozenset[int] | None, ...]
    placer_takes_tie: bool
    ids: tuple[str, ...]
    metric_names: tuple[str, ...] = ("any",)
    step_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # over, unowned, compare.N, final


@record
class Ability(Record):
    """A printed ability (I-R1): its name, its typed effect, the compiled points of a scoring effect."""

    name: str
    effect: A.Effect
    ids: tuple[str, ...]
    fn: Fn | None = None  # ScoreEffect only


@record
class PlaceDraw(Record):
    """`on place KINDS [at TAG]: draw DECK`: the placer draws the top card of a deck."""

    kinds: frozenset[int] | None
    at: list[bool] | None
    deck: str
    ids: tuple[str, ...]


@record
class TouchRule(Record):
    """`on first touch KIND: ACTION`: draw a card (S-M1), use the landmark's ability (I-R1), or score."""

    kind: str
    action: A.Action
    ids: tuple[str, ...]
    fn: Fn | None = None  # a score action's compiled points
    text: str = ""  # a score action's expression, as written
    by: frozenset[int] | None = None  # `by KINDS`: only tiles of these kinds count, placed or before (touch.py)


@record
class EmptyDeck(Record):
    """What a draw from an empty deck does: nothing (fn None), or score `fn` as `category` (S-M1)."""

    fn: CompiledExpr | None
    category: str
    ids: tuple[str, ...]
    text: str = ""


@record
class PublicRule(Record):
    """I-M1: the face-up cards of a deck, checked after every placement; big to the first, small later;
    the placer checked first then clockwise, or every player in seat order."""

    deck: str
    category: str
    ids: tuple[str, ...]
    placer_first: bool = True


@record
class CardDef(Record):
    """One card: name, points (big), small points, condition, and what the condition reads."""

    name: str
    points: int
    small: int | None
    cond: CompiledExpr
    ids: tuple[str, ...]
    reads: Reads | None  # what the condition depends on (compile/reads.py); None: everything
    threshold: Threshold | None  # `E >= N` that only the holder's tiles raise, boundedly (reads.py)
    measure: CompiledExpr | None  # the threshold's E, compiled

    def __init__(self, name: str, points: int, small: int | None, cond: CompiledExpr, ids: tuple[str, ...],
                 reads: Reads | None = None, threshold: Threshold | None = None, measure: CompiledExpr | None = None,
                 *, analysis: Callable[[], tuple[Reads | None, Threshold | None, CompiledExpr | None]] | None = None
                 ) -> None:
        """The card; with `analysis`, its reads, threshold and measure are what analysis() gives, found at the
        first read of any of them: the reads analysis is much of compiling a deck, and only the engines
        that play on from a position read it (`rebirth eval` never does)."""
        self.name, self.points, self.small, self.cond, self.ids = name, points, small, cond, ids
        if analysis is None:
            self.reads, self.threshold, self.measure = reads, threshold, measure
        else:
            self._analysis = analysis

    if not TYPE_CHECKING:  # not seen by type checkers: every other name stays checked
        def __getattr__(self, name: str) -> Any:
            """Called for an attribute not set: the analysis' three before their first read (set before the
            analysis is dropped, so a second thread reading them meanwhile finds them either way)."""
            if name in _ANALYSED:
                analysis = self.__dict__.get("_analysis")
                if analysis is not None:
                    self.reads, self.threshold, self.measure = analysis()
                    self.__dict__.pop("_analysis", None)
                if name in self.__dict__:
                    return self.__dict__[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


_ANALYSED = ("reads", "threshold", "measure")


Reaction = ScoreTrigger | PlaceDraw | AreaRule | MajorityRule | TouchRule | PublicRule  # what reacts to a placement


@record
class Cites(Record):
    """The rule ids each of the ruleset's own setup, placement and turn statements cites, one member per
    rule: what a refusal or event of that rule names (empty: the rules file cites nothing there)."""

    players: tuple[str, ...] = ()  # `players LOW to HIGH`
    mix: tuple[str, ...] = ()  # the tile statements, every id once in file order
    set_aside: tuple[str, ...] = ()
    returns: dict[int, tuple[str, ...]] = field(default_factory=dict)  # per player count
    place: dict[int, tuple[str, ...]] = field(default_factory=dict)  # per tile kind id: its placement rule
    fallback: dict[int, tuple[str, ...]] = field(default_factory=dict)  # per tile kind id: its fallback rule
    one_tile: tuple[str, ...] = ()
    turns: tuple[str, ...] = ()
    passes: tuple[str, ...] = ()  # `when no hex is legal: pass`


@record
class Ruleset(Record):
    """Everything the engine needs, resolved against one board."""

    t: Tables
    name: str
    title: str
    cites: Cites = field(default_factory=Cites)  # the ids of the setup, placement and turn rules
    players: tuple[int, int] = (2, 4)
    tile_kinds: list[str] = field(default_factory=list)
    mix: list[tuple[int, int]] = field(default_factory=list)  # (kind id, value) per tile of one colour
    set_aside: int = 0
    set_aside_visible: bool = True
    hand: int = 1
    returns: dict[int, list[A.TileCount]] = field(default_factory=dict)
    neutral: dict[int, A.Neutral] = field(default_factory=dict)
    public: A.PublicSetup | None = None
    # tile kind id -> hex kinds, in the rules' order (never a set: iteration order must not depend on hashing)
    primary: dict[int, tuple[str, ...]] = field(default_factory=dict)
    fallback: dict[int, tuple[str, ...]] = field(default_factory=dict)
    group_kinds: frozenset[int] = frozenset()
    # the statements that react to a placement, in file order
    reactions: tuple[Reaction, ...] = ()
    areas: dict[str, AreaRule] = field(default_factory=dict)
    majorities: list[MajorityRule] = field(default_factory=list)
    decks: dict[str, list[CardDef]] = field(default_factory=dict)
    empty_decks: dict[str, EmptyDeck] = field(default_factory=dict)  # deck name -> a draw when it is empty
    public_category: str | None = None
    abilities: dict[str, Ability] = field(default_factory=dict)
    end_incomplete: list[tuple[str, CompiledExpr, str, tuple[str, ...]]] = field(default_factory=list)
    end_owned: list[tuple[str, CompiledExpr, str, tuple[str, ...]]] = field(default_factory=list)
    end_held: tuple[str, tuple[str, ...]] | None = None
    winner_ties: list[tuple[CompiledExpr, bool, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    track_categories: list[str] = field(default_factory=list)
    # what later stages derive from the ruleset once (runtime tables, the generated engines): see Derived
    derived: Derived = field(default_factory=Derived, repr=False, compare=False)

    def freeze(self) -> None:
        """End of compilation: from here on no member is assigned again (the products later stages derive
        are kept in `derived`, a member made for them), so every engine reads the rules as compiled."""
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: object) -> None:
        if self.__dict__.get("_frozen"):
            raise AttributeError(f"a compiled ruleset is frozen: cannot assign {name!r}")
        object.__setattr__(self, name, value)

    # ----- tiles ------------------------------------------------------------------------------
    def tile_name(self, kind: int, value: int) -> str:
        """`food` or `settlement:3`."""
        k = self.tile_kinds[kind]
        return f"{k}:{value}" if self.t.attribute_of.get(k) else k

    def parse_tile(self, text: str) -> tuple[int, int]:
        """`settlement:3` -> (kind id, value); raises a RebirthError naming the valid tiles."""
        # a tile name parses the same way every time (abilities parse their answers every use): kept per text
        parsed = self.derived.parsed_tiles
        if type(text) is str and text in parsed:
            return parsed[text]
        tile = self._parse_tile(text)
        if type(text) is str:
            parsed[text] = tile
        return tile

    def _parse_tile(self, text: str) -> tuple[int, int]:
        kind, _, val = str(text).partition(":")
        if kind not in self.tile_kinds:
            dym = did_you_mean(kind, self.tile_kinds)
            raise RebirthError.single(f"unknown tile {text!r}" + (f"; did you mean {dym!r}?" if dym else "")
                                      + f" (tiles: {', '.join(self.tile_kinds)})")
        kid = self.tile_kinds.index(kind)
        has_attr = self.t.attribute_of.get(kind) is not None
        if has_attr:
            valid = sorted({v for k, v in self.mix if k == kid})
            if not re.fullmatch(r"[0-9]{1,6}", val) or int(val) not in valid:  # ASCII digits only, as written
                raise RebirthError.single(f"tile {text!r} needs a value: {', '.join(f'{kind}:{v}' for v in valid)}")
            return kid, int(val)
        if val:
            raise RebirthError.single(f"tile {text!r}: a {kind} has no value; write {kind!r}")
        return kid, 0

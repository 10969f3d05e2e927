"""The game state as a plain slotted structure, the one way events happen, and its copy.

`State` declares every field with its type; `copy_state` copies each field as deeply as its type says (a
list of lists is copied two levels down; ints, strings, tuples and frozen values are shared), and
tests/engines/test_fast.py holds it to that for every field, so a field added to the state can never be
silently shared between two copies. Fields marked `shared` hold what depends only on the ruleset and board.
"""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.compile.ruleset import Ability, CardDef, MajorityRule, Ruleset, TouchRule
from rebirth_dsl.shared_methods import Record, Struct, field, slotted_record, struct

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from rebirth_dsl.rules.kind import Placement
    from rebirth_dsl.runtime.game import Game

from rebirth_dsl.rules.view import EMPTY as EMPTY  # the hex codes, re-exported where the state is
from rebirth_dsl.rules.view import NEUTRAL as NEUTRAL

# The answer to an ability's question (I-R1): {key: option}, True to use it with nothing to choose, False to
# decline; and what answers them where no move does (probes, playouts): (game, seat, landmark, ability, key,
# the possible answers or None)
Answer = dict[str, str] | bool
AutoChoose = Callable[["Game", int, int, Ability, str, "list[str] | None"], Answer]


@slotted_record
class Event(Record):
    """Something that happened: points scored (possibly 0), a landmark changing hands, a card drawn."""

    index: int | None  # move index; None for end-of-game scoring, -1 for setup
    player: int
    points: int
    category: str
    ids: tuple[str, ...]
    text: str

    # made for every scoring event: written out, as @dataclass would generate it (the shared one is slower),
    # storing every field in order (accel/fast_end.py stores them so without calling it)
    def __init__(self, index: int | None, player: int, points: int, category: str, ids: tuple[str, ...],
                 text: str) -> None:
        self.index = index
        self.player = player
        self.points = points
        self.category = category
        self.ids = ids
        self.text = text


def _shared() -> Any:  # Any: a field's default stands in for a value of the field's own type
    return field(default=None, metadata={"shared": True})


@struct  # its methods shared, not compiled at every start (rebirth_dsl/shared_methods.py)
class State(Struct):
    """Everything that changes during a game. Hexes are board indices, players are seats (clockwise)."""

    # what depends only on the ruleset and board: shared by every copy
    rs: Ruleset = _shared()
    t: Tables = _shared()
    players: tuple[str, ...] = _shared()
    n_players: int = 0
    scenario: bool = False
    lm_adj: tuple[tuple[int, ...], ...] = _shared()
    metric_of: dict[int, MajorityRule] = _shared()
    cards: dict[str, CardDef] = _shared()
    ability_rules: tuple[TouchRule, ...] = _shared()
    # each statement with its rule module's reaction, in file order (rules.table.kind_of, asked once a ruleset)
    reactors: tuple[tuple[Callable[[Any, Any, Placement], None], object], ...] = _shared()
    auto_choose: AutoChoose | None = _shared()  # probes and playouts: answers ability questions the record does not
    # the public missions' check after a placement (I-M1), when not the rule as stated (rules.public.check):
    # a speed device proven equal to it (accel/public.py), put here by the layer that plays the game
    public_reader: Callable[..., None] | None = _shared()
    # the position
    declared_over: bool = False
    quiet: bool = False  # simulations: points only, no event objects and no text
    owner: list[int] = field(default_factory=list)
    tkind: list[int] = field(default_factory=list)
    tval: list[int] = field(default_factory=list)
    tiles_of: list[list[list[int]]] = field(default_factory=list)  # [seat][kind] -> hexes, in placing order
    parent: list[int] = field(default_factory=list)  # union-find over same-owner same-kind neighbours
    gsize: list[int] = field(default_factory=list)
    area_free: list[int] = field(default_factory=list)
    area_inf: list[list[int]] = field(default_factory=list)  # [area][seat]
    area_first: dict[int, int] = field(default_factory=dict)
    area_done: list[bool] = field(default_factory=list)
    lm_owner: list[int] = field(default_factory=list)
    lm_count: list[list[list[int]]] = field(default_factory=list)  # [landmark][metric][seat]
    touched: list[set[int]] = field(default_factory=list)
    free: dict[str, list[int]] = field(default_factory=dict)  # free hexes per hex kind (swap-remove lists)
    free_pos: list[int] = field(default_factory=list)
    # a player's groups of some kinds (Game.groups_of), kept only while a fixed position is read, None otherwise
    memo: dict[tuple[str, int, frozenset[int]], list[list[int]]] | None = _shared()
    # the players
    scores: list[dict[str, int]] = field(default_factory=list)
    track: list[int] = field(default_factory=list)
    start_scores: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    hand: list[list[tuple[int, int]]] = field(default_factory=list)
    supply: list[list[tuple[int, int]]] = field(default_factory=list)  # the end of each list is its top
    set_aside: list[list[tuple[int, int]]] = field(default_factory=list)
    decks: dict[str, list[str]] = field(default_factory=dict)  # top card first
    held: list[list[str]] = field(default_factory=list)
    turn: int = 0
    move_index: int = 0
    passed: list[int] = field(default_factory=list)
    public: list[str] = field(default_factory=list)
    public_by: dict[str, list[int]] = field(default_factory=dict)
    doubled: list[dict[str, int]] = field(default_factory=list)  # per player: card -> its marker's factor
    # what the public missions were last checked against by the generated engine's incremental check
    # (accel/public.py): [hex owners, landmark holders, [areas won], the face-up cards each seat has not
    # fulfilled (bits), how far each seat is from each bounded card's number]; empty until the first check,
    # which reads every card
    public_seen: list[list[int]] = field(default_factory=list)
    pending_draw: dict[int, tuple[int, tuple[int, int], str]] = field(default_factory=dict)  # (n, keep, rest)

    # ----- the one way anything happens ---------------------------------------------------------
    def event(self, index: int | None, p: int, pts: int, category: str, ids: tuple[str, ...], text: str,
              *args: object) -> None:
        """Points (possibly none) to a player's track and category, and an Event unless quiet. The text is
        a `str.format` template filled with args only when it is kept, so a quiet game never builds words."""
        if pts:
            sc = self.scores[p]
            sc[category] = sc.get(category, 0) + pts
            self.track[p] += pts
        if not self.quiet:
            self.events.append(Event(index, p, pts, category, ids, text.format(*args) if args else text))

    def end_event(self, p: int, pts: int, category: str, ids: tuple[str, ...], text: str, *args: object) -> Event:
        """An end-of-game Event, scored by the caller on top of the track (the state is not changed)."""
        return Event(None, p, pts, category, ids, "" if self.quiet else text.format(*args) if args else text)

    def copy(self) -> State:
        """An independent copy (see copy_state)."""
        return copy_state(self)


# ----- the copy ------------------------------------------------------------------------------------
if TYPE_CHECKING:
    _S = TypeVar("_S", bound=State)  # a State or a Game: the copy is of the same class


def copy_state(s: _S) -> _S:
    """An independent copy: every list, dict and set of the position and the players is new, as deep as it
    nests; ints, strings, tuples and events are shared, as is what depends only on the ruleset and board.
    A field left out here is unset in the copy (slots), which tests/engines/test_fast.py reads for.
    A container of containers is copied with `map` (`list(map(list, v))`): one call that runs in C where a
    comprehension would run a loop of bytecode, the same copy (a game is copied for every probe)."""
    n = object.__new__(type(s))
    # what depends only on the ruleset and board, and the atoms
    n.rs = s.rs
    n.t = s.t
    n.players = s.players
    n.n_players = s.n_players
    n.scenario = s.scenario
    n.lm_adj = s.lm_adj
    n.metric_of = s.metric_of
    n.cards = s.cards
    n.ability_rules = s.ability_rules
    n.reactors = s.reactors
    n.auto_choose = s.auto_choose
    n.public_reader = s.public_reader
    n.memo = s.memo
    n.declared_over = s.declared_over
    n.quiet = s.quiet
    n.turn = s.turn
    n.move_index = s.move_index
    # the position
    n.owner = list(s.owner)
    n.tkind = list(s.tkind)
    n.tval = list(s.tval)
    n.tiles_of = [list(map(list, kinds)) for kinds in s.tiles_of]
    n.parent = list(s.parent)
    n.gsize = list(s.gsize)
    n.area_free = list(s.area_free)
    n.area_inf = list(map(list, s.area_inf))
    n.area_first = dict(s.area_first)
    n.area_done = list(s.area_done)
    n.lm_owner = list(s.lm_owner)
    n.lm_count = [list(map(list, metrics)) for metrics in s.lm_count]
    n.touched = list(map(set, s.touched))
    n.free = dict(zip(s.free, map(list, s.free.values())))  # noqa: B905 - a dict's keys and values
    n.free_pos = list(s.free_pos)
    # the players
    n.scores = list(map(dict, s.scores))
    n.track = list(s.track)
    n.start_scores = list(s.start_scores)
    n.events = list(s.events)
    n.hand = list(map(list, s.hand))
    n.supply = list(map(list, s.supply))
    n.set_aside = list(map(list, s.set_aside))
    n.decks = dict(zip(s.decks, map(list, s.decks.values())))  # noqa: B905 - a dict's keys and values
    n.held = list(map(list, s.held))
    n.passed = list(s.passed)
    n.public = list(s.public)
    n.public_by = dict(zip(s.public_by, map(list, s.public_by.values())))  # noqa: B905 - a dict's keys and values
    n.doubled = list(map(dict, s.doubled))
    n.public_seen = list(map(list, s.public_seen))
    n.pending_draw = dict(s.pending_draw)
    return n

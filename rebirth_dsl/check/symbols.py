"""Symbol tables: the names a ruleset declares and, with a board, the board's integer tables."""

from __future__ import annotations

from collections.abc import Sequence

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.errors import Diagnostic, Fix, did_you_mean
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lang.limits import MAX_PLAYERS

if TYPE_CHECKING:  # pydantic is not imported to run a ruleset: boards arrive as board.view.BoardView too
    from rebirth_dsl.board.model import Board as BoardModel
    from rebirth_dsl.board.model import Hex as HexModel
    from rebirth_dsl.board.view import BoardView, HexView

    Board = BoardModel | BoardView
    # a hex of either board; `enumerate(board.hexes)` would join the two lists' items to `object`
    Hex = HexModel | HexView


# What a name of each sort is declared with: an unknown name of these sorts that is no typo is most often a
# name the author forgot to declare, and the hint (and the editor's code action) writes the declaration.
DECLARED_BY: dict[str, tuple[str, ...]] = {
    "landmark kind": ("landmark",),
    "hex kind": ("hex",),
    "tag": ("tag",),
    "hex kind or tag": ("hex", "tag"),
    "hex kind, tag or landmark": ("landmark", "hex", "tag"),
}

MAX_SUGGESTIONS = 200  # did-you-mean searches in one check; a real file has a handful of typos
MAX_SUGGEST_FROM = 256  # names searched for a guess: a ruleset within the limits has at most 5 x 32 kinds


def players_range(rules: A.Rules) -> tuple[int, int]:
    """The player counts the ruleset allows (2 to 4 when it does not say), clipped to the limit: the last
    `players LOW to HIGH` counts, as the compiler reads it."""
    found = [s for s in rules.statements if isinstance(s, A.PlayersRange)]
    if not found:
        return 2, 4
    lo, hi = max(found[-1].low, 1), min(found[-1].high, MAX_PLAYERS)
    return lo, max(lo, hi)


class Tables:
    """Names the rules declare, and (with a board) the board's integer tables."""

    def __init__(self, rules: A.Rules, board: Board | None = None) -> None:
        self.rules = rules
        self.board = board
        self.players = players_range(rules)  # the player counts it plays
        self.board_file = ""
        self.require_landmarks = True
        st = rules.statements
        self.hex_kinds: list[str] = []
        self.landmark_kinds: list[str] = []
        self.tags: list[str] = []
        self.tag_on: dict[str, tuple[str, ...]] = {}
        declared: dict[str, set[str]] = {"hex": set(), "landmark": set(), "tag": set()}
        for s in st:
            if isinstance(s, A.Declare):
                # each name once, in the order declared; a set answers "already?" (a list would, per name,
                # read every name before it: a long declaration would cost its length squared)
                target, known = {"hex": self.hex_kinds, "landmark": self.landmark_kinds, "tag": self.tags}[s.what], \
                    declared[s.what]
                for n in s.names:
                    if n not in known:
                        known.add(n)
                        target.append(n)
                if s.what == "tag" and s.on:
                    self.tag_on.update(dict.fromkeys(s.names, s.on))
        self.tile_kinds: list[str] = []
        self.attributes: set[str] = set()
        self.attribute_of: dict[str, str | None] = {}
        for s in st:
            if isinstance(s, A.TileSpec) and s.kind not in self.attribute_of:
                self.tile_kinds.append(s.kind)
                self.attribute_of[s.kind] = s.attribute
                if s.attribute:
                    self.attributes.add(s.attribute)
        self.classes: dict[str, tuple[str, ...]] = {s.name: s.kinds for s in st if isinstance(s, A.ClassDecl)}
        self.decks: dict[str, A.DeckBlock] = {s.name: s for s in st if isinstance(s, A.DeckBlock)}
        self._ids: dict[str, dict[int, tuple[str, ...]]] = {f: comment_ids(src) for f, src in rules.sources.items()}
        # the name lists the checks ask of every statement, built once: per statement they would cost the
        # number of names each time (a file of many names and many statements, their product)
        self.kind_of: dict[str, str] = {}
        for what, names in (("tag", self.tags), ("landmark kind", self.landmark_kinds), ("hex kind", self.hex_kinds),
                            ("class", self.classes), ("tile kind", self.tile_kinds)):
            self.kind_of.update(dict.fromkeys(names, what))  # the first of these kinds a name is, wins
        self._all_selector_names = self.tile_kinds + list(self.classes) + self.hex_kinds + self.landmark_kinds + self.tags
        self._selector_options = {"tile": self.tile_kinds + list(self.classes),
                                  "hex": self.hex_kinds + self.landmark_kinds + self.tags}
        self._selector_sets = {k: frozenset(v) for k, v in self._selector_options.items()}
        self._selector_sets["landmark"] = frozenset(self.landmark_kinds)
        self._selector_sets["tag"] = frozenset(self.tags)
        self._tile_index = {k: i for i, k in enumerate(self.tile_kinds)}
        self._landmarks_of: dict[str, list[str]] | None = None
        self._suggested: dict[tuple[str, tuple[str, ...]], str | None] = {}
        if board is not None:
            self._bind(board)

    # ----- names ------------------------------------------------------------------------------
    def selector_kind(self, name: str) -> str | None:
        """What a bare name denotes, if anything."""
        return self.kind_of.get(name)

    def all_selector_names(self) -> list[str]:
        """Every declared kind, class and tag name."""
        return self._all_selector_names

    def selector_options(self, what: str) -> list[str]:
        """The names a selector argument may take."""
        if what == "tile":
            return self._selector_options["tile"]
        if what in ("hex", "near"):
            return self._selector_options["hex"]
        return self.landmark_kinds

    def is_selector(self, what: str, name: str) -> bool:
        """Whether a name is a tile kind or class, a hex kind (landmark kinds and tags too), a landmark kind or
        a tag, as `what` says: selector_options without reading a list."""
        return name in self._selector_sets["hex" if what == "near" else what]

    def tile_kind_ids(self, name: str) -> frozenset[int]:
        """Kind ids named by a tile kind or a class."""
        kinds = self.classes.get(name, (name,))
        return frozenset(self._tile_index[k] for k in kinds if k in self._tile_index)

    def suggest(self, name: str, options: list[str] | tuple[str, ...] | set[str]) -> str | None:
        """did_you_mean, within a budget: a misspelt name is compared with every option, so a file of
        thousands of unknown names among hundreds of declared ones would cost their product; past
        MAX_SUGGESTIONS searches (or among more than MAX_SUGGEST_FROM names) a name gets no guess."""
        if len(options) > MAX_SUGGEST_FROM:
            return None
        key = (name, tuple(options))
        if key in self._suggested:
            return self._suggested[key]
        if len(self._suggested) >= MAX_SUGGESTIONS:
            return None
        self._suggested[key] = found = did_you_mean(name, options)
        return found

    def _searchable(self, name: str, options: list[str]) -> bool:
        """Whether suggest searches (or has searched) these options for this name, within its budget."""
        return len(options) <= MAX_SUGGEST_FROM and ((name, tuple(options)) in self._suggested
                                                     or len(self._suggested) < MAX_SUGGESTIONS)

    def unknown(self, span: A.Span, msg: str, what: str, name: str, options: list[str] | tuple[str, ...] | set[str],
                ) -> Diagnostic:
        """An unknown name at its place: "did you mean" when it is close to a declared one, else (for the sorts
        a declaration names) "declare it with `landmark well`", with that declaration as a fix. Its code
        ("undeclared", for a tile kind "undeclared-tile", for a deck "undeclared-deck") lets check report
        one diagnostic per missing name however often it is used."""
        opts = list(options)
        searched = not opts or self._searchable(name, opts)  # past the budget, a typo cannot be told from a gap
        dym = self.suggest(name, opts) if opts else None
        d = Diagnostic(msg, file=span.file, line=span.line, col=span.col,
                       hint=f"did you mean `{dym}`?" if dym else None)
        if dym or not searched or not name.isidentifier():
            return d
        keywords = DECLARED_BY.get(what, ())
        if keywords:
            d.hint = "declare it with " + " or ".join(f"`{k} {name}`" for k in keywords)
            d.code, d.fixes = "undeclared", tuple(self.declaration(k, name) for k in keywords)
        elif what.startswith("tile kind"):
            d.hint, d.code = f"a tile kind is declared by its count in the tiles: `tiles {{ {name} x12 }}`", "undeclared-tile"
        elif what == "deck":
            d.hint, d.code = f"a deck is declared by its cards: `deck {name} {{ card \"NAME\" 3: CONDITION }}`", "undeclared-deck"
        return d

    def declaration(self, keyword: str, name: str) -> Fix:
        """The edit that declares a name (`landmark well`) in the file being checked: on a line after the
        file's last declaration by that keyword, else its last declaration, else its header."""
        own = [s for s in self.rules.statements if s.span.file == self.rules.file]
        decls = [s for s in own if isinstance(s, A.Declare)]
        after = ([s for s in decls if s.what == keyword] or decls)[-1].span if decls else self.rules.header.span
        line = (after.end_line or after.line) + 1
        return Fix(f"declare `{keyword} {name}`", A.Span(self.rules.file, line, 1, line, 1), f"{keyword} {name}\n")

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
        hexes: Sequence[Hex] = board.hexes
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
        for i, h in enumerate(hexes):
            if h.kind in self.landmark_kinds:
                self.landmark_ability.append(h.ability)
                self.landmark_of_hex[i] = len(self.landmark_hex)
                self.landmark_hex.append(i)
                self.landmark_kind.append(h.kind)
                self.landmark_name.append(h.name or f"{h.kind} ({h.q},{h.r})")
        self.landmark_names = list(zip(self.landmark_kind, self.landmark_name, strict=True))
        # the first landmark of each kind and name, and of each kind and tag: every landmark reference of
        # the rules is looked up, so a search of all landmarks per reference would cost their product
        self._landmark_by_name: dict[tuple[str, str], int] = {}
        self._landmark_by_tag: dict[tuple[str, str], list[int]] = {}
        for i, (k, n) in enumerate(self.landmark_names):
            self._landmark_by_name.setdefault((k, n), i)
            for tag in self.hex_tags[self.landmark_hex[i]]:
                self._landmark_by_tag.setdefault((k, tag), []).append(i)
        self.area_names: list[str] = []
        self.area_of: list[int] = []
        area_index: dict[str, int] = {}  # linear in the hexes, however many areas a board has
        members: list[list[int]] = []
        for i, h in enumerate(hexes):
            if h.area is None:
                self.area_of.append(-1)
                continue
            if h.area not in area_index:
                area_index[h.area] = len(self.area_names)
                self.area_names.append(h.area)
                members.append([])
            self.area_of.append(area_index[h.area])
            members[area_index[h.area]].append(i)
        self.area_hexes: list[tuple[int, ...]] = [tuple(m) for m in members]
        self.area_kind: list[str] = [self.hex_kind[hs[0]] for hs in self.area_hexes]

    def hex_matches(self, name: str) -> list[bool]:
        """Per hex: is it of this kind or does it carry this tag."""
        return [self.hex_kind[h] == name or name in self.hex_tags[h] for h in range(self.n)]

    def near_mask(self, target: A.Expr) -> list[bool] | None:
        """Per hex: is it next to the target of `near(H, target)` (a landmark, or a kind or tag); None for a
        target of another form."""
        if isinstance(target, A.Landmark):
            lm = self.find_landmark(target.kind, target.name, target.tag)
            ring = set(self.neighbours[self.landmark_hex[lm]]) if lm is not None else set()
            return [h in ring for h in range(self.n)]
        if isinstance(target, A.Name):
            m = self.hex_matches(target.id)
            return [any(m[x] for x in self.neighbours[h]) for h in range(self.n)]
        return None

    def find_landmark(self, kind: str, name: str | None, tag: str | None) -> int | None:
        """The index of a landmark by kind and name, or kind and tag."""
        if self.board is None:
            return None
        found = [self._landmark_by_name.get((kind, name))] if name is not None else []
        found += self._landmark_by_tag.get((kind, tag), [])[:1] if tag is not None else []
        return min((i for i in found if i is not None), default=None)

    def landmarks_tagged(self, kind: str, tag: str) -> list[str]:
        """The names of the board's landmarks of a kind that carry a tag, in board order."""
        return [self.landmark_name[i] for i in self._landmark_by_tag.get((kind, tag), [])] if self.board else []

    def landmarks_of(self, kind: str) -> list[str]:
        """The names of the board's landmarks of a kind, in board order."""
        if self._landmarks_of is None:
            self._landmarks_of = {}
            for k, n in self.landmark_names:
                self._landmarks_of.setdefault(k, []).append(n)
        return self._landmarks_of.get(kind, [])

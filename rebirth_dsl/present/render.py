"""Drawing a board, or a game's position: a text map for the terminal, or an SVG picture.

Nothing here knows a game: hex kinds, tags and tiles are names the rules and the board declare.
Colours, letters and glyphs come from small palettes looked up by name, with generic fallbacks for
names a palette does not know.
"""

from __future__ import annotations

import functools
import math
import textwrap
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from rebirth_dsl.board.model import NEIGHBOUR_OFFSETS, Board, validate_board_data
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.present.report import evaluate, render_table
from rebirth_dsl.records.record import load_record, replay

if TYPE_CHECKING:
    from rebirth_dsl.board.model import Hex
    from rebirth_dsl.board.view import BoardView, HexView
    from rebirth_dsl.runtime.game import Game

# ----- palettes (display only: unknown names fall back to generic choices) ------------------------
KIND_COLOURS: dict[str, str] = {
    "plain": "#ebe4c6", "food": "#b7d88c", "energy": "#f5d77a", "settlement": "#deb38a",
    "sea": "#92c0e0", "water": "#92c0e0", "lake": "#92c0e0", "forest": "#8fbf7f", "mountain": "#b0a89c",
    "castle": "#a3a3a3", "cathedral": "#c9b6e8", "tower": "#d9a0a8", "lighthouse": "#f2f2f2",
}
FALLBACK_COLOURS: tuple[str, ...] = ("#cfcfcf", "#d7c4a3", "#b9d3c9", "#d8b9c9", "#c4c9e0", "#e0d2b0")
SEAT_COLOURS: tuple[str, ...] = ("#c62828", "#1f5fbf", "#e6a700", "#7b1fa2", "#2e7d32", "#ef6c00")
NEUTRAL_COLOUR = "#6e6e6e"
AREA_BORDER = "#6b3510"
KIND_LETTERS: dict[str, str] = {"sea": "~", "water": "~", "lake": "~"}
TAG_MARKS: dict[str, str] = {"harbour": "+", "clover": "*", "neutral": ":", "wind": "%"}
SPARE_MARKS = "^=!?&@$"
TAG_GLYPHS: dict[str, str] = {"harbour": "anchor", "clover": "clover", "neutral": "dot"}

EMPTY = -1
NEUTRAL = -2
SQRT3 = math.sqrt(3.0)


def kind_colour(kind: str) -> str:
    """The fill for a hex kind: the palette's colour, or a stable generic one for an unknown kind."""
    return KIND_COLOURS.get(kind) or FALLBACK_COLOURS[zlib.crc32(kind.encode()) % len(FALLBACK_COLOURS)]


def seat_colour(seat: int) -> str:
    """The colour of a seat's tiles."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)] if seat >= 0 else NEUTRAL_COLOUR


def _ink(fill: str) -> str:
    """Black or white text, whichever reads better on `fill` (#rrggbb)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def _letters(names: list[str], defaults: dict[str, str], upper: bool) -> dict[str, str]:
    """One distinct character per name: the palette's, else its first free letter, else any free one."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for n in names:
        g = defaults.get(n)
        if g and g not in used:
            out[n] = g
            used.add(g)
    spare = "abcdefghijklmnopqrstuvwxyz0123456789"
    for i, n in enumerate(names):
        if n in out:
            continue
        pool = [c for c in n if c.isascii() and c.isalnum()] + list(spare)
        pick = next((c for c in (c.upper() if upper else c.lower() for c in pool) if c not in used), None)
        if pick is None:  # more names than characters: they repeat (the legend still names each)
            pick = spare[i % len(spare)].upper() if upper else spare[i % len(spare)]
        out[n] = pick
        used.add(pick)
    return out


def _seat_letter(seat: int) -> str:
    return chr(ord("a") + seat) if 0 <= seat < 26 else "?"


# ----- what is drawn: a board and, for a game, its position --------------------------------------
@dataclass
class View:
    """A board with, for a game, who holds what. Hexes are board indices."""

    board: Board | BoardView
    title: str
    landmark_kinds: list[str]
    landmarks: list[tuple[int, str]]  # (hex, name) per landmark
    players: list[str] = field(default_factory=list)
    owner: list[int] = field(default_factory=list)  # per hex: EMPTY, NEUTRAL or a seat
    tile: list[str] = field(default_factory=list)  # per hex: the tile kind name, "" if none
    value: list[int | None] = field(default_factory=list)  # per hex: a valued tile's value
    lm_owner: list[int] = field(default_factory=list)  # per landmark: seat or -1
    contested: set[int] = field(default_factory=set)  # landmarks whose ownership the rules track
    hidden_tags: set[str] = field(default_factory=set)  # tags not worth showing in this game
    tile_kinds: list[str] = field(default_factory=list)
    valued: dict[str, str] = field(default_factory=dict)  # tile kinds that carry a number -> its name
    result: dict[str, Any] | None = None  # report.evaluate
    categories: list[str] = field(default_factory=list)
    status: str = ""
    hex_kinds: list[str] = field(default_factory=list)  # display order

    @property
    def is_game(self) -> bool:
        """Whether there is a position to show."""
        return self.result is not None

    def tags(self) -> list[str]:
        """The tags shown, in order of first appearance."""
        out: list[str] = []
        for h in self.board.hexes:
            out.extend(t for t in h.tags if t not in out and t not in self.hidden_tags)
        return out


# ----- a measure drawn over a board (simulate --map-stats) -------------------------------------------
# a perceptually even scale, dark to light (matplotlib's viridis at nine stops; present/plots.py draws the
# PNGs with viridis itself, so both pictures of a measure agree)
HEAT_STOPS: tuple[str, ...] = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962",
                               "#addc30", "#fde725")


# a scale for differences, blue (less) through white (none) to red (more): matplotlib's RdBu_r at nine stops
DIFF_STOPS: tuple[str, ...] = ("#053061", "#2166ac", "#4393c3", "#92c5de", "#f7f7f7", "#f4a582", "#d6604d",
                               "#b2182b", "#67001f")


def heat_colour(x: float, stops: Sequence[str] = HEAT_STOPS) -> str:
    """The scale's colour at x in [0, 1] (clamped), interpolated between its stops."""
    x = min(1.0, max(0.0, x)) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    f = x - i
    a, b = stops[i], stops[i + 1]
    return "#" + "".join(f"{round(int(a[k:k + 2], 16) * (1 - f) + int(b[k:k + 2], 16) * f):02x}" for k in (1, 3, 5))


def _faded(colour: str, keep: float = 0.35) -> str:
    """A colour mixed with white: what a hex the measure does not cover is drawn in."""
    return "#" + "".join(f"{round(int(colour[k:k + 2], 16) * keep + 255 * (1 - keep)):02x}" for k in (1, 3, 5))


def faded_kind_colour(kind: str) -> str:
    """A hex kind's colour, faded: how a heat map draws a hex its measure does not cover."""
    return _faded(kind_colour(kind))


@dataclass(frozen=True)
class Heat:
    """A measure drawn over a board: per hex a value on the colour scale (None: the measure does not cover
    the hex; it is drawn faded in its kind's colour) and a short label; optional bars under some hexes
    (hex -> (colour, fraction) parts, e.g. who held a landmark at the end) and lines under the scale."""

    title: str  # the measure, shown under the board's title and as the scale's caption
    values: Sequence[float | None]
    labels: Sequence[str]
    lo: float
    hi: float
    ticks: Sequence[str] = ()  # the scale's labels at lo, the middle and hi (default: the numbers)
    bars: Mapping[int, Sequence[tuple[str, float]]] = field(default_factory=dict)
    key: Sequence[tuple[str, str]] = ()  # (colour, label): what the bars' colours mean
    notes: Sequence[str] = ()
    diverging: bool = False  # a difference: DIFF_STOPS, white at the middle of lo..hi

    @property
    def stops(self) -> Sequence[str]:
        """The scale's colours, low to high."""
        return DIFF_STOPS if self.diverging else HEAT_STOPS

    def colour(self, i: int) -> str | None:
        """Hex i's colour on the scale, or None when the measure does not cover it."""
        v = self.values[i]
        if v is None:
            return None
        return heat_colour((v - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 1.0, self.stops)


def heat_svg(board: Board | BoardView, heat: Heat, size: float = 30.0) -> str:
    """The board drawn as a heat map of one measure: the hexes coloured by the scale, their labels, the
    areas' borders, the landmarks' names, the tags, a colour scale and the notes."""
    view = _board_view(board)
    view.status = heat.title
    return render_svg(view, size, heat)


def _board_view(board: Board | BoardView) -> View:
    hexes: Sequence[Hex | HexView] = board.hexes
    named = {h.kind for h in hexes if h.name}
    kinds = list(dict.fromkeys(h.kind for h in hexes))
    landmarks = [(i, h.name or f"{h.kind} ({h.q},{h.r})") for i, h in enumerate(hexes) if h.kind in named]
    n = len(hexes)
    return View(board, board.title or board.name, [k for k in kinds if k in named], landmarks,
                owner=[EMPTY] * n, tile=[""] * n, value=[None] * n, lm_owner=[-1] * len(landmarks),
                hex_kinds=[k for k in kinds if k not in named])


def _game_view(path: str, data: dict[str, Any], allow_paths: bool = False) -> View:
    r = replay(load_record(path, data, allow_paths))
    game, rec = r.game, r.loaded.record
    applied = r.error.index if r.error is not None and r.error.index is not None else len(rec.moves)
    view = position_view(game, r.loaded.board)
    state = "finished" if view.result and view.result["finished"] else "in progress"
    status = f"{game.rs.title}; {', '.join(game.players)}; after {applied} of {len(rec.moves)} moves ({state})"
    if r.error is not None:
        status += f"; stopped: {r.error.diagnostics[0].message} ({r.error.rule}, move {r.error.index})"
    view.status = status
    return view


def position_view(game: Game, board: Board | BoardView) -> View:
    """A game's position as it stands, ready to draw (the status line is the caller's)."""
    rs, t = game.rs, game.t
    present = list(dict.fromkeys(t.hex_kind))
    lm_kinds = list(dict.fromkeys(t.hex_kind[h] for h in t.landmark_hex))
    declared = [k for k in t.hex_kinds if k in present]
    hex_kinds = [k for k in declared + present if k not in lm_kinds]
    valued = {k: str(t.attribute_of[k]) for k in rs.tile_kinds if t.attribute_of.get(k)}
    tiles = [rs.tile_kinds[k] if game.owner[h] >= 0 and 0 <= k < len(rs.tile_kinds) else ""
             for h, k in enumerate(game.tkind)]
    values: list[int | None] = [game.tval[h] if tiles[h] in valued else None for h in range(t.n)]
    return View(
        board, board.title or board.name, lm_kinds,
        list(zip(t.landmark_hex, t.landmark_name, strict=True)),
        players=list(game.players), owner=list(game.owner), tile=tiles, value=values,
        lm_owner=list(game.lm_owner), contested={lm for rule in rs.majorities for lm in rule.landmarks},
        hidden_tags={nr.tag for nr in rs.neutral.values()}, tile_kinds=list(rs.tile_kinds), valued=valued,
        result=evaluate(game), categories=list(rs.categories), status="", hex_kinds=list(dict.fromkeys(hex_kinds)),
    )


def build_view(path: str, data: Any, allow_paths: bool = False) -> View:
    """A board file, a game record, or a reference position (its `record`), ready to draw."""
    if not isinstance(data, dict):
        raise RebirthError.single("expected a JSON object: a board or a game record", file=path)
    if "hexes" in data:
        return _board_view(validate_board_data(data, path))
    if "moves" in data or "rules" in data:
        return _game_view(path, data, allow_paths)
    if isinstance(data.get("record"), dict):
        return _game_view(path, data["record"], allow_paths)
    raise RebirthError.single("neither a board (it has no \"hexes\") nor a game record (no \"moves\")", file=path)


def draw(path: str, data: dict, svg: bool, allow_paths: bool = False) -> str:
    """Draw a board or a game record's position: SVG text if `svg`, else a text map for a terminal."""
    view = build_view(path, data, allow_paths)
    return render_svg(view) if svg else render_text(view)


# ----- text -------------------------------------------------------------------------------------
def _wrap(head: str, items: list[str], width: int = 110) -> list[str]:
    """`head` then the items, joined by two spaces, wrapped under `width` with a hanging indent."""
    lines, cur = [], head
    for it in items:
        if len(cur) + 2 + len(it) > width and cur.strip():
            lines.append(cur.rstrip())
            cur = " " * len(head)
        cur += it + "  "
    lines.append(cur.rstrip())
    return lines


def render_text(view: View) -> str:
    """Pointy-top hexes as offset rows: hex (q, r) sits in row r at column 2q + r, two characters per hex."""
    hexes: Sequence[Hex | HexView] = view.board.hexes
    plain_kinds = list(dict.fromkeys(view.hex_kinds + [h.kind for h in hexes if h.kind not in view.landmark_kinds]))
    kind_ch = _letters(sorted(plain_kinds), KIND_LETTERS, upper=False)  # sorted: same letters on every map
    lm_ch = _letters(sorted(view.landmark_kinds), {}, upper=True)
    tags = view.tags()
    mark = {t: TAG_MARKS[t] for t in tags if t in TAG_MARKS}
    spare = iter(c for c in SPARE_MARKS if c not in mark.values())
    for t in tags:
        mark.setdefault(t, next(spare, "?"))
    tile_ch = _letters([k for k in view.tile_kinds if k not in view.valued], {}, upper=True)
    lm_of = {h: i for i, (h, _) in enumerate(view.landmarks)}

    def cell(i: int) -> str:
        h = hexes[i]
        o = view.owner[i]
        if o == NEUTRAL:
            return "##"
        if o >= 0:
            v = view.value[i]
            second = tile_ch.get(view.tile[i], "?") if v is None else (str(v) if 0 <= v <= 9 else "+")
            return _seat_letter(o) + second
        shown = [mark[t] for t in h.tags if t in mark]
        if i in lm_of:
            lo = view.lm_owner[lm_of[i]]
            return lm_ch[h.kind] + (_seat_letter(lo) if lo >= 0 else (shown[0] if shown else " "))
        return kind_ch[h.kind] + (shown[0] if shown else " ")

    xs = {i: 2 * h.q + h.r for i, h in enumerate(hexes)}
    x0, x1 = min(xs.values()), max(xs.values())
    rows: dict[int, list[int]] = {}
    for i, h in enumerate(hexes):
        rows.setdefault(h.r, []).append(i)
    width = 2 * (x1 - x0) + 2
    out = [view.title + (f"  ({len(hexes)} hexes)" if not view.is_game else "")]
    if view.status:
        out.append(view.status)
    out.append("")
    for r in range(min(rows), max(rows) + 1):
        line = [" "] * width
        for i in rows.get(r, []):
            c = 2 * (xs[i] - x0)
            line[c:c + 2] = cell(i)
        qs = sorted(hexes[i].q for i in rows.get(r, []))
        span = f"q {qs[0]}..{qs[-1]}" if qs else ""
        out.append(f"{r:>3}  {''.join(line)}  {span}".rstrip())
    out.append("")
    out.append("row r at the left; hex (q, r) sits at column 2q + r, so (q, r+1) is half a hex right of (q, r)")
    out += _wrap("hexes:     ", [f"{kind_ch[k]} {k}" for k in plain_kinds] + [f"{lm_ch[k]} {k}" for k in view.landmark_kinds])
    if tags:
        out += _wrap("marks:     ", [f"{mark[t]} {t}" for t in tags])
    if view.is_game:
        out += _wrap("players:   ", [f"{_seat_letter(s)} {p}" for s, p in enumerate(view.players)])
        out += _wrap("tiles:     ", ["seat letter, then:"] + [f"{tile_ch[k]} {k}" for k in tile_ch]
                     + [f"digit: {k} {view.valued[k]}" for k in view.tile_kinds if k in view.valued]
                     + (["## neutral tile"] if NEUTRAL in view.owner else []))
    if view.landmarks:
        out.append("landmarks:")
        for li, (hi, name) in enumerate(view.landmarks):
            hx = hexes[hi]
            tagtxt = f" [{', '.join(hx.tags)}]" if hx.tags else ""
            held = ""
            if view.is_game and li in view.contested:
                lo = view.lm_owner[li]
                held = f"  held by {view.players[lo]} ({_seat_letter(lo)})" if lo >= 0 else "  not held"
            out.append(f"  {lm_ch[hx.kind]} {name} ({hx.q},{hx.r}) {hx.kind}{tagtxt}{held}")
    if view.result is not None:
        out.append("")
        for text_line in render_table(view.result, view.categories).splitlines():
            out.extend(textwrap.wrap(text_line, 110, subsequent_indent="  ", break_on_hyphens=False) or [""])
    return "\n".join(out)


# ----- SVG --------------------------------------------------------------------------------------
def _f(v: float) -> str:
    s = f"{v:.1f}"
    return "0" if s == "-0.0" else s.removesuffix(".0")


# the corners of a pointy-top hex of size 1, corner k at 60k - 30 degrees
_UNIT = tuple((math.cos(math.radians(60 * k - 30)), math.sin(math.radians(60 * k - 30))) for k in range(6))


def _corner(cx: float, cy: float, size: float, k: int) -> tuple[float, float]:
    ux, uy = _UNIT[k % 6]
    return cx + size * ux, cy + size * uy


def _hex_points(cx: float, cy: float, size: float) -> str:
    """A hex's polygon points."""
    return " ".join(f"{_f(cx + size * ux)},{_f(cy + size * uy)}" for ux, uy in _UNIT)


def _anchor(cx: float, cy: float, s: float) -> str:
    """A small anchor glyph centred on (cx, cy), s across."""
    w = s * 0.07
    d = (f"M{_f(cx)},{_f(cy - s * 0.28)}V{_f(cy + s * 0.42)}"
         f"M{_f(cx - s * 0.22)},{_f(cy - s * 0.16)}H{_f(cx + s * 0.22)}"
         f"M{_f(cx - s * 0.4)},{_f(cy + s * 0.12)}"
         f"A{_f(s * 0.42)},{_f(s * 0.42)} 0 0 0 {_f(cx + s * 0.4)},{_f(cy + s * 0.12)}")
    return (f'<g class="harbour" stroke="#123a63" stroke-width="{_f(w)}" fill="none" stroke-linecap="round">'
            f'<circle cx="{_f(cx)}" cy="{_f(cy - s * 0.36)}" r="{_f(s * 0.08)}"/><path d="{d}"/></g>')


def _clover(cx: float, cy: float, s: float) -> str:
    """A four-leaf clover centred on (cx, cy), s across."""
    r = s * 0.17
    leaves = "".join(f'<circle cx="{_f(cx + dx * r)}" cy="{_f(cy + dy * r)}" r="{_f(r * 1.05)}"/>'
                     for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    stem = (f'<path d="M{_f(cx)},{_f(cy)}q{_f(s * 0.1)},{_f(s * 0.25)} {_f(s * 0.28)},{_f(s * 0.4)}" '
            f'fill="none" stroke="#1b5e20" stroke-width="{_f(s * 0.07)}"/>')
    return f'<g class="clover" fill="#2e7d32" stroke="#fff" stroke-width="{_f(s * 0.03)}">{stem}{leaves}</g>'


def _dot(cx: float, cy: float, s: float) -> str:
    return f'<circle class="neutral" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.16)}" fill="#4a4a4a"/>'


def _tag_mark(tag: str, cx: float, cy: float, s: float) -> str:
    """A tag the palette has no glyph for: its name's first letter in a small circle."""
    return (f'<g class="tag"><circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.3)}" fill="#fff" '
            f'stroke="#555" stroke-width="{_f(s * 0.04)}"/><text x="{_f(cx)}" y="{_f(cy + s * 0.13)}" '
            f'font-size="{_f(s * 0.38)}" text-anchor="middle" fill="#333">{escape(tag[:1])}</text></g>')


@functools.lru_cache(maxsize=16384)  # a pure function: the same board is drawn again at every move
def _glyph(tag: str, cx: float, cy: float, s: float) -> str:
    kind = TAG_GLYPHS.get(tag)
    if kind == "anchor":
        return _anchor(cx, cy, s)
    if kind == "clover":
        return _clover(cx, cy, s)
    if kind == "dot":
        return _dot(cx, cy, s)
    return _tag_mark(tag, cx, cy, s)


@functools.lru_cache(maxsize=16384)  # a pure function: the same board is drawn again at every move
def _text(x: float, y: float, text: str, fs: float, anchor: str = "start", weight: str = "normal",
          fill: str = "#222", halo: bool = False) -> str:
    extra = (f' stroke="#fff" stroke-width="{_f(fs * 0.28)}" stroke-linejoin="round" paint-order="stroke"'
             if halo else "")
    bold = ' font-weight="bold"' if weight != "normal" else ""
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(fs)}" text-anchor="{anchor}" fill="{fill}"'
            f'{bold}{extra}>{escape(text)}</text>')


def _split(name: str, limit: int = 9) -> list[str]:
    """A landmark name on one line, or two when long."""
    if len(name) <= limit or " " not in name:
        return [name]
    words, best = name.split(" "), None
    for k in range(1, len(words)):
        a, b = " ".join(words[:k]), " ".join(words[k:])
        if best is None or max(len(a), len(b)) < max(len(best[0]), len(best[1])):
            best = (a, b)
    return list(best) if best else [name]


def _polygon(pts: str, kind: str, s: float, tip: str, fill: str | None = None) -> str:
    """One hex: filled by kind (or `fill`), a thin outline, a tooltip."""
    return (f'<polygon class="hex" points="{pts}" fill="{fill or kind_colour(kind)}" stroke="#7a7a7a" '
            f'stroke-width="{_f(s * 0.035)}"><title>{escape(tip)}</title></polygon>')


def _disc(cx: float, cy: float, s: float, fill: str) -> str:
    """A tile: a circle in its seat's colour."""
    return (f'<circle class="tile" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.42)}" fill="{fill}" '
            f'stroke="#2b2b2b" stroke-width="{_f(s * 0.04)}"/>')


@functools.lru_cache(maxsize=4096)  # a pure function: a landmark changes hands now and then
def _ring(cx: float, cy: float, s: float, colour: str) -> str:
    """A landmark's owner: an inner ring in the owner's colour."""
    d = "M" + "L".join(f"{_f(x)},{_f(y)}" for x, y in (_corner(cx, cy, s * 0.8, k) for k in range(6))) + "Z"
    return f'<path class="owner" d="{d}" fill="none" stroke="{colour}" stroke-width="{_f(s * 0.14)}"/>'


_MEMOS: dict[tuple[int, float], tuple[object, dict[tuple[Any, ...], str]]] = {}  # board id and size -> pieces


def _memo(board: Board | BoardView, s: float) -> dict[tuple[Any, ...], str]:
    """The drawn pieces of one board at one size, by the state of their hex (bounded)."""
    got = _MEMOS.get((id(board), s))
    if got is None or got[0] is not board:
        if len(_MEMOS) >= 32:
            _MEMOS.clear()
        got = _MEMOS[(id(board), s)] = (board, {})
    if len(got[1]) > 50_000:
        got[1].clear()
    return got[1]


_AREA_PATHS: dict[tuple[int, float], tuple[object, str]] = {}  # board id and size -> (board, path): bounded


def _area_path(board: Board | BoardView, s: float) -> str:
    """The border of every settlement area: one path, the same at every move of a game on this board."""
    got = _AREA_PATHS.get((id(board), s))
    if got is not None and got[0] is board:
        return got[1]
    hexes: Sequence[Hex | HexView] = board.hexes
    centre = [(s * SQRT3 * (h.q + h.r / 2), s * 1.5 * h.r) for h in hexes]
    index = {(h.q, h.r): i for i, h in enumerate(hexes)}
    seg: list[str] = []
    for i, h in enumerate(hexes):
        if not h.area:
            continue
        cx, cy = centre[i]
        for dq, dr in NEIGHBOUR_OFFSETS:
            j = index.get((h.q + dq, h.r + dr))
            if j is not None and hexes[j].area == h.area:
                continue
            ang = math.degrees(math.atan2(1.5 * dr, SQRT3 * (dq + dr / 2)))
            k = round((ang + 60) / 60) % 6  # corners k-1 and k bound the edge facing that way
            (ax, ay), (bx, by) = _corner(cx, cy, s, k - 1), _corner(cx, cy, s, k)
            seg.append(f"M{_f(ax)},{_f(ay)}L{_f(bx)},{_f(by)}")
    path = (f'<path class="areas" d="{"".join(seg)}" fill="none" stroke="{AREA_BORDER}" '
            f'stroke-width="{_f(s * 0.11)}" stroke-linecap="round"/>') if seg else ""
    if len(_AREA_PATHS) >= 32:
        _AREA_PATHS.clear()
    _AREA_PATHS[(id(board), s)] = (board, path)
    return path


def _scale(body: list[str], heat: Heat, x0: float, y: float, fs: float, s: float) -> float:
    """The colour scale of a heat map: its caption, a gradient bar and its ticks; returns the new y."""
    y += fs * 1.8
    body.append(_text(x0, y, heat.title, fs, weight="bold"))
    y += fs * 0.6
    w, h = fs * 22, fs * 1.1
    stops = "".join(f'<stop offset="{_f(100 * k / (len(heat.stops) - 1))}%" stop-color="{c}"/>'
                    for k, c in enumerate(heat.stops))
    body.append(f'<defs><linearGradient id="heat-scale">{stops}</linearGradient></defs>')
    body.append(f'<rect x="{_f(x0)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" fill="url(#heat-scale)" '
                f'stroke="#555" stroke-width="{_f(s * 0.03)}"/>')
    ticks = list(heat.ticks) or [f"{v:.3g}" for v in (heat.lo, (heat.lo + heat.hi) / 2, heat.hi)]
    for k, label in enumerate(ticks):
        x = x0 + w * k / max(1, len(ticks) - 1)
        body.append(f'<path d="M{_f(x)},{_f(y + h)}v{_f(fs * 0.35)}" stroke="#555" stroke-width="{_f(s * 0.03)}"/>')
        body.append(_text(x, y + h + fs * 1.3, label, fs * 0.85, anchor="middle"))
    return y + h + fs * 1.3


def render_svg(view: View, size: float = 30.0, heat: Heat | None = None) -> str:
    """The board as pointy-top hexes (one polygon per hex), with tiles, landmarks, a legend and scores; with
    `heat`, the hexes coloured by that measure instead of their kind (heat_svg)."""
    hexes: Sequence[Hex | HexView] = view.board.hexes
    s = size
    centre = [(s * SQRT3 * (h.q + h.r / 2), s * 1.5 * h.r) for h in hexes]
    lm_of = {h: i for i, (h, _) in enumerate(view.landmarks)}
    tags = view.tags()
    minx = min(c[0] for c in centre) - s * SQRT3 / 2
    maxx = max(c[0] for c in centre) + s * SQRT3 / 2
    miny = min(c[1] for c in centre) - s
    maxy = max(c[1] for c in centre) + s
    pad = s * 0.8
    fs = s * 0.42  # legend text
    title_h = fs * 1.5 * (2 if view.status else 1) + s * 0.4
    left, top = minx - pad, miny - pad - title_h
    width = max(maxx - minx + 2 * pad, 520.0)
    body: list[str] = []

    # title
    ty = top + pad * 0.5 + fs * 1.2
    body.append(_text(left + pad, ty, view.title, fs * 1.3, weight="bold"))
    if view.status:
        body.append(_text(left + pad, ty + fs * 1.5, view.status, fs * 0.85, fill="#444"))

    # hexes: one polygon each, filled by kind, thin outline, a tooltip; each hex's pieces are kept per
    # board and state of the hex, so a game drawn again after a move makes only the changed hex's anew
    memo = _memo(view.board, s)
    tile_ch = _letters([k for k in view.tile_kinds if k not in view.valued], {}, upper=True)
    for i, h in enumerate(hexes):
        o = view.owner[i]
        key = (i, o, view.players[o] if o >= 0 else "", view.tile[i] if o >= 0 else "", view.value[i] if o >= 0 else 0)
        piece = memo.get(("hex", key)) if heat is None else None
        if piece is None:
            cx, cy = centre[i]
            pts = _hex_points(cx, cy, s)
            tip = [f"({h.q},{h.r}) {h.kind}"]
            if h.name:
                tip.append(h.name)
            if h.area:
                tip.append(f"area {h.area}")
            if h.tags:
                tip.append("tags " + ", ".join(h.tags))
            if o >= 0:
                v = view.value[i]
                tip.append(f"{view.players[o]}'s {view.tile[i]}" + (f":{v}" if v is not None else ""))
            elif o == NEUTRAL:
                tip.append("neutral tile")
            if heat is not None:
                fill = heat.colour(i)
                if heat.labels[i]:
                    tip.append(f"{heat.title}: {heat.labels[i]}")
                piece = _polygon(pts, h.kind, s, "; ".join(tip), fill or faded_kind_colour(h.kind))
            else:
                piece = memo[("hex", key)] = _polygon(pts, h.kind, s, "; ".join(tip))
        body.append(piece)

    # settlement areas: a thick border on every edge whose neighbour is not of the same area
    areas = _area_path(view.board, s)
    if areas:
        body.append(areas)

    # landmark owners: an inner ring in the owner's colour
    for li, (hi, _) in enumerate(view.landmarks):
        lo = view.lm_owner[li] if li < len(view.lm_owner) else -1
        if lo < 0:
            continue
        cx, cy = centre[hi]
        body.append(_ring(cx, cy, s, seat_colour(lo)))

    # tags: anchor / clover / dot / a letter, placed around the hex so tiles do not cover them
    shown_tags = tuple(tags)
    for i, h in enumerate(hexes):
        if not h.tags:
            continue
        occupied = view.owner[i] != EMPTY or heat is not None  # a heat map's label sits in the middle
        key2 = (i, occupied, i in lm_of, shown_tags)
        piece = memo.get(("tags", key2))
        if piece is None:
            cx, cy = centre[i]
            shown = [t for t in h.tags if t in tags]
            if i in lm_of:  # the name sits across the middle
                free = [(0.0, -0.64), (-0.56, -0.3), (0.56, -0.3)]
            elif occupied:  # the tile sits in the middle
                free = [(0.0, -0.64), (0.0, 0.66), (-0.56, -0.3), (0.56, -0.3)]
            else:
                free = [(0.0, 0.0), (0.0, -0.64), (0.0, 0.66), (-0.56, -0.3), (0.56, -0.3)]
            piece = memo[("tags", key2)] = "\n".join(  # one element a line, as the picture is written
                _glyph(t, cx + dx * s, cy + dy * s, s * (0.6 if (dx, dy) == (0.0, 0.0) else 0.44))
                for t, (dx, dy) in zip(shown, free, strict=False) if not (TAG_GLYPHS.get(t) == "dot" and occupied))
        if piece:
            body.append(piece)

    # tiles: circles in the seat's colour, with the tile's letter or value
    for i in range(len(hexes)):
        o = view.owner[i]
        if o == EMPTY:
            continue
        key3 = (i, o, view.tile[i] if o >= 0 else "", view.value[i] if o >= 0 else 0, tuple(tile_ch.items()))
        piece = memo.get(("tile", key3))
        if piece is None:
            cx, cy = centre[i]
            fill = seat_colour(o)
            piece = _disc(cx, cy, s, fill)
            if o >= 0:
                v = view.value[i]
                label = str(v) if v is not None else tile_ch.get(view.tile[i], "?")
                piece += "\n" + _text(cx, cy + s * 0.16, label, s * 0.46, anchor="middle", weight="bold", fill=_ink(fill))
            memo[("tile", key3)] = piece
        body.append(piece)

    # a heat map's labels (in the middle, or under a landmark's name) and bars (along a hex's foot)
    if heat is not None:
        for i in range(len(hexes)):
            cx, cy = centre[i]
            if heat.labels[i]:
                fill = heat.colour(i) or faded_kind_colour(hexes[i].kind)
                below = i in lm_of
                body.append(_text(cx, cy + s * (0.62 if below else 0.14), heat.labels[i], s * (0.3 if below else 0.36),
                                  anchor="middle", weight="bold", fill="#111" if below else _ink(fill), halo=below))
            parts = heat.bars.get(i)
            if parts:
                x, w, top_y = cx - s * 0.62, s * 1.24, cy + s * 0.74
                for colour, frac in parts:
                    if frac > 0:
                        body.append(f'<rect x="{_f(x)}" y="{_f(top_y)}" width="{_f(w * frac)}" '
                                    f'height="{_f(s * 0.2)}" fill="{colour}"/>')
                        x += w * frac
                body.append(f'<rect x="{_f(cx - s * 0.62)}" y="{_f(top_y)}" width="{_f(w)}" height="{_f(s * 0.2)}" '
                            f'fill="none" stroke="#222" stroke-width="{_f(s * 0.03)}"/>')

    # landmark names, on top so neighbours do not hide them
    for hi, name in view.landmarks:
        cx, cy = centre[hi]
        lines = _split(name)
        nfs = s * 0.3
        y0 = cy + nfs * 0.35 - (len(lines) - 1) * nfs * 0.55 + s * 0.12
        for k, line in enumerate(lines):
            body.append(_text(cx, y0 + k * nfs * 1.1, line, nfs, anchor="middle", weight="bold", halo=True))

    # legend and scores, below the map
    y = maxy + pad
    x0 = left + pad
    lh = fs * 1.6
    right = left + width - pad

    def flow(head: str, items: list[tuple[Callable[[float, float], str], str]]) -> None:
        """A legend row: a heading, then swatch-and-label items, wrapped to the picture's width."""
        nonlocal y
        y += lh
        body.append(_text(x0, y, head, fs, weight="bold"))
        x = x0 + fs * 0.62 * len(head) + fs
        for swatch, label in items:
            w = fs * 1.6 + fs * 0.62 * len(label) + fs
            if x + w > right and x > x0 + fs * 7:
                y += lh
                x = x0 + fs * 0.62 * len(head) + fs
            body.append(swatch(x + fs * 0.6, y - fs * 0.35))
            body.append(_text(x + fs * 1.5, y, label, fs))
            x += w

    def rect(colour: str) -> Callable[[float, float], str]:
        return lambda x, yy: (f'<rect x="{_f(x - fs * 0.55)}" y="{_f(yy - fs * 0.55)}" width="{_f(fs * 1.1)}" '
                              f'height="{_f(fs * 1.1)}" fill="{colour}" stroke="#7a7a7a" '
                              f'stroke-width="{_f(s * 0.03)}"/>')

    def disc(colour: str, label: str = "") -> Callable[[float, float], str]:
        def one(x: float, yy: float) -> str:
            c = (f'<circle cx="{_f(x)}" cy="{_f(yy)}" r="{_f(fs * 0.6)}" fill="{colour}" stroke="#777" '
                 f'stroke-width="{_f(s * 0.03)}"/>')
            return c + (_text(x, yy + fs * 0.3, label, fs * 0.8, "middle", "bold", _ink(colour)) if label else "")
        return one

    def glyph(tag: str) -> Callable[[float, float], str]:
        return lambda x, yy: _glyph(tag, x, yy, fs * 1.6)

    kinds = list(dict.fromkeys(view.hex_kinds + [h.kind for h in hexes]))
    if heat is not None:
        y = _scale(body, heat, x0, y, fs, s)
        flow("Not measured", [(rect(faded_kind_colour(k)), k) for k in kinds
                              if any(h.kind == k and heat.values[i] is None for i, h in enumerate(hexes))])
        if heat.key:
            flow("Bars", [(rect(c), label) for c, label in heat.key])
    else:
        flow("Hexes", [(rect(kind_colour(k)), k) for k in kinds if any(h.kind == k for h in hexes)])
    marks: list[tuple[Callable[[float, float], str], str]] = [(glyph(t), t) for t in tags]
    if any(h.area for h in hexes):
        marks.append((lambda x, yy: (f'<path d="M{_f(x - fs * 0.6)},{_f(yy)}H{_f(x + fs * 0.6)}" stroke="{AREA_BORDER}" '
                                     f'stroke-width="{_f(s * 0.11)}"/>'), "area border"))
    flow("Marks", marks)
    if view.is_game:
        flow("Tiles", [(disc("#ffffff", tile_ch[k]), k) for k in tile_ch]
             + [(disc("#ffffff", "n"), f"{k} ({view.valued[k]} n)") for k in view.tile_kinds if k in view.valued]
             + ([(disc(NEUTRAL_COLOUR), "neutral tile")] if NEUTRAL in view.owner else []))
    if view.landmarks and heat is None:
        items = []
        for li, (hi, name) in enumerate(view.landmarks):
            label = name
            lo = view.lm_owner[li] if li < len(view.lm_owner) else -1
            if view.is_game and li in view.contested:
                label += f": {view.players[lo]}" if lo >= 0 else ": -"
            items.append((rect(kind_colour(hexes[hi].kind)) if lo < 0 else disc(seat_colour(lo)), label))
        flow("Landmarks", items)

    if view.result is not None:
        res = view.result
        cats = [c for c in view.categories if any(p["breakdown"].get(c, 0) for p in res["players"])]
        head = ["", *cats, "total"] + ([] if res["finished"] else ["if ended now"])
        rows = [head]
        for p in res["players"]:
            row = [p["name"], *(str(p["breakdown"].get(c, 0)) for c in cats), str(p["score"])]
            rows.append(row + ([] if res["finished"] else [str(p.get("if_ended_now", ""))]))
        colw = [max(fs * 0.6 * len(r[k]) for r in rows) + fs * 1.2 for k in range(len(head))]
        colw[0] += fs * 1.6
        y += lh * 0.6
        for ri, row in enumerate(rows):
            y += lh
            x = x0
            for k, cell in enumerate(row):
                if k == 0:
                    if ri:
                        body.append(disc(seat_colour(ri - 1))(x + fs * 0.6, y - fs * 0.35))
                    body.append(_text(x + fs * 1.6, y, cell, fs, weight="bold" if ri == 0 else "normal"))
                else:
                    body.append(_text(x + colw[k] - fs * 0.6, y, cell, fs, anchor="end",
                                      weight="bold" if ri == 0 or k == len(cats) + 1 else "normal"))
                x += colw[k]
            if ri == 0:
                body.append(f'<path d="M{_f(x0)},{_f(y + fs * 0.45)}H{_f(x)}" stroke="#999" '
                            f'stroke-width="{_f(s * 0.03)}"/>')
            width = max(width, x - left + pad)
        if res["finished"] and res.get("winners"):
            y += lh * 1.2
            how = f" ({res['decided_by']})" if res.get("decided_by") else ""
            body.append(_text(x0, y, f"Winner: {', '.join(res['winners'])}{how}", fs, weight="bold"))

    for note in heat.notes if heat is not None else ():
        y += lh
        body.append(_text(x0, y, note, fs * 0.85, fill="#333"))
    height = y + pad - top
    vb = f"{_f(left)} {_f(top)} {_f(width)} {_f(height)}"
    svg_head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{vb}" width="{_f(width)}" height="{_f(height)}" '
            f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">\n'
            f'<title>{escape(view.title)}</title>\n'
            f'<rect x="{_f(left)}" y="{_f(top)}" width="{_f(width)}" height="{_f(height)}" fill="#fff"/>')
    return "\n".join([svg_head, *body, "</svg>"]) + "\n"


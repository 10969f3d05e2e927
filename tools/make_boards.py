#!/usr/bin/env python3
"""Build the reconstructed Scotland and Ireland maps: writes boards/scotland.json and boards/ireland.json.

The official Rebirth maps are not public in our material (RULES.md, S-C4 and I-R0), so both boards are
*reconstructions*: stylised hex maps that look like the two countries and fit the facts the rule texts
give (8 cathedrals or round towers, at most 12 castles, settlement areas of 1-3 hexes, 1-4 in Ireland,
harbours or wind collectors, 32 hexes marked for neutral tiles). This file is their only source: edit the
pictures and tables below, run `python tools/make_boards.py`, never edit the JSON by hand.

Each map is drawn three times on the same grid, one character per hex:
  *_KINDS   what the hex is:  ~ sea   . plain   f food   e energy   s settlement
                              C castle   + cathedral   T round tower
  *_LABELS  which settlement area (capital letter, see *_AREAS) or which landmark (small letter,
            see *_LANDMARKS) the hex is; `.` land and `~` sea elsewhere
  *_TAGS    n neutral   h harbour   H harbour + neutral   w wind   W wind + neutral; `.` / `~` none
Every line is `row|cells`; text after `#` is a comment. Row r is a row of hexes ("odd-r" layout: odd rows
sit half a hex to the right), so hex (r, col) is at text column 2*col + (r & 1) after the `|`, which is how
the map looks when drawn pointy-top (docs/formats.md): axial q = col - (r - (r & 1)) // 2, and
x = sqrt(3) * (q + r/2) = sqrt(3) * (col + (r & 1)/2). North is row 0. One hex is about 22-25 km.

The script checks every constraint the boards must meet (kinds, counts, areas, landmarks, neutral hexes,
harbours, wind collectors), validates the result with rebirth_dsl.board.validate_board_data, prints a
preview and a summary, and writes each file atomically (temp file + os.replace) only when it changed.
`--check` writes nothing and exits 1 if a file is missing or out of date.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rebirth_dsl.board.model import NEIGHBOUR_OFFSETS, validate_board_data  # noqa: E402

BOARDS_DIR = ROOT / "boards"

KIND_CHARS = {
    "~": "sea",
    ".": "plain",
    "f": "food",
    "e": "energy",
    "s": "settlement",
    "C": "castle",
    "+": "cathedral",
    "T": "tower",
}
TAG_CHARS = {
    ".": (),
    "~": (),
    "n": ("neutral",),
    "h": ("harbour",),
    "H": ("harbour", "neutral"),
    "w": ("wind",),
    "W": ("wind", "neutral"),
}
TILE_KINDS = ("plain", "food", "energy", "settlement")  # hexes that take a tile (S-P1)
FARM_KINDS = ("plain", "food", "energy")
LANDMARK_KINDS = ("castle", "cathedral", "tower")
ABILITIES = ("score_3", "score_13", "extra_tile", "draw_three", "private_mission", "double_mission")
NEUTRAL_HEXES = 32  # S-U2

# ---------------------------------------------------------------------------------------------------------
# Scotland (base game). Mainland with Skye, Mull, Arran and Kintyre; the Moray Firth, the Firths of Forth
# and Clyde, Loch Linnhe, Loch Fyne, the Solway Firth; no sea along the English border.
# ---------------------------------------------------------------------------------------------------------

SCOTLAND_KINDS = r"""
 0|            ~ ~ ~ ~ ~ ~
 1|           ~ e s s s . ~                 # north coast: Cape Wrath .. Thurso .. Duncansby Head
 2|          ~ e . f . s ~                  # Sutherland, Caithness, Wick
 3|         ~ . C e f s ~                   # Assynt (Ardvreck), Helmsdale
 4|        ~ s e . + ~ ~                    # Ullapool, Dornoch Firth
 5|   ~ ~ ~ ~ e . f f ~ ~ ~ ~ ~             # Wester Ross, Black Isle, Tarbat Ness; the Moray Firth
 6|  ~ . s ~ e . s ~ ~ f f . f ~           # Skye, Inverness, Moray coast, Fraserburgh
 7| ~ e s ~ . C e s s . + f s f ~          # Skye, Kyle (Eilean Donan), Great Glen, Elgin, Peterhead
 8|  ~ ~ e ~ ~ e C . s e f + s ~           # Sleat, Loch Ness (Urquhart), Cairngorms, Aberdeen
 9|     ~ ~ . s e . s C f f s ~            # Mallaig, Fort William, Deeside (Balmoral)
10|    ~ ~ e s ~ e . e . f C ~             # Ardnamurchan, Loch Linnhe, Angus, Dunnottar
11|   ~ s ~ . ~ e . + s C s ~              # Mull, Morvern, Dunkeld, Perth, Glamis, Dundee
12|    ~ . ~ s e + f s s s ~               # Mull, Oban, Dunblane, Perth, Tay
13|     ~ ~ e C . f C f + f ~              # Knapdale, Inveraray, Stirling, Fife (St Andrews)
14|      ~ e ~ . e . e ~ ~ ~ ~ ~           # Loch Fyne, Cowal, Central Belt; the Firth of Forth
15|       ~ e ~ . + . s C f s . ~          # Kintyre, Firth of Clyde, Glasgow, Edinburgh, Dunbar
16|      ~ . ~ . ~ s f s f s s             # Kintyre, Arran, Ayrshire, Lanark, the Borders (Kelso)
17|       ~ f ~ ~ C s e C .                # Mull of Kintyre, Culzean, Southern Uplands, Hermitage
18|        ~ ~ ~ f f . s s                 # Galloway, Dumfries
19|         ~ s s . e C s                  # Stranraer, Caerlaverock, Annan
20|          ~ . ~ + ~ s ~                 # Rhins, Luce Bay, Whithorn, Kirkcudbright
21|           ~ ~ f . ~ ~                  # the Machars
22|              ~ ~ ~
"""

SCOTLAND_LABELS = r"""
 0|            ~ ~ ~ ~ ~ ~
 1|           ~ . A A A . ~
 2|          ~ . . . . B ~
 3|         ~ . a . . B ~
 4|        ~ C . . b ~ ~
 5|   ~ ~ ~ ~ . . . . ~ ~ ~ ~ ~
 6|  ~ . D ~ . . E ~ ~ . . . . ~
 7| ~ . D ~ . c . E E . d . F . ~
 8|  ~ ~ . ~ ~ . e . G . . f F ~
 9|     ~ ~ . H . . G g . . F ~
10|    ~ ~ . H ~ . . . . . h ~
11|   ~ I ~ . ~ . . i J j K ~
12|    ~ . ~ L . k . J J K ~
13|     ~ ~ . l . . m . n . ~
14|      ~ . ~ . . . . ~ ~ ~ ~ ~
15|       ~ . ~ . o . M p . N . ~
16|      ~ . ~ . ~ O . M . N N
17|       ~ . ~ ~ q O . r .
18|        ~ ~ ~ . . . P P
19|         ~ Q Q . . s P
20|          ~ . ~ t ~ R ~
21|           ~ ~ . . ~ ~
22|              ~ ~ ~
"""

SCOTLAND_TAGS = r"""
 0|            ~ ~ ~ ~ ~ ~
 1|           ~ n . h . n ~
 2|          ~ . . . . h ~
 3|         ~ . . . n . ~
 4|        ~ h n . . ~ ~
 5|   ~ ~ ~ ~ . . . n ~ ~ ~ ~ ~
 6|  ~ n h ~ . n . ~ ~ . n . . ~
 7| ~ . . ~ n . . n . . . . . n ~
 8|  ~ ~ n ~ ~ . . . n . . . h ~
 9|     ~ ~ . n . n . . n . n ~
10|    ~ ~ n . ~ . . n . . . ~
11|   ~ . ~ . ~ . . . . . n ~
12|    ~ n ~ h . . . n . h ~
13|     ~ ~ . . . . . . . n ~
14|      ~ . ~ . n . . ~ ~ ~ ~ ~
15|       ~ n ~ . . . h . . . n ~
16|      ~ . ~ . ~ h . n . n .
17|       ~ . ~ ~ . . . . .
18|        ~ ~ ~ . n . . .
19|         ~ n h . . . n
20|          ~ . ~ . ~ . ~
21|           ~ ~ . n ~ ~
22|              ~ ~ ~
"""

SCOTLAND_AREAS = {
    "A": "Thurso",
    "B": "Wick",
    "C": "Ullapool",
    "D": "Portree",
    "E": "Inverness",
    "F": "Aberdeen",
    "G": "Aviemore",
    "H": "Fort William",
    "I": "Tobermory",
    "J": "Perth",
    "K": "Dundee",
    "L": "Oban",
    "M": "Leith",
    "N": "Kelso",
    "O": "Ayr",
    "P": "Dumfries",
    "Q": "Stranraer",
    "R": "Kirkcudbright",
}

SCOTLAND_LANDMARKS = {
    "a": "Ardvreck",
    "b": "Dornoch",
    "c": "Eilean Donan",
    "d": "Elgin",
    "e": "Urquhart",
    "f": "St Machar's",  # the cathedral of Old Aberdeen
    "g": "Balmoral",
    "h": "Dunnottar",
    "i": "Dunkeld",
    "j": "Glamis",
    "k": "Dunblane",
    "l": "Inveraray",
    "m": "Stirling",
    "n": "St Andrews",
    "o": "Glasgow",
    "p": "Edinburgh",
    "q": "Culzean",
    "r": "Hermitage",
    "s": "Caerlaverock",
    "t": "Whithorn",
}

SCOTLAND_LANDMARK_TAGS = {"Edinburgh": ["clover"]}  # S-C3, S-E4

# ---------------------------------------------------------------------------------------------------------
# Ireland (advanced side). Donegal, Inishowen, Lough Foyle, Antrim, Belfast Lough and the Ards; the east
# coast from Dundalk to Carnsore Point; the south coast and Cork; the Kerry peninsulas; the Shannon estuary,
# Galway Bay, Connemara, Clew Bay, Achill and Erris.
# ---------------------------------------------------------------------------------------------------------

IRELAND_KINDS = r"""
 0|                ~ ~
 1|             ~ ~ e ~ ~ ~                 # Malin Head
 2|            ~ e . s ~ . ~ ~              # Bloody Foreland, Inishowen, Lough Foyle, Causeway coast
 3|           ~ . s s s C f s ~             # Donegal, Letterkenny, Derry, Dunluce, Larne
 4|          ~ e C . f f . s ~ ~            # Donegal town, Tyrone, Belfast Lough
 5|           ~ ~ . . f . T s e ~           # Donegal Bay, Fermanagh, Antrim, the Ards
 6|    ~ ~ ~ ~ s . T f s f s f ~           # Sligo, Devenish, Armagh, Belfast, County Down
 7|   ~ e . e . s . f . f . ~ ~            # Erris, Mayo, Sligo, Cavan, Monaghan, Dundalk
 8|  ~ e ~ T . e . f f f s ~               # Achill, Clew Bay, Turlough, Roscommon, Meath, Drogheda
 9|   ~ ~ s . . C . e T f s ~              # Westport, Roscommon, Westmeath, Hill of Tara
10|    ~ e C s e s s e f C s ~             # Connemara, Ashford, Galway, Athlone, Malahide, Dublin
11|     ~ ~ s C e T e . s s ~              # Galway Bay, Dunguaire, Clonmacnoise, Kildare, Dublin
12|      ~ . s s e e . f T s ~             # the Burren, Lough Derg, Offaly bogs, Glendalough, Wicklow
13|     ~ e s C s s . f . . ~              # Clare (Ennis), Bunratty, Limerick, Carlow, Arklow
14|      ~ ~ ~ s C f C . s ~               # the Shannon estuary, Cahir, Kilkenny, Wexford
15|   ~ ~ . T e f f s f C s ~              # Tralee Bay, Rattoo, Golden Vale, Waterford, Enniscorthy
16|  ~ e s . f s s T s s e ~               # Dingle, Kerry, Cork, Ardmore, Waterford, Carnsore Point
17|   ~ ~ C . C s f ~ ~ ~ ~                # Dingle Bay, Killarney (Ross), Blarney, Cork, Youghal
18|  ~ e . e f s ~ ~                       # Iveragh, Kenmare, Kinsale
19|   ~ ~ s . f ~                          # Bantry, Old Head of Kinsale
20|    ~ e . ~ ~                           # Mizen Head, Sheep's Head
21|     ~ ~ ~
"""

IRELAND_LABELS = r"""
 0|                ~ ~
 1|             ~ ~ . ~ ~ ~
 2|            ~ . . A ~ . ~ ~
 3|           ~ . B A A a . C ~
 4|          ~ . b . . . . C ~ ~
 5|           ~ ~ . . . . c C . ~
 6|    ~ ~ ~ ~ D . d . E . C . ~
 7|   ~ . . . . D . . . . . ~ ~
 8|  ~ . ~ e . . . . . . F ~
 9|   ~ ~ G . . f . . g . F ~
10|    ~ . h H . I I . . i J ~
11|     ~ ~ H j . k . . J J ~
12|      ~ . H K . . . . l J ~
13|     ~ . L m K K . . . . ~
14|      ~ ~ ~ K n . o . M ~
15|   ~ ~ . p . . . N . q M ~
16|  ~ . O . . P P r N N . ~
17|   ~ ~ s . t P . ~ ~ ~ ~
18|  ~ . . . . P ~ ~
19|   ~ ~ Q . . ~
20|    ~ . . ~ ~
21|     ~ ~ ~
"""

IRELAND_TAGS = r"""
 0|                ~ ~
 1|             ~ ~ w ~ ~ ~
 2|            ~ n . n ~ . ~ ~
 3|           ~ . . . . . . n ~
 4|          ~ n . . . . n . ~ ~
 5|           ~ ~ n . . . . . w ~
 6|    ~ ~ ~ ~ n . . . . . . n ~
 7|   ~ n . n . . n . n . . ~ ~
 8|  ~ w ~ . . n . . . . n ~
 9|   ~ ~ . n . . n . . . . ~
10|    ~ w . . n . . n . . n ~
11|     ~ ~ . . . . . . n . ~
12|      ~ n . . . . n . . . ~
13|     ~ w . . . n . . . . ~
14|      ~ ~ ~ . . . . . n ~
15|   ~ ~ n . n . n . . . . ~
16|  ~ w . . . . . . n . n ~
17|   ~ ~ . n . . . ~ ~ ~ ~
18|  ~ w n . . n ~ ~
19|   ~ ~ . . . ~
20|    ~ w . ~ ~
21|     ~ ~ ~
"""

IRELAND_AREAS = {
    "A": "Derry",
    "B": "Letterkenny",
    "C": "Belfast",
    "D": "Sligo",
    "E": "Armagh",
    "F": "Drogheda",
    "G": "Westport",
    "H": "Galway",
    "I": "Athlone",
    "J": "Dublin",
    "K": "Limerick",
    "L": "Ennis",
    "M": "Wexford",
    "N": "Waterford",
    "O": "Dingle",
    "P": "Cork",
    "Q": "Bantry",
}

IRELAND_LANDMARKS = {
    "a": "Dunluce",
    "b": "Donegal",
    "c": "Antrim",
    "d": "Devenish",
    "e": "Turlough",
    "f": "Roscommon",
    "g": "Hill of Tara",
    "h": "Ashford",
    "i": "Malahide",
    "j": "Dunguaire",
    "k": "Clonmacnoise",
    "l": "Glendalough",
    "m": "Bunratty",
    "n": "Cahir",
    "o": "Kilkenny",
    "p": "Rattoo",
    "q": "Enniscorthy",
    "r": "Ardmore",
    "s": "Ross",
    "t": "Blarney",
}

IRELAND_LANDMARK_TAGS = {"Blarney": ["clover"]}  # I-E2

IRELAND_ABILITIES = {  # I-R1; which tower gives which is reconstructed board data
    "Hill of Tara": "score_13",
    "Ardmore": "score_3",
    "Devenish": "score_3",
    "Turlough": "extra_tile",
    "Antrim": "draw_three",
    "Rattoo": "draw_three",
    "Glendalough": "private_mission",
    "Clonmacnoise": "double_mission",
}


# ---------------------------------------------------------------------------------------------------------
# The rules each board must satisfy.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """One map: its pictures, tables and the constraints it is checked against."""

    name: str
    title: str
    notes: str
    kinds: str
    labels: str
    tags: str
    areas: dict[str, str]
    landmarks: dict[str, str]
    landmark_tags: dict[str, list[str]]
    abilities: dict[str, str] = field(default_factory=dict)
    landmark_counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (min, max)
    required_names: dict[str, str] = field(default_factory=dict)  # name -> kind
    clover: str = ""
    area_sizes: tuple[int, ...] = (1, 2, 3)
    min_areas_of_size: dict[int, int] = field(default_factory=dict)
    allowed_tags: tuple[str, ...] = ()
    min_harbours: int = 0
    min_wind: int = 0


SCOTLAND = Spec(
    name="scotland",
    title="Scotland (reconstructed)",
    notes=(
        "Reconstructed map: the official Rebirth board is not public in our material (RULES.md S-C4), so this "
        "is a stylised hex map of Scotland (about 22 km a hex, north at the top: the Highlands with Skye and "
        "Mull, the Moray Firth, the Central Belt between the Firths of Clyde and Forth, Kintyre and Arran, the "
        "Borders and Galloway). Castle, cathedral and settlement-area names are real places, roughly where "
        "they belong. Generated by tools/make_boards.py: edit the ASCII art there, not this file."
    ),
    kinds=SCOTLAND_KINDS,
    labels=SCOTLAND_LABELS,
    tags=SCOTLAND_TAGS,
    areas=SCOTLAND_AREAS,
    landmarks=SCOTLAND_LANDMARKS,
    landmark_tags=SCOTLAND_LANDMARK_TAGS,
    landmark_counts={"cathedral": (8, 8), "castle": (10, 12), "tower": (0, 0)},
    required_names={"Edinburgh": "castle", "Stirling": "castle"},
    clover="Edinburgh",
    area_sizes=(1, 2, 3),
    min_areas_of_size={1: 1, 2: 1, 3: 1},
    allowed_tags=("neutral", "harbour", "clover"),
    min_harbours=6,
)

IRELAND = Spec(
    name="ireland",
    title="Ireland (reconstructed)",
    notes=(
        "Reconstructed map: the official Rebirth board is not public in our material (RULES.md I-R0), so this "
        "is a stylised hex map of Ireland (about 25 km a hex, north at the top: Donegal and Antrim, the "
        "Midlands, Galway Bay and the Shannon estuary, the Kerry peninsulas, Cork, the south-east). Round "
        "towers stand where Scotland has cathedrals, each with its printed ability; the wind collectors are "
        "energy hexes on headlands. Generated by tools/make_boards.py: edit the ASCII art there, not this file."
    ),
    kinds=IRELAND_KINDS,
    labels=IRELAND_LABELS,
    tags=IRELAND_TAGS,
    areas=IRELAND_AREAS,
    landmarks=IRELAND_LANDMARKS,
    landmark_tags=IRELAND_LANDMARK_TAGS,
    abilities=IRELAND_ABILITIES,
    landmark_counts={"tower": (8, 8), "castle": (10, 12), "cathedral": (0, 0)},
    required_names={"Blarney": "castle", "Hill of Tara": "tower"},
    clover="Blarney",
    area_sizes=(1, 2, 3, 4),
    min_areas_of_size={1: 1, 2: 1, 3: 1, 4: 4},
    allowed_tags=("neutral", "wind", "clover"),
    min_wind=6,
)

SPECS = (SCOTLAND, IRELAND)


class BoardError(Exception):
    """A map breaks one of its constraints."""


def require(cond: bool, board: str, message: str) -> None:
    if not cond:
        raise BoardError(f"{board}: {message}")


# ---------------------------------------------------------------------------------------------------------
# Pictures -> hexes.
# ---------------------------------------------------------------------------------------------------------


def offset_to_axial(col: int, r: int) -> tuple[int, int]:
    """Odd-r offset (col, row) to axial (q, r)."""
    return col - (r - (r & 1)) // 2, r


def parse_picture(text: str, board: str, what: str) -> dict[tuple[int, int], str]:
    """Read a `row|cells` picture into {(q, r): character}."""
    cells: dict[tuple[int, int], str] = {}
    rows_seen: set[int] = set()
    for line in text.strip("\n").splitlines():
        head, sep, body = line.partition("|")
        require(bool(sep) and head.strip().isdigit(), board, f"{what}: line without `row|`: {line!r}")
        r = int(head)
        require(r not in rows_seen, board, f"{what}: row {r} drawn twice")
        rows_seen.add(r)
        body = body.split("#", 1)[0].rstrip()
        for x, ch in enumerate(body):
            if ch == " ":
                continue
            require(x % 2 == r % 2, board, f"{what}: row {r}: {ch!r} at text column {x} is off the hex grid")
            cells[offset_to_axial((x - (r & 1)) // 2, r)] = ch
    return cells


def build(spec: Spec) -> dict:
    """The board JSON object of a map."""
    b = spec.name
    kinds = parse_picture(spec.kinds, b, "KINDS")
    labels = parse_picture(spec.labels, b, "LABELS")
    tags = parse_picture(spec.tags, b, "TAGS")
    for what, cells in (("LABELS", labels), ("TAGS", tags)):
        extra = sorted(set(cells) - set(kinds))
        missing = sorted(set(kinds) - set(cells))
        require(
            not extra and not missing,
            b,
            f"{what} picture differs from KINDS: extra {extra}, missing {missing}",
        )

    used_areas: set[str] = set()
    used_landmarks: set[str] = set()
    hexes = []
    for q, r in sorted(kinds, key=lambda c: (c[1], c[0])):
        ch = kinds[(q, r)]
        require(ch in KIND_CHARS, b, f"unknown kind character {ch!r} at ({q}, {r})")
        kind = KIND_CHARS[ch]
        h: dict = {"q": q, "r": r, "kind": kind}
        lab = labels[(q, r)]
        hex_tags = list(TAG_CHARS.get(tags[(q, r)], ("?",)))
        require("?" not in hex_tags, b, f"unknown tag character {tags[(q, r)]!r} at ({q}, {r})")
        if kind == "settlement":
            require(lab in spec.areas, b, f"settlement hex ({q}, {r}) has no area letter (got {lab!r})")
            h["area"] = spec.areas[lab]
            used_areas.add(lab)
        elif kind in LANDMARK_KINDS:
            require(lab in spec.landmarks, b, f"{kind} hex ({q}, {r}) has no landmark letter (got {lab!r})")
            name = spec.landmarks[lab]
            used_landmarks.add(lab)
            h["name"] = name
            hex_tags += spec.landmark_tags.get(name, [])
            if name in spec.abilities:
                h["ability"] = spec.abilities[name]
        else:
            want = "~" if kind == "sea" else "."
            require(lab == want, b, f"{kind} hex ({q}, {r}) is labelled {lab!r}, expected {want!r}")
        if kind == "sea":
            require(tags[(q, r)] == "~", b, f"sea hex ({q}, {r}) carries tags")
        elif tags[(q, r)] == "~":
            raise BoardError(f"{b}: land hex ({q}, {r}) is drawn as sea in TAGS")
        if hex_tags:
            h["tags"] = sorted(hex_tags)
        hexes.append(h)
    require(used_areas == set(spec.areas), b, f"unused area letters {sorted(set(spec.areas) - used_areas)}")
    require(
        used_landmarks == set(spec.landmarks),
        b,
        f"unused landmark letters {sorted(set(spec.landmarks) - used_landmarks)}",
    )
    unknown = set(spec.landmark_tags) | set(spec.abilities)
    require(
        unknown <= set(spec.landmarks.values()),
        b,
        f"tables name unknown landmarks {unknown - set(spec.landmarks.values())}",
    )
    return {"name": spec.name, "title": spec.title, "notes": spec.notes, "hexes": hexes}


# ---------------------------------------------------------------------------------------------------------
# Constraints.
# ---------------------------------------------------------------------------------------------------------


def neighbours(c: tuple[int, int]) -> list[tuple[int, int]]:
    return [(c[0] + dq, c[1] + dr) for dq, dr in NEIGHBOUR_OFFSETS]


def contiguous(cells: set[tuple[int, int]]) -> bool:
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    todo = deque([start])
    while todo:
        for n in neighbours(todo.popleft()):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cells


def check(spec: Spec, data: dict) -> dict:
    """Check every constraint of `spec` on the built board; returns the facts the summary prints."""
    b = spec.name
    validate_board_data(data, file=f"boards/{b}.json")
    hexes = data["hexes"]
    for h in hexes:
        require(type(h["q"]) is int and type(h["r"]) is int, b, f"non-integer coordinates {h}")
    at = {(h["q"], h["r"]): h for h in hexes}
    require(len(at) == len(hexes), b, "duplicate coordinates")
    kind_count = Counter(h["kind"] for h in hexes)
    tile = [c for c, h in at.items() if h["kind"] in TILE_KINDS]
    tile_set = set(tile)
    sea = {c for c, h in at.items() if h["kind"] == "sea"}

    def tagged(tag: str) -> list[tuple[int, int]]:
        return [c for c, h in at.items() if tag in h.get("tags", [])]

    # Tile-taking hexes and supply fit (3 players x 34 tiles in play, S-C2/S-U4).
    require(105 <= len(tile) <= 120, b, f"{len(tile)} tile-taking hexes, want 105..120")
    require(len(tile) >= 3 * 34, b, "fewer tile-taking hexes than 3 players' supply")
    n_settle = kind_count["settlement"]
    require(34 <= n_settle <= 40, b, f"{n_settle} settlement hexes, want 34..40")
    require(
        0.28 <= n_settle / len(tile) <= 0.38,
        b,
        f"settlement share {n_settle / len(tile):.2f}, want about 1/3",
    )
    farms = sum(kind_count[k] for k in FARM_KINDS)
    for kind, lo, hi in (("plain", 0.35, 0.45), ("food", 0.25, 0.35), ("energy", 0.25, 0.35)):
        share = kind_count[kind] / farms
        require(lo <= share <= hi, b, f"{kind} is {share:.0%} of the farm hexes, want {lo:.0%}..{hi:.0%}")

    # Sea: every sea hex lies on the coast.
    for c in sea:
        require(
            any(n in at and at[n]["kind"] != "sea" for n in neighbours(c)), b, f"sea hex {c} touches no land"
        )

    # Tags.
    for c, h in at.items():
        for t in h.get("tags", []):
            require(t in spec.allowed_tags, b, f"tag {t!r} at {c} is not used on this map")

    # Settlement areas (S-A3, I-A1): contiguous, allowed sizes, only on settlement hexes.
    areas: dict[str, set[tuple[int, int]]] = {}
    for c, h in at.items():
        require(
            ("area" in h) == (h["kind"] == "settlement"), b, f"hex {c}: area and settlement kind disagree"
        )
        if "area" in h:
            areas.setdefault(h["area"], set()).add(c)
    for name, cells in areas.items():
        require(len(cells) in spec.area_sizes, b, f"area {name} has {len(cells)} hexes")
        require(contiguous(cells), b, f"area {name} is not contiguous")
    sizes = Counter(len(cells) for cells in areas.values())
    for size, least in spec.min_areas_of_size.items():
        require(sizes[size] >= least, b, f"{sizes[size]} areas of size {size}, want at least {least}")

    # Landmarks: counts, names, clover, abilities; no two touch; each has >= 4 tile-taking neighbours.
    landmarks = {c: h for c, h in at.items() if h["kind"] in LANDMARK_KINDS}
    for kind, (lo, hi) in spec.landmark_counts.items():
        require(lo <= kind_count[kind] <= hi, b, f"{kind_count[kind]} {kind} hexes, want {lo}..{hi}")
    for c, h in at.items():
        require(("name" in h) == (c in landmarks), b, f"hex {c}: only landmarks are named")
        require(("ability" in h) == (h["kind"] == "tower"), b, f"hex {c}: only towers carry an ability")
    by_name = {h["name"]: h for h in landmarks.values()}
    for name, kind in spec.required_names.items():
        require(name in by_name and by_name[name]["kind"] == kind, b, f"no {kind} named {name!r}")
    clovers = [h["name"] for h in landmarks.values() if "clover" in h.get("tags", [])]
    require(
        clovers == [spec.clover] and by_name[spec.clover]["kind"] == "castle",
        b,
        f"clover on {clovers}, want the castle {spec.clover}",
    )
    for c, h in landmarks.items():
        touching = [at[n]["name"] for n in neighbours(c) if n in landmarks]
        require(not touching, b, f"{h['kind']} {h['name']} touches {touching}")
        free = sum(1 for n in neighbours(c) if n in tile_set)
        require(free >= 4, b, f"{h['kind']} {h['name']} has only {free} tile-taking neighbours")
    abilities = Counter(h["ability"] for h in landmarks.values() if "ability" in h)
    if kind_count["tower"]:
        require(
            set(abilities) == set(ABILITIES),
            b,
            f"abilities used {sorted(abilities)}, want all of {ABILITIES}",
        )
        require(abilities["score_13"] == 1, b, "score_13 must be on exactly one tower")

    # Harbours (S-H1): settlement hexes on the coast.
    harbours = tagged("harbour")
    for c in harbours:
        require(at[c]["kind"] == "settlement", b, f"harbour {c} is not a settlement hex")
        require(any(n in sea for n in neighbours(c)), b, f"harbour {c} is not on the coast")
    require(
        len(harbours) >= spec.min_harbours, b, f"{len(harbours)} harbours, want at least {spec.min_harbours}"
    )

    # Wind collectors (I-H1): energy hexes on headlands, sea on at least three sides.
    wind = tagged("wind")
    for c in wind:
        require(at[c]["kind"] == "energy", b, f"wind collector {c} is not an energy hex")
        seas = sum(1 for n in neighbours(c) if n in sea)
        require(seas >= 3, b, f"wind collector {c} has sea on only {seas} sides")
    require(len(wind) >= spec.min_wind, b, f"{len(wind)} wind collectors, want at least {spec.min_wind}")

    # Neutral hexes (S-U2): exactly 32 tile-taking hexes, never two side by side, spread from north to
    # south, some in settlement areas but no area wholly neutral.
    neutral = tagged("neutral")
    require(len(neutral) == NEUTRAL_HEXES, b, f"{len(neutral)} neutral hexes, want {NEUTRAL_HEXES}")
    for c in neutral:
        require(c in tile_set, b, f"neutral hex {c} does not take a tile")
        require(not any(n in neutral for n in neighbours(c)), b, f"neutral hex {c} touches another one")
    on_settlements = [c for c in neutral if at[c]["kind"] == "settlement"]
    require(on_settlements, b, "no neutral hex lies in a settlement area")
    for name, cells in areas.items():
        require(not cells <= set(neutral), b, f"area {name} is entirely neutral")
    rows = sorted(r for _, r in tile)
    cuts = [rows[len(rows) // 3], rows[2 * len(rows) // 3]]
    part_of = {c: sum(c[1] >= cut for cut in cuts) for c in tile}
    tiles_in = Counter(part_of.values())
    neutral_in = Counter(part_of[c] for c in neutral)
    for part, where in enumerate(("north", "middle", "south")):
        fair = NEUTRAL_HEXES * tiles_in[part] / len(tile)
        require(
            neutral_in[part] >= 0.75 * fair,
            b,
            f"only {neutral_in[part]} neutral hexes in the {where} of the map, its fair share is {fair:.1f}",
        )

    return {
        "kinds": kind_count,
        "tile": len(tile),
        "areas": {
            size: sorted(n for n, cells in areas.items() if len(cells) == size) for size in sorted(sizes)
        },
        "harbours": len(harbours),
        "wind": len(wind),
        "neutral": len(neutral),
        "neutral_settlements": len(on_settlements),
        "landmarks": sorted((h["kind"], h["name"], h.get("ability", "")) for h in landmarks.values()),
    }


# ---------------------------------------------------------------------------------------------------------
# Output.
# ---------------------------------------------------------------------------------------------------------


def preview(data: dict) -> str:
    """The map drawn from its JSON hexes (kinds, then tags), so the axial conversion is checked by eye."""
    char_of_kind = {v: k for k, v in KIND_CHARS.items()}
    char_of_tags = {tuple(sorted(v)): k for k, v in TAG_CHARS.items() if v}
    hexes = data["hexes"]
    xs = {(h["q"], h["r"]): 2 * h["q"] + h["r"] for h in hexes}  # doubled x: sqrt(3)/2 units
    x0 = min(xs.values())
    width = max(xs.values()) - x0 + 1
    rows: dict[int, list[list[str]]] = {}
    for h in hexes:
        kinds_row, tags_row = rows.setdefault(h["r"], [[" "] * width, [" "] * width])
        x = xs[(h["q"], h["r"])] - x0
        kinds_row[x] = char_of_kind[h["kind"]]
        plain_tags = tuple(sorted(t for t in h.get("tags", []) if t != "clover"))
        tags_row[x] = char_of_tags.get(plain_tags, "~" if h["kind"] == "sea" else ".")
    lines = [f"{'kinds':<{width}}    tags (n neutral, h harbour, w wind)"]
    for r in sorted(rows):
        k, t = rows[r]
        lines.append(f"{''.join(k)}    {''.join(t)}".rstrip())
    return "\n".join(lines)


def summary(spec: Spec, facts: dict) -> str:
    k = facts["kinds"]
    lines = [
        f"{spec.name}: {sum(k.values())} hexes, {facts['tile']} take tiles",
        "  kinds: " + ", ".join(f"{kind} {k[kind]}" for kind in KIND_CHARS.values() if k[kind]),
        "  areas: "
        + "; ".join(
            f"{len(names)} of size {size} ({len(names) * size} hexes): {', '.join(names)}"
            for size, names in facts["areas"].items()
        ),
        f"  harbours {facts['harbours']}, wind collectors {facts['wind']}, "
        f"neutral {facts['neutral']} ({facts['neutral_settlements']} on settlement hexes)",
        "  landmarks: "
        + ", ".join(
            f"{name}{' [' + ability + ']' if ability else ''}" for _, name, ability in facts["landmarks"]
        ),
    ]
    return "\n".join(lines)


def render_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a board file is out of date"
    )
    parser.add_argument("--quiet", action="store_true", help="no previews")
    args = parser.parse_args(argv)
    stale = []
    for spec in SPECS:
        try:
            data = build(spec)
            facts = check(spec, data)
        except BoardError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if not args.quiet:
            print(preview(data))
        print(summary(spec, facts))
        text = render_json(data)
        path = BOARDS_DIR / f"{spec.name}.json"
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            print(f"  {path.relative_to(ROOT)}: up to date")
        elif args.check:
            print(f"  {path.relative_to(ROOT)}: OUT OF DATE")
            stale.append(path)
        else:
            BOARDS_DIR.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
            print(f"  {path.relative_to(ROOT)}: written")
        print()
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())

"""Map files: a board drawn as three ASCII pictures with a legend and tables, made into board JSON.

The format is documented for map makers in docs/maps.md. In short, a map file has sections:

    [board]      name = ..., title = ..., notes = ... (an indented line continues the value above it)
    [legend]     `CHAR kind KIND [area|landmark]` for [kinds]; `CHAR tags TAG...` for [tags]
    [kinds]      what each hex is, one legend character a hex
    [labels]     the settlement-area letter or landmark letter of a hex (`.` elsewhere)
    [tags]       the tags of a hex, one legend character (`.` for none)
    [areas]      `LETTER NAME`: the settlement areas
    [landmarks]  `LETTER NAME [tags=T1,T2] [ability=NAME]`: the named landmarks

A picture line is `ROW|cells`: row r of an "odd-r" offset layout (odd rows sit half a hex to the right),
so hex (r, col) sits at text column 2*col + (r & 1) after the `|`; its axial coordinates are
q = col - (r - (r & 1)) // 2 and r. In [labels] and [tags], `.` or the hex's own [kinds] character
means "nothing here". `#` starts a comment anywhere. Nothing about the game is known here: every kind,
tag, name and ability comes from the file, and `rebirth check RULES --board BOARD` judges the result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.board.model import IDENT, MAX_COORD, NEIGHBOUR_OFFSETS, validate_board_data
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.files import read_text, shown

SECTIONS = ("board", "legend", "kinds", "labels", "tags", "areas", "landmarks")
PICTURES = ("kinds", "labels", "tags")
BOARD_KEYS = ("name", "title", "notes")
ROLES = ("area", "landmark")  # what a kind's [labels] letter names
LANDMARK_KEYS = ("tags", "ability")
BLANK = "."  # "nothing here" in [labels] and [tags] (as is the hex's own [kinds] character)

_IDENT = re.compile(IDENT)
_SECTION = re.compile(r"^\[([^\]]*)\]$")
MAX_PROBLEMS = 50  # problems of one map printed at a time
_ROW = re.compile(r"^\s*([0-9]+)\|")  # ASCII digits: int() reads other scripts' digits too

Coord = tuple[int, int]


@dataclass(frozen=True)
class _Cell:
    """One character of a picture, where it stands in the file."""

    char: str
    line: int
    col: int


@dataclass(frozen=True)
class _Kind:
    """A [kinds] legend entry."""

    kind: str
    role: str | None
    line: int


@dataclass(frozen=True)
class _Entry:
    """A row of [areas] or [landmarks]."""

    key: str
    name: str
    line: int
    col: int
    tags: tuple[str, ...] = ()
    ability: str | None = None


@dataclass
class _Map:
    """A map file read section by section, with every problem found so far."""

    file: str
    lines: list[str]
    problems: list[Diagnostic] = field(default_factory=list)
    sections: dict[str, tuple[int, list[tuple[int, str]]]] = field(default_factory=dict)
    board: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, _Kind] = field(default_factory=dict)
    tags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pictures: dict[str, dict[Coord, _Cell]] = field(default_factory=dict)
    rows: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)  # picture -> row -> (line, `|` end)
    areas: dict[str, _Entry] = field(default_factory=dict)
    landmarks: dict[str, _Entry] = field(default_factory=dict)

    def error(self, message: str, line: int, col: int = 1, hint: str | None = None) -> None:
        """Record a problem at a 1-based line and column of the file."""
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        if src is not None:  # the line up to a little past the caret: a 60 KB line is not printed whole
            src = src[:col + 80]
        self.problems.append(Diagnostic(message, file=self.file, line=line, col=col, source_line=src, hint=hint))

    def stop_if_wrong(self) -> None:
        """Raise the problems found so far in file order: the first MAX_PROBLEMS, then how many more."""
        if self.problems:
            found = sorted(self.problems, key=lambda d: (d.line, d.col))
            first = found[:MAX_PROBLEMS]
            # a line of 30,000 stray characters is 30,000 problems: printing each (with its line) took
            # minutes and gigabytes; the first ones say what is wrong
            if len(found) > MAX_PROBLEMS:
                first.append(Diagnostic(f"and {len(found) - MAX_PROBLEMS:,} more problems: fix these first",
                                         file=self.file))
            raise RebirthError(first)


def offset_to_axial(col: int, row: int) -> Coord:
    """Odd-r offset (col, row) to axial (q, r)."""
    return col - (row - (row & 1)) // 2, row


def _tokens(text: str) -> Iterator[tuple[int, str]]:
    """The whitespace-separated words of a line, each with its 1-based column."""
    for m in re.finditer(r"\S+", text):
        yield m.start() + 1, m.group()


def _split(m: _Map) -> None:
    """Cut the file into sections of (line number, text without its comment)."""
    current: list[tuple[int, str]] | None = None
    for no, raw in enumerate(m.lines, 1):
        body = raw.split("#", 1)[0].rstrip()
        if not body.strip():
            continue
        head = _SECTION.match(body.strip())
        if head:
            name = head.group(1).strip()
            if name not in SECTIONS:
                m.error(f"unknown section [{name}]", no, raw.index("[") + 1,
                        "sections: " + ", ".join(f"[{s}]" for s in SECTIONS))
                current = []  # its lines are skipped
            elif name in m.sections:
                m.error(f"section [{name}] appears twice (first on line {m.sections[name][0]})", no,
                        raw.index("[") + 1)
                current = []
            else:
                current = []
                m.sections[name] = (no, current)
        elif current is None:
            m.error("text before the first section", no, len(body) - len(body.lstrip()) + 1,
                    "a map file starts with a section header such as [board]")
        else:
            current.append((no, body))


def _read_board(m: _Map) -> None:
    """[board]: `key = value` lines; an indented line continues the value above it."""
    if "board" not in m.sections:
        m.error("no [board] section: a map needs at least `name = ...`", 1)
        return
    head, lines = m.sections["board"]
    last: str | None = None
    for no, body in lines:
        if body[0].isspace() and last is not None:
            m.board[last] += " " + body.strip()
            continue
        key, eq, value = body.partition("=")
        key = key.strip()
        col = len(body) - len(body.lstrip()) + 1
        if not eq:
            m.error("a [board] line is `key = value`", no, col)
        elif key not in BOARD_KEYS:
            m.error(f"unknown [board] key {key!r}", no, col, "keys: " + ", ".join(BOARD_KEYS))
        elif key in m.board:
            m.error(f"[board] key {key!r} is given twice", no, col)
        else:
            m.board[key] = value.strip()
            last = key
            continue
        last = None
    if "name" not in m.board:
        m.error("[board] has no `name = ...`", head)


def _read_legend(m: _Map) -> None:
    """[legend]: `CHAR kind KIND [area|landmark]` and `CHAR tags TAG...` lines."""
    if "legend" not in m.sections:
        m.error("no [legend] section: it says which hex kind each [kinds] character draws", 1)
        return
    role_of: dict[str, tuple[str | None, int]] = {}
    for no, body in m.sections["legend"][1]:
        words = list(_tokens(body))
        (col, char), rest = words[0], words[1:]
        if len(char) != 1:
            m.error(f"a legend character is one character, not {char!r}", no, col)
            continue
        if not rest or rest[0][1] not in ("kind", "tags"):
            m.error("a legend line is `CHAR kind KIND [area|landmark]` or `CHAR tags TAG...`", no,
                    rest[0][0] if rest else col)
            continue
        what_col, what = rest[0]
        args = rest[1:]
        if what == "kind":
            if not 1 <= len(args) <= 2:
                m.error("a kind line is `CHAR kind KIND`, then optionally `area` or `landmark`", no, what_col)
                continue
            kcol, kind = args[0]
            role = args[1][1] if len(args) == 2 else None
            if not _IDENT.match(kind):
                m.error(f"a kind is a name of letters, digits and _, not {kind!r}", no, kcol)
            elif role is not None and role not in ROLES:
                m.error(f"unknown role {role!r}", no, args[1][0],
                        "`area`: its hexes carry an [areas] letter; `landmark`: each carries a [landmarks] letter")
            elif char in m.kinds:
                m.error(f"{char!r} is already a kind character (line {m.kinds[char].line})", no, col)
            elif kind in role_of and role_of[kind][0] != role:
                m.error(f"kind {kind!r} has another role on line {role_of[kind][1]}", no, kcol)
            else:
                m.kinds[char] = _Kind(kind, role, no)
                role_of[kind] = (role, no)
        else:
            if not args:
                m.error("a tags line names at least one tag: `CHAR tags TAG...`", no, what_col)
            elif char == BLANK:
                m.error(f"{BLANK!r} means no tag in [tags]; choose another character", no, col)
            elif char in m.tags:
                m.error(f"{char!r} is already a tags character", no, col)
            elif bad := [(c, t) for c, t in args if not _IDENT.match(t)]:
                m.error(f"a tag is a name of letters, digits and _, not {bad[0][1]!r}", no, bad[0][0])
            else:
                m.tags[char] = tuple(t for _, t in args)


def _read_picture(m: _Map, name: str) -> None:
    """A picture: `ROW|cells` lines, one character a hex, on the odd-r offset grid."""
    cells: dict[Coord, _Cell] = {}
    rows: dict[int, tuple[int, int]] = {}
    for no, body in m.sections[name][1]:
        head = _ROW.match(body)
        if head is None:
            m.error(f"a [{name}] line is `ROW|cells`, e.g. ` 3|  ~ . f ~`", no,
                    len(body) - len(body.lstrip()) + 1)
            continue
        number = head.group(1).lstrip("0") or "0"
        # a row past the board's coordinate limit is refused here, at its line: int() of over 4,300 digits
        # raises ValueError, and a smaller huge row only fails later, in the board schema, without a line
        if len(number) > len(str(MAX_COORD)) or int(number) > MAX_COORD:
            m.error(f"row {number if len(number) <= 12 else number[:12] + '...'} is past the limit: rows are "
                    f"numbered 0 to {MAX_COORD}", no, head.start(1) + 1)
            continue
        r = int(number)
        if r in rows:
            m.error(f"row {r} is drawn twice in [{name}] (first on line {rows[r][0]})", no, head.start(1) + 1)
            continue
        start = head.end()
        rows[r] = (no, start)
        for x, ch in enumerate(body[start:]):
            if ch == " ":
                continue
            col = start + x + 1
            if ch == "\t":
                m.error("a tab in a picture: line hexes up with spaces", no, col)
            elif x % 2 != r % 2:
                m.error(f"{ch!r} is off the hex grid: row {r} has hexes at {'odd' if r % 2 else 'even'} "
                        "columns after the `|`", no, col, "odd rows sit half a hex to the right")
            else:
                cells[offset_to_axial((x - (r & 1)) // 2, r)] = _Cell(ch, no, col)
    m.pictures[name] = cells
    m.rows[name] = rows


def _read_table(m: _Map, name: str) -> dict[str, _Entry]:
    """[areas] or [landmarks]: `LETTER NAME` lines (landmarks may end in `tags=...` and `ability=...`)."""
    out: dict[str, _Entry] = {}
    names: dict[str, int] = {}
    for no, body in m.sections.get(name, (0, []))[1]:
        words = list(_tokens(body))
        (col, key), rest = words[0], words[1:]
        extras: dict[str, tuple[int, str]] = {}
        while name == "landmarks" and rest and "=" in rest[-1][1]:
            ecol, word = rest.pop()
            k, _, v = word.partition("=")
            if k not in LANDMARK_KEYS:
                m.error(f"unknown landmark property {k!r}", no, ecol, "properties: tags=T1,T2 and ability=NAME")
            elif k in extras:
                m.error(f"{k}= is given twice", no, ecol)
            else:
                extras[k] = (ecol, v)
        if len(key) != 1 or key == BLANK:
            m.error(f"an [{name}] letter is one character other than {BLANK!r}, not {key!r}", no, col)
            continue
        if not rest:
            m.error(f"[{name}] letter {key!r} has no name", no, col)
            continue
        text = body[rest[0][0] - 1:rest[-1][0] - 1 + len(rest[-1][1])]
        tags: tuple[str, ...] = ()
        ability = None
        if "tags" in extras:
            ecol, v = extras["tags"]
            tags = tuple(v.split(","))
            if bad := [t for t in tags if not _IDENT.match(t)]:
                m.error(f"a tag is a name of letters, digits and _, not {bad[0]!r}", no, ecol)
        if "ability" in extras:
            ecol, ability = extras["ability"]
            if not _IDENT.match(ability):
                m.error(f"an ability is a name of letters, digits and _, not {ability!r}", no, ecol)
        if key in out:
            m.error(f"[{name}] letter {key!r} is given twice (first on line {out[key].line})", no, col)
        elif text in names:
            m.error(f"{text!r} is named twice in [{name}] (first on line {names[text]})", no, rest[0][0])
        else:
            out[key] = _Entry(key, text, no, col, tags, ability)
            names[text] = no
    return out


def _build_hexes(m: _Map) -> list[dict[str, Any]]:
    """Every hex of [kinds], with its area or landmark from [labels] and its tags from [tags]."""
    kinds = m.pictures["kinds"]
    for name in ("labels", "tags"):
        pic = m.pictures.get(name)
        if pic is None:
            continue
        for c in sorted(set(pic) - set(kinds), key=lambda c: (c[1], c[0])):
            cell = pic[c]
            m.error(f"[{name}] has a hex at ({c[0]}, {c[1]}) where [kinds] has none", cell.line, cell.col,
                    "all three pictures must have the same shape")
        missing: dict[int, Coord] = {}
        for c in sorted(set(kinds) - set(pic), key=lambda c: (c[1], c[0])):
            missing.setdefault(c[1], c)
        for r, c in missing.items():
            k = kinds[c]
            line, start = m.rows[name].get(r, (m.sections[name][0], -1))
            col = start + 2 * (c[0] + (r - (r & 1)) // 2) + (r & 1) + 1 if start >= 0 else 1
            m.error(f"[{name}] has no hex at ({c[0]}, {c[1]}), which [kinds] draws as {k.char!r} "
                    f"(line {k.line}, column {k.col})", line, col, "all three pictures must have the same shape")
    used: dict[str, dict[str, _Cell]] = {"area": {}, "landmark": {}}  # role -> letter -> first label
    unlabelled: set[str] = set()  # kinds already reported as missing their [labels] picture
    hexes: list[dict[str, Any]] = []
    for c in sorted(kinds, key=lambda c: (c[1], c[0])):
        cell = kinds[c]
        entry = m.kinds.get(cell.char)
        if entry is None:
            m.error(f"unknown [kinds] character {cell.char!r}", cell.line, cell.col,
                    f"add a legend line such as `{cell.char}  kind  NAME` to [legend]")
            continue
        h: dict[str, Any] = {"q": c[0], "r": c[1], "kind": entry.kind}
        tags: set[str] = set()
        label = m.pictures.get("labels", {}).get(c)
        if entry.role is not None:
            table = m.areas if entry.role == "area" else m.landmarks
            section = "areas" if entry.role == "area" else "landmarks"
            if label is None:
                if "labels" not in m.pictures and entry.kind not in unlabelled:
                    unlabelled.add(entry.kind)
                    m.error(f"{entry.kind} hexes need a letter from [{section}], but the map has no [labels]",
                            cell.line, cell.col)
            elif label.char not in table:
                m.error(f"{entry.kind} hex ({c[0]}, {c[1]}) is labelled {label.char!r}, which [{section}] "
                        "does not list", label.line, label.col,
                        f"add `{label.char}  NAME` to [{section}]" if label.char != BLANK else
                        f"a {entry.kind} hex carries a letter from [{section}] (legend line {entry.line})")
            elif entry.role == "landmark" and label.char in used["landmark"]:
                first = used["landmark"][label.char]
                m.error(f"landmark {table[label.char].name!r} (letter {label.char!r}) labels a second hex "
                        f"({c[0]}, {c[1]}); first on line {first.line}, column {first.col}", label.line, label.col,
                        "a landmark is one hex: give each its own letter and name")
            else:
                e = table[label.char]
                used[entry.role].setdefault(e.key, label)
                if entry.role == "area":
                    h["area"] = e.name
                else:
                    h["name"] = e.name
                    tags.update(e.tags)
                    if e.ability is not None:
                        h["ability"] = e.ability
        elif label is not None and label.char not in (BLANK, cell.char):
            m.error(f"{label.char!r} labels a {entry.kind} hex ({c[0]}, {c[1]}), which belongs to no area or "
                    "landmark", label.line, label.col,
                    f"write {BLANK!r}; only kinds the legend marks `area` or `landmark` take a letter")
        tag = m.pictures.get("tags", {}).get(c)
        if tag is not None:
            if tag.char in m.tags:
                tags.update(m.tags[tag.char])
            elif tag.char not in (BLANK, cell.char):
                m.error(f"unknown [tags] character {tag.char!r} on a {entry.kind} hex ({c[0]}, {c[1]})",
                        tag.line, tag.col,
                        f"write {BLANK!r} for no tag, or add a legend line `{tag.char}  tags  NAME`")
        if tags:
            h["tags"] = sorted(tags)
        hexes.append(h)
    for role, table in (("area", m.areas), ("landmark", m.landmarks)):
        for e in table.values():
            if e.key not in used[role]:
                m.error(f"{e.name!r} (letter {e.key!r}) labels no {role} hex of the map", e.line, e.col)
    return hexes


def _check_areas_contiguous(m: _Map, hexes: list[dict[str, Any]]) -> None:
    """Each settlement area is one connected group of hexes."""
    cells: dict[str, set[Coord]] = {}
    for h in hexes:
        if "area" in h:
            cells.setdefault(h["area"], set()).add((h["q"], h["r"]))
    labels = m.pictures.get("labels", {})
    for area, members in cells.items():
        start = min(members, key=lambda c: (c[1], c[0]))
        seen, todo = {start}, [start]
        while todo:
            q, r = todo.pop()
            for dq, dr in NEIGHBOUR_OFFSETS:
                n = (q + dq, r + dr)
                if n in members and n not in seen:
                    seen.add(n)
                    todo.append(n)
        if seen != members:
            cut = sorted(members - seen, key=lambda c: (c[1], c[0]))
            cell = labels[cut[0]]
            m.error(f"area {area!r} is not contiguous: {', '.join(map(str, cut))} "
                    f"{'is' if len(cut) == 1 else 'are'} cut off from {start}", cell.line, cell.col,
                    "the hexes of an area touch each other; use another letter for a second area")


def parse_map(text: str, file: str = "") -> dict[str, Any]:
    """Turn a map file's text into validated board JSON data (the shape of boards/*.json)."""
    m = _Map(file, text.splitlines())
    _split(m)
    _read_board(m)
    _read_legend(m)
    for name in PICTURES:
        if name in m.sections:
            _read_picture(m, name)
    if "kinds" not in m.sections:
        m.error("no [kinds] picture: it draws the map", 1)
    m.areas = _read_table(m, "areas")
    m.landmarks = _read_table(m, "landmarks")
    m.stop_if_wrong()
    hexes = _build_hexes(m)
    m.stop_if_wrong()
    _check_areas_contiguous(m, hexes)
    m.stop_if_wrong()
    data: dict[str, Any] = {"name": m.board["name"]}
    for key in ("title", "notes"):
        if key in m.board:
            data[key] = m.board[key]
    data["hexes"] = hexes
    validate_board_data(data, file=file)
    return data


def load_map(path: str | Path) -> dict[str, Any]:
    """Read a map file and turn it into validated board JSON data."""
    # files.read_text: a FIFO, a device or a huge file is refused, and a bad byte is named by its line
    return parse_map(read_text(path, "map file"), file=shown(path))


def render_board(data: dict[str, Any]) -> str:
    """Board JSON text as the bundled boards are written: sorted keys, two-space indent, UTF-8, final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

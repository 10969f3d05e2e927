"""`rebirth rules VARIANT --diff BASE`: what a ruleset changes against another, read like a changelog.

Statements are matched by the override model's identity (lang.parser.statement_identity); declarations,
which have none, by the names they declare. A changed block (an area, a majority, a deck) prints its own
line once and then only the items that differ. When the two play on different boards, the boards'
differences follow: hexes, settlement areas and landmarks, each by what the board file calls them.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lang.parser import statement_identity
from rebirth_dsl.present.describe import describe_statement
from rebirth_dsl.rules.words import Words, cited

if TYPE_CHECKING:
    from rebirth_dsl.board.view import BoardView, HexView

MAX_LISTED = 12  # board lines per section before "... and N more": a new map is a summary, not a dump

_DECLARED = {"hex": "hex kind", "landmark": "landmark kind", "tag": "tag"}


def _content(x: object) -> object:
    """A statement's content without its place in a file (two statements that read the same compare equal)."""
    if isinstance(x, Span):
        return None
    if isinstance(x, tuple | list):
        return tuple(_content(v) for v in x)
    fields = getattr(x, "__dataclass_fields__", None)
    if fields is not None:
        return (type(x).__name__, tuple((f, _content(getattr(x, f))) for f in fields if "span" not in f))
    return x


def _ids(rules: A.Rules, span: Span) -> tuple[str, ...]:
    return comment_ids(rules.sources.get(span.file, "")).get(span.line, ())


class _Declared:
    """One name a declaration statement declares: what the diff matches declarations by."""

    def __init__(self, s: A.Declare, name: str) -> None:
        self.s, self.name = s, name

    def content(self) -> object:
        return (self.s.what, self.name, self.s.on)

    def text(self, rules: A.Rules) -> str:
        where = f" (only on {', '.join(self.s.on)} hexes)" if self.s.on else ""
        return f"{_DECLARED.get(self.s.what, self.s.what)} {self.name}{where}{cited(_ids(rules, self.s.span))}"


Entry = A.Statement | _Declared


def _table(rules: A.Rules) -> dict[object, Entry]:
    """Every statement of a ruleset by its identity; a declaration once per name it declares."""
    classes = {s.name: s.kinds for s in rules.statements if isinstance(s, A.ClassDecl)}
    out: dict[object, Entry] = {}
    for i, s in enumerate(rules.statements):
        if isinstance(s, A.Declare):
            for n in s.names:
                out[("declare", s.what, n)] = _Declared(s, n)
            continue
        key = statement_identity(s, classes)
        out[key if key is not None and key not in out else ("#", i)] = s
    return out


def _words(rules: A.Rules, s: A.Statement) -> list[Words]:
    """The statement's English; a statement with none reads as its own line of the rules file."""
    ws = describe_statement(rules, s)
    if ws:
        return ws
    if isinstance(s, A.ClassDecl):
        return [Words(f"Class {s.name} is {', '.join(s.kinds)}.", _ids(rules, s.span))]
    src = rules.sources.get(s.span.file, "").split("\n")
    line = src[s.span.line - 1].split("#")[0].strip() if 0 < s.span.line <= len(src) else type(s).__name__
    return [Words(f"`{line}`", _ids(rules, s.span))]


def _text(w: Words) -> str:
    """A sentence without its bullet, with its ids."""
    return f"{w.text}{cited(w.ids)}"


def _block(ws: list[Words], indent: str = "    ") -> list[str]:
    """A statement's English as lines: its own line, then its items indented under it."""
    return [_text(ws[0])] + [f"{indent}{'    ' * (w.depth - 1)}- {_text(w)}" for w in ws[1:]]


def describe_diff(base: A.Rules, variant: A.Rules, base_board: BoardView | None = None,
                  variant_board: BoardView | None = None) -> str:
    """In English, exactly what a variant changes against a base: declarations by name, statements added and
    removed, of a changed statement only what differs; then the boards' differences when both are given and
    differ."""
    old, new = _table(base), _table(variant)
    lines = [f"{variant.header.title or variant.header.name} against {base.header.title or base.header.name}:"]
    for key, s in new.items():
        if key not in old:
            if isinstance(s, _Declared):
                lines.append("+ declares " + s.text(variant))
            else:
                lines.append("+ adds: " + "\n  ".join(_block(_words(variant, s), "  ")))
        else:
            was = old[key]
            if isinstance(s, _Declared) and isinstance(was, _Declared):
                if was.content() != s.content():
                    lines.append(f"~ changes: {was.text(base)}\n  to: {s.text(variant)}")
            elif not isinstance(s, _Declared) and not isinstance(was, _Declared) and _content(was) != _content(s):
                lines.extend(_changed(base, was, variant, s))
    for key, s in old.items():
        if key not in new:
            if isinstance(s, _Declared):
                lines.append("- no longer declares " + s.text(base))
            else:
                lines.append("- removes: " + "\n  ".join(_block(_words(base, s), "  ")))
    if len(lines) == 1:
        lines.append("  no difference in any statement")
    if base_board is not None and variant_board is not None and base_board is not variant_board:
        lines.append("")
        lines.extend(board_diff(base_board, variant_board))
    return "\n".join(lines)


def _changed(base: A.Rules, was: A.Statement, variant: A.Rules, now: A.Statement) -> list[str]:
    """A changed statement: a one-line one as before and after; a block as its line once, then only the
    items that differ (`was:`/`now:` for an item changed in place, `adds:`/`drops:` for one that is new or
    gone)."""
    a, b = _words(base, was), _words(variant, now)
    if len(a) == 1 and len(b) == 1:
        return [f"~ changes: {_text(a[0])}", f"  to: {_text(b[0])}"]
    out = [f"~ changes: {_text(a[0])}"] if _text(a[0]) == _text(b[0]) else [
        f"~ changes: {_text(a[0])}", f"  to: {_text(b[0])}"]
    ia, ib = [_text(w) for w in a[1:]], [_text(w) for w in b[1:]]
    ka, kb = [_item_key(t) for t in ia], [_item_key(t) for t in ib]
    if None not in ka and None not in kb:  # named items (a deck's cards): matched by name, not by place
        for k, t in zip(ka, ia, strict=True):
            if k not in kb:
                out.append(f"    drops: {t}")
            elif ib[kb.index(k)] != t:
                out += [f"    was: {t}", f"    now: {ib[kb.index(k)]}"]
        out += [f"    adds: {t}" for k, t in zip(kb, ib, strict=True) if k not in ka]
        return _same_words(out, now)
    for op, i1, i2, j1, j2 in SequenceMatcher(None, ia, ib, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for m in range(pairs):
            out += [f"    was: {ia[i1 + m]}", f"    now: {ib[j1 + m]}"]
        out += [f"    drops: {t}" for t in ia[i1 + pairs:i2]]
        out += [f"    adds: {t}" for t in ib[j1 + pairs:j2]]
    return _same_words(out, now)


def _item_key(text: str) -> str | None:
    """The name an item of a block starts with ("Castle lord", 5: ...), if it has one."""
    return text[: text.index('"', 1) + 1] if text.startswith('"') and '"' in text[1:] else None


def _same_words(out: list[str], now: A.Statement) -> list[str]:
    """The lines of a change; one whose English reads the same says where the statement is."""
    if len(out) == 1:  # the English reads the same: the difference is in what it does not say
        sp = now.span
        out.append(f"    (worded the same; the statement at {sp.file}:{sp.line} differs from the base's)")
    return out


# ----- boards ------------------------------------------------------------------------------------

def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _at(h: HexView) -> str:
    return f"({h.q},{h.r})"


def _listed(head: str, items: list[str]) -> list[str]:
    """A section: its head and its lines, at most MAX_LISTED of them."""
    if not items:
        return []
    more = [f"    ... and {len(items) - MAX_LISTED} more"] if len(items) > MAX_LISTED else []
    return [f"  {head}:"] + [f"    {t}" for t in items[:MAX_LISTED]] + more


def board_diff(base: BoardView, variant: BoardView) -> list[str]:
    """The differences of two boards, in English: hexes (added, removed, of another kind or other tags),
    settlement areas (by name: new, gone, resized or moved) and landmarks (by name: new, gone, moved, of
    another kind, ability or tags)."""
    head = f"Board {variant.name} against {base.name}"
    sizes = (f"{len(variant.hexes)} hexes, as before" if len(variant.hexes) == len(base.hexes)
             else f"{len(variant.hexes)} hexes, {len(base.hexes)} before")
    out = [f"{head} ({sizes}):"]
    a = {(h.q, h.r): h for h in base.hexes}
    b = {(h.q, h.r): h for h in variant.hexes}
    out += _listed("hexes", _hex_lines(a, b))
    out += _listed("areas", _area_lines(base, variant))
    out += _listed("landmarks", _landmark_lines(a, b))
    if len(out) == 1:
        out.append("  no difference in hexes, areas or landmarks")
    return out


def _tags(h: HexView) -> str:
    return f" [{', '.join(h.tags)}]" if h.tags else ""


def _hex_lines(a: dict[tuple[int, int], HexView], b: dict[tuple[int, int], HexView]) -> list[str]:
    """Hexes that are new, gone, or of another kind or tags; a landmark's hex is told under landmarks."""
    out = []
    for at in sorted(set(a) | set(b), key=lambda k: (k[1], k[0])):
        x, y = a.get(at), b.get(at)
        if (x is not None and x.name) or (y is not None and y.name):
            continue
        if x is None and y is not None:
            out.append(f"+ {_at(y)} {y.kind}{_tags(y)}" + (f" in {y.area}" if y.area else ""))
        elif y is None and x is not None:
            out.append(f"- {_at(x)} {x.kind}{_tags(x)}" + (f" in {x.area}" if x.area else ""))
        elif x is not None and y is not None:
            changes = []
            if x.kind != y.kind:
                changes.append(f"{x.kind} -> {y.kind}")
            added = [t for t in y.tags if t not in x.tags]
            gone = [t for t in x.tags if t not in y.tags]
            if added or gone:
                changes.append("tags " + ", ".join([f"+ {t}" for t in added] + [f"- {t}" for t in gone]))
            if changes:
                out.append(f"~ {_at(y)} " + "; ".join(changes))
    return out


def _area_lines(base: BoardView, variant: BoardView) -> list[str]:
    """Settlement areas by name: new, gone, of another size, or on other hexes."""
    def areas(board: BoardView) -> dict[str, set[tuple[int, int]]]:
        out: dict[str, set[tuple[int, int]]] = {}
        for h in board.hexes:
            if h.area:
                out.setdefault(h.area, set()).add((h.q, h.r))
        return out

    def n(cells: set[tuple[int, int]]) -> str:
        return f"{len(cells)} hex{'es' if len(cells) != 1 else ''}"

    a, b = areas(base), areas(variant)
    out = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if x is None and y is not None:
            out.append(f"+ {name}: {n(y)}")
        elif y is None and x is not None:
            out.append(f"- {name}: {n(x)}")
        elif x is not None and y is not None and x != y:
            moved = ", ".join([f"+ ({q},{r})" for q, r in sorted(y - x)] + [f"- ({q},{r})" for q, r in sorted(x - y)])
            size = f"{len(x)} -> {len(y)} hexes" if len(x) != len(y) else n(y)
            out.append(f"~ {name}: {size} ({moved})")
    return out


def _landmark_lines(a: dict[tuple[int, int], HexView], b: dict[tuple[int, int], HexView]) -> list[str]:
    """Landmarks by name: new (and what the hex was), gone (and what the hex is now), moved, of another kind,
    ability or tags."""
    def named(cells: dict[tuple[int, int], HexView]) -> dict[str, HexView]:
        return {h.name: h for h in cells.values() if h.name}

    x_by, y_by = named(a), named(b)
    out = []
    for name in sorted(set(x_by) | set(y_by)):
        x, y = x_by.get(name), y_by.get(name)
        if x is None and y is not None:
            before = a.get((y.q, y.r))
            was = f", on {_a(before.kind)} hex before" if before is not None and not before.name else (
                "" if before is not None else ", a new hex")
            ability = f", ability {y.ability}" if y.ability else ""
            out.append(f'+ {y.kind} "{name}" at {_at(y)}{_tags(y)}{ability}{was}')
        elif y is None and x is not None:
            after = b.get((x.q, x.r))
            now = f", {_a(after.kind)} hex now" if after is not None and not after.name else (
                "" if after is not None else ", the hex is gone")
            out.append(f'- {x.kind} "{name}" at {_at(x)}{now}')
        elif x is not None and y is not None:
            changes = []
            if (x.q, x.r) != (y.q, y.r):
                changes.append(f"at {_at(x)} -> {_at(y)}")
            if x.kind != y.kind:
                changes.append(f"{x.kind} -> {y.kind}")
            if x.ability != y.ability:
                changes.append(f"ability {x.ability or 'none'} -> {y.ability or 'none'}")
            added = [t for t in y.tags if t not in x.tags]
            gone = [t for t in x.tags if t not in y.tags]
            if added or gone:
                changes.append("tags " + ", ".join([f"+ {t}" for t in added] + [f"- {t}" for t in gone]))
            if changes:
                out.append(f'~ {y.kind} "{name}": ' + "; ".join(changes))
    return out

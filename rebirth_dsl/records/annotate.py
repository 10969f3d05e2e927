"""Records that carry analysis: comments on moves and on the game, metadata, and variations (other lines
from any move, nested). `annotate`/`add_variation` return a new record; `annotate_file` writes one
atomically, never over its input unless asked. `read_annotations` reads them back for `eval --explain`, each
variation played from the position before its move, so a line that breaks a rule says which and where."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.files import check_output, shown

if TYPE_CHECKING:
    from rebirth_dsl.records.record import Replay
    from rebirth_dsl.records.view import MoveView
    from rebirth_dsl.runtime.game import Game

Mark = tuple[int | None, str]  # (move index, or None for the game; the comment)


def _move(record: dict[str, Any], move_index: int) -> dict[str, Any]:
    """The record's move at an index, or a clear error naming the range."""
    moves = record.get("moves") or []
    if not isinstance(moves, list) or not 0 <= move_index < len(moves):
        raise RebirthError.single(f"move {move_index}: the record has {len(moves)} moves (0 to {len(moves) - 1})",
                                  path=f"$.moves[{move_index}]")
    return cast("dict[str, Any]", moves[move_index])


def annotate(record: dict[str, Any], move_index: int | None, comment: str, replace: bool = False) -> dict[str, Any]:
    """A copy of the record with a comment on a move (None: on the whole game). A comment already there is
    kept, the new one on a line after it, unless `replace`."""
    out = copy.deepcopy(record)
    target = out if move_index is None else _move(out, move_index)
    old = target.get("comment")
    target["comment"] = comment if replace or not old else f"{old}\n{comment}"
    return out


def add_variation(record: dict[str, Any], move_index: int, line: list[dict[str, Any]]) -> dict[str, Any]:
    """A copy of the record with another line instead of a move: moves (as a record writes them, with their
    own comments and variations if any) played from the position before it."""
    out = copy.deepcopy(record)
    _move(out, move_index).setdefault("variations", []).append(copy.deepcopy(line))
    return out


def set_meta(record: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """A copy of the record with metadata set (event, site, date, round, names, annotator, tags)."""
    out = copy.deepcopy(record)
    m = dict(out.get("meta") or {})
    m.update({k: v for k, v in meta.items() if v is not None})
    out["meta"] = m
    return out


def annotate_file(path: str | Path, marks: Mapping[int | None, str] | Iterable[Mark], output: str | Path | None = None,
                  *, in_place: bool = False, replace: bool = False, meta: dict[str, Any] | None = None) -> Path:
    """Comment a record file's moves (and the game: index None), then write the record, validated by the
    schema, to `output` atomically. Without `output` it is written back to `path` only when `in_place`: a
    review never replaces the game it read unless asked. Returns the file written."""
    from rebirth_dsl.board.data import load_json
    from rebirth_dsl.records.models import parse_record
    from rebirth_dsl.records.record import write_json_atomic

    src = Path(path)
    if output is None and not in_place:
        raise RebirthError.single("no output named: the annotated record is written over its input only when asked "
                                  "(in_place=True)", file=shown(src))
    data = load_json(src)
    parse_record(data, shown(src))  # a record that is not valid is refused before anything is written
    items = marks.items() if isinstance(marks, Mapping) else marks
    for i, text in items:
        data = annotate(data, i, text, replace)
    if meta:
        data = set_meta(data, **meta)
    parse_record(data, shown(src))
    target = src if output is None else check_output(output, [] if in_place else [src])
    write_json_atomic(target, data)
    return target


# ----- reading them back ----------------------------------------------------------------------------------
def read_annotations(r: Replay, at: int | None = None) -> dict[str, Any]:
    """The record's metadata, game comment, move comments and variations of the moves replayed (the first
    `at`, or all), each line played on a copy of the game before its move: the points of each move, or the
    rule that refuses one; for `eval --explain`."""
    rec = r.loaded.record
    out: dict[str, Any] = {}
    meta = {k: v for k, v in (rec.meta or {}).items() if v is not None}
    if meta:
        out["meta"] = meta
    if rec.comment is not None:
        out["comment"] = rec.comment
    # the moves replayed: those before a refusal, or the first `at` (eval --at)
    played = (r.error.index or 0) if r.error is not None else len(rec.moves) if at is None else at
    comments = [{"move": i, "comment": m.comment} for i, m in enumerate(rec.moves[:played]) if m.comment is not None]
    if comments:
        out["comments"] = comments
    if any(m.variations for m in rec.moves[:played]):
        from rebirth_dsl.records.record import replay

        game = replay(r.loaded, stop_at=0).game
        lines: list[dict[str, Any]] = []
        for i, m in enumerate(rec.moves[:played]):
            if m.variations:
                lines.append({"move": i, "lines": [_line(game, line, i) for line in m.variations]})
            _apply(game, m, i)
        out["variations"] = lines
    return out


def _apply(game: Game, m: MoveView, i: int) -> list[Any]:
    """Play a record's move on a game as replay does (its events), or raise the refusal."""
    rs = game.rs
    p = game.player_index(m.player, i)
    tile = rs.parse_tile(m.tile)
    h = None
    if m.hex is not None:
        h = game.t.index.get(m.hex)
        if h is None:
            raise IllegalMove(f"there is no hex ({m.hex[0]},{m.hex[1]}) on the board",
                              rs.cites.one_tile[0] if rs.cites.one_tile else "the one-tile rule", i)
    return game.play(p, tile, h, i, m.choices)


def _line(before: Game, line: list[MoveView], at: int) -> dict[str, Any]:
    """One variation played on a copy of the game: each move with its points and comment, nested variations,
    and the refusal that stops it if one does."""
    g = before.clone()
    g.events = []
    moves: list[dict[str, Any]] = []
    out: dict[str, Any] = {"moves": moves}
    for j, m in enumerate(line):
        entry: dict[str, Any] = {"player": m.player, "tile": m.tile, "hex": list(m.hex) if m.hex else None}
        if m.comment is not None:
            entry["comment"] = m.comment
        if m.variations:
            entry["variations"] = [_line(g, sub, at + j) for sub in m.variations]
        try:
            events = _apply(g, m, at + j)
        except (IllegalMove, RebirthError) as e:
            # the refusal's own words, without the record index and rule id its message carries
            text = re.sub(r"^move \d+: ", "", e.diagnostics[0].message).rsplit(" (", 1)[0]
            entry["refused"] = {"rule": getattr(e, "rule", None), "message": text}
            out["error"] = {"move": j, **entry["refused"]}
            moves.append(entry)
            break
        entry["points"] = {g.players[q]: sum(e.points for e in events if e.player == q)
                           for q in sorted({e.player for e in events if e.points})}
        moves.append(entry)
    out["scores"] = {name: g.track[q] for q, name in enumerate(g.players)}
    return out


def render_annotated(result: dict[str, Any]) -> str:
    """eval --explain as text: metadata and the game's comment first, then the events of each move with the
    move's comment and variations after them, then the end-of-game events."""
    out: list[str] = []
    meta = result.get("meta") or {}
    if meta:
        out.append("  " + "; ".join(f"{k}: {', '.join(f'{a} = {b}' for a, b in v.items()) if isinstance(v, dict) else ', '.join(v) if isinstance(v, list) else v}"
                                     for k, v in meta.items()))
    if result.get("comment"):
        out.extend("  " + ln for ln in str(result["comment"]).splitlines())
    comments = {c["move"]: c["comment"] for c in result.get("comments", [])}
    variations = {v["move"]: v["lines"] for v in result.get("variations", [])}
    events = result.get("events", [])
    by_move: dict[int | None, list[dict[str, Any]]] = {}
    for ev in events:
        by_move.setdefault(ev["move"], []).append(ev)
    moves = sorted({m for m in by_move if m is not None} | set(comments) | set(variations))
    for i in moves:
        for ev in by_move.get(i, []):
            out.append(_event(ev))
        if i in comments:
            where = f"move {i}"
            out.extend(f"  [{where if not k else '':>8}] {'note' if not k else '':>4} {ln}"
                       for k, ln in enumerate(str(comments[i]).splitlines()))
        for k, line in enumerate(variations.get(i, [])):
            out.extend(_render_line(line, f"move {i}, variation {k + 1}", 1))
    for ev in by_move.get(None, []):
        out.append(_event(ev))
    return "\n".join(out) + "\n"


def _event(ev: dict[str, Any]) -> str:
    where = "end" if ev["move"] is None else f"move {ev['move']}"
    ids = ", ".join(ev["rules"])
    return f"  [{where:>8}] {ev['points']:>+4} {ev['category']:<16} {ev['text']}  ({ids})"


def _render_line(line: dict[str, Any], title: str, depth: int) -> list[str]:
    pad = "    " * depth
    out = [f"{pad}{title}:"]
    for m in line["moves"]:
        hx = f"({m['hex'][0]},{m['hex'][1]})" if m["hex"] else "pass"
        pts = ", ".join(f"{who} {v:+}" for who, v in (m.get("points") or {}).items()) or "no points"
        if "refused" in m:
            pts = f"refused: {m['refused']['message']} ({m['refused']['rule']})"
        out.append(f"{pad}  {m['player']} {m['tile']} {hx}: {pts}" + (f"  -- {m['comment']}" if m.get("comment") else ""))
        for k, sub in enumerate(m.get("variations", [])):
            out.extend(_render_line(sub, f"instead, variation {k + 1}", depth + 1))
    if "error" in line:
        out.append(f"{pad}  the line stops at its move {line['error']['move'] + 1}: nothing after it is played")
    out.append(f"{pad}  scores after it: " + ", ".join(f"{k} {v}" for k, v in line["scores"].items()))
    return out

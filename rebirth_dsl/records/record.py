"""Game records: JSON validated by a schema, turned into a Setup, replayed move by move."""

from __future__ import annotations

import os
from _thread import allocate_lock  # threading itself is not imported by a warm `rebirth eval`
from collections import OrderedDict
from pathlib import Path

from rebirth_dsl import TYPE_CHECKING, cache
from rebirth_dsl.board.view import BoardView, load_board_view
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import Diagnostic, IllegalMove, RebirthError, did_you_mean
from rebirth_dsl.files import read_bytes, read_text, shown, write_text_atomic
from rebirth_dsl.lang.limits import MAX_RULES_BYTES
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.records.resources import bundled, bundled_file, is_name
from rebirth_dsl.records.view import RecordView, record_view
from rebirth_dsl.runtime.game import Game
from rebirth_dsl.runtime.setup import Setup, colour_tiles, deal
from rebirth_dsl.shared_methods import Record, record

if TYPE_CHECKING:
    from typing import Any

    from rebirth_dsl.records.models import GameRecord


@record
class Loaded(Record):
    """A record with its compiled ruleset and board."""

    record: RecordView  # the record as validated by records.models.GameRecord, as plain data
    rs: Ruleset
    board: BoardView  # the board as validated by board.model.Board, as plain data
    base: Path
    file: str = ""
    notation: bool = False  # read from the notation itself: its errors name that file, not a record's JSON path
    deal_seed: int | None = None  # a position's unknown parts are dealt with this seed (None: refused)
    dealt: list[str] | None = None  # what was dealt, in words


# Compiled rulesets of this process, by content: an edited rules file (or a file it extends, or the board) is
# a new key, so a long-running server or API user sees the edit at the next load. Bounded, used-last kept.
MAX_RULESETS = 32
# content key -> (ruleset, board, the SHA-256 of the texts and board bytes it was compiled from)
_CACHE: OrderedDict[str, tuple[Ruleset, BoardView, str]] = OrderedDict()
# (rules, board) as absolute paths -> (their resolved paths, the files of the extends chain, root first):
# which files to read to recompute the content key without parsing
_FILES: OrderedDict[tuple[str, str], tuple[tuple[str, str], tuple[str, ...]]] = OrderedDict()
_LOCK = allocate_lock()  # the web server loads from several threads


def resolve(base: Path, rel: str, folder: str = "rules", allow_paths: bool = False, file: str = "") -> Path:
    """A rules or board file a record names: a bundled name (`scotland`), or a path relative to the
    record's folder. Records are exchanged between people, so a path that leads outside the record's own
    folder is refused unless the user allows it (`--allow-paths`)."""
    if is_name(rel):
        found = bundled_file(folder, rel)
        return found if found is not None else _unknown(folder, rel)
    p = Path(rel)
    p = p if p.is_absolute() else base / p
    if not allow_paths:
        try:
            inside = p.resolve().is_relative_to(base.resolve())
        except (OSError, ValueError):
            inside = False
        if not inside:
            key = "rules" if folder == "rules" else "board"
            raise RebirthError.single(f"the record names {shown(rel)}, outside the record's folder; refused unless "
                                      "you allow it with --allow-paths (or give --rules/--board)",
                                      file=file, path=f"$.{key}")
    return p


def _unknown(folder: str, name: str) -> Path:
    what = "ruleset" if folder == "rules" else "board"
    dym = did_you_mean(name, list(bundled(folder)))
    raise RebirthError.single(f"the record names {name!r}, which is no bundled {what}"
                              + (f"; did you mean {dym!r}?" if dym else "")
                              + " (a file is named by a path ending in .rules or .json)")


def load_ruleset(rules_path: Path, board_path: Path) -> tuple[Ruleset, BoardView]:
    """Load and compile, once per content of the rules (with the files it extends) and board in this process."""
    rs, board, _ = load_ruleset_keyed(rules_path, board_path)
    return rs, board


def load_ruleset_keyed(rules_path: Path, board_path: Path) -> tuple[Ruleset, BoardView, str]:
    """load_ruleset, and the SHA-256 of the rules texts (the file and its extends chain) and the board bytes
    it was compiled from: equal digests, the same game rules."""
    where = (os.path.abspath(rules_path), os.path.abspath(board_path))
    with _LOCK:
        seen = _FILES.get(where)
    if seen is not None:  # reading a few KB and hashing them is what a hit costs: no parse, no compile
        resolved, chain = seen
        try:
            content = _content([read_text(f, "rules", MAX_RULES_BYTES) for f in chain], read_bytes(where[1], "JSON file"))
        except RebirthError:
            content = None  # gone or unreadable now: the full load below says why
        if content is not None:
            key = cache.digest(*resolved, content)
            with _LOCK:
                hit = _CACHE.get(key)
                if hit is not None:
                    _CACHE.move_to_end(key)
                    _FILES.move_to_end(where)
                    return hit
    raw = read_bytes(board_path, "JSON file")
    board = load_board_view(board_path)
    rules = load_rules(rules_path)
    root = shown(rules_path)
    # the chain as the parser read it: the root under the name it was given, bases under their resolved paths
    chain = (where[0], *(n for n in rules.sources if n != root))
    root_text = rules.sources.get(root)
    bases = [rules.sources[n] for n in chain[1:]]
    texts = [root_text, *bases]
    resolved = (str(Path(rules_path).resolve()), str(Path(board_path).resolve()))
    content = _content([root_text, *bases], raw) if root_text is not None else ""
    key = cache.digest(*resolved, content)
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None:  # the same files reached by another path: parsed again, but not compiled again
        entry = hit
    else:
        entry = (compile_rules(rules, board), board, content)
    if content and _unchanged(chain, texts, where[1], raw):  # else a file changed while being read: not kept
        with _LOCK:
            _CACHE[key] = entry
            _CACHE.move_to_end(key)
            _FILES[where] = (resolved, chain)
            _FILES.move_to_end(where)
            while len(_CACHE) > MAX_RULESETS:
                _CACHE.popitem(last=False)
            while len(_FILES) > MAX_RULESETS:
                _FILES.popitem(last=False)
    return entry


def _content(texts: list[str], board: bytes) -> str:
    """The SHA-256 of the rules texts in chain order and the board's bytes."""
    return cache.digest(*texts, board)


def _unchanged(chain: tuple[str, ...], texts: list[str | None], board: str, raw: bytes) -> bool:
    """The files read again hold what was compiled: the key recomputed from them finds this entry."""
    try:
        return [read_text(f, "rules", MAX_RULES_BYTES) for f in chain] == texts and read_bytes(board, "JSON file") == raw
    except RebirthError:
        return False


def ruleset_texts(rules_path: Path) -> dict[str, str]:
    """The text of the rules file and of every file it extends, by the name diagnostics give them (the
    deepest base first, the file itself last): what a compiled ruleset was made from."""
    return dict(load_rules(rules_path).sources)


def load_record(path: str | Path, data: Any = None, allow_paths: bool = False, rules: Path | None = None,
                board: Path | None = None) -> Loaded:
    """Read a record file (or given JSON data, with paths relative to `path`'s folder). The rules and board
    it names must be bundled or inside its folder, unless allow_paths (see `resolve`); `rules` and `board`
    replace the files it names."""
    file = shown(path)
    rec = record_view(path, file, data)
    base = Path(path).parent
    rules_path = rules or resolve(base, rec.rules, "rules", allow_paths, file)
    board_path = board or resolve(base, rec.board, "boards", allow_paths, file)
    rs, board_model = load_ruleset(rules_path, board_path)
    return Loaded(rec, rs, board_model, base, file)


def _tiles(rs: Ruleset, names: list[str], where: str) -> list[tuple[int, int]]:
    out = []
    for i, n in enumerate(names):
        try:
            out.append(rs.parse_tile(n))
        except RebirthError as e:
            raise RebirthError([Diagnostic(d.message, path=f"{where}[{i}]") for d in e.diagnostics]) from None
    return out


def make_setup(rec: RecordView | GameRecord, rs: Ruleset) -> Setup:
    """The Setup a record describes: explicit parts checked against the tile mix, the rest from the seed."""
    n = len(rec.players)
    s = rec.setup
    dealt = deal(rs, n, s.seed if s.seed is not None else 0)
    decks = dict(dealt.decks)
    first_deck = next(iter(rs.decks), None)
    if s.missions is not None and first_deck is not None:
        if s.decks and first_deck in s.decks:
            raise RebirthError.single(f"the {first_deck!r} deck is given twice, by `missions` and by `decks`: keep one",
                                      path="$.setup.missions")
        decks[first_deck] = list(s.missions)
    for name, cards in (s.decks or {}).items():
        decks[name] = list(cards)
    for name, cards in decks.items():
        known = {c.name for c in rs.decks.get(name, [])}
        for i, c in enumerate(cards):
            if c not in known:
                dym = did_you_mean(c, known)
                raise RebirthError.single(f"no card {c!r} in deck {name!r}" + (f"; did you mean {dym!r}?" if dym else ""),
                                          path=f"$.setup.decks.{name}[{i}]")
    for p in (s.set_aside or {}) | (s.supply or {}) | (s.scores or {}) | (s.missions_held or {}):
        if p not in rec.players:
            raise RebirthError.single(f"setup names {p!r}, who is not a player", path="$.setup")
    set_aside, supply = dealt.set_aside, dealt.supply
    if rec.scenario:
        set_aside = [[] for _ in range(n)]
        supply = [[] for _ in range(n)]
    if s.set_aside is not None or s.supply is not None:
        mix = sorted(colour_tiles(rs, n))
        for i, p in enumerate(rec.players):
            aside = _tiles(rs, (s.set_aside or {}).get(p, []), f"$.setup.set_aside.{p}")
            sup = _tiles(rs, (s.supply or {}).get(p, []), f"$.setup.supply.{p}")
            set_aside[i], supply[i] = aside, sup
            if rec.scenario:
                continue
            if len(aside) != rs.set_aside:
                raise SetupRefused(f"{p} sets aside {len(aside)} tiles; the rules say {rs.set_aside}",
                                   _first(rs.cites.set_aside, "the set-aside rule"), f"$.setup.set_aside.{p}")
            if sorted(aside + sup) != mix:
                have = _count(aside + sup, rs)
                want = _count(mix, rs)
                diff = ", ".join(f"{k}: {have.get(k, 0)} (expected {want.get(k, 0)})"
                                 for k in sorted(set(have) | set(want)) if have.get(k, 0) != want.get(k, 0))
                # Too many tiles where this player count returns some: the return rule is what was missed.
                returned = n in rs.returns and len(aside + sup) > len(mix)
                rule = _first(rs.cites.returns.get(n, ()), "the return rule") if returned else _first(
                    rs.cites.mix, "the tile mix")
                raise SetupRefused(f"{p}'s tiles do not match the tile mix for {n} players: {diff}", rule,
                                   f"$.setup.supply.{p}")
    scores = [(s.scores or {}).get(p, 0) for p in rec.players] if s.scores else None
    held = [list((s.missions_held or {}).get(p, [])) for p in rec.players] if s.missions_held else None
    all_cards = {c.name for cards in rs.decks.values() for c in cards}
    for p, cards in (s.missions_held or {}).items():  # scored at the end by name: an unknown one was a KeyError
        for i, c in enumerate(cards):
            if c not in all_cards:
                dym = did_you_mean(c, all_cards)
                raise RebirthError.single(f"no card {c!r} in the ruleset's decks" + (f"; did you mean {dym!r}?"
                                                                                        if dym else ""),
                                          path=f"$.setup.missions_held.{p}[{i}]")
    if (scores or held) and not rec.scenario:
        raise RebirthError.single("starting scores and held cards are for scenarios only", path="$.setup")
    return Setup(set_aside, supply, decks, scores, held)


class SetupRefused(IllegalMove):
    """A record whose setup breaks the setup rules (tile mix, returns, set-aside): refused before move 0."""

    def __init__(self, message: str, rule: str, path: str) -> None:
        super().__init__(message, rule, None)
        self.diagnostics[0].path = path


def _first(ids: tuple[str, ...], fallback: str) -> str:
    return ids[0] if ids else fallback


def _count(tiles: list[tuple[int, int]], rs: Ruleset) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in tiles:
        name = rs.tile_name(k, v)
        out[name] = out.get(name, 0) + 1
    return out


@record
class Replay(Record):
    """The result of replaying a record: the game as far as it got, and the refusal if one stopped it."""

    game: Game
    error: IllegalMove | None
    loaded: Loaded


def replay(loaded: Loaded, stop_at: int | None = None) -> Replay:
    """Apply the record's moves in order; stop at the first illegal one (nothing after it is applied)."""
    rec, rs = loaded.record, loaded.rs
    try:
        if rec.setup.position is not None:
            game = _from_position(loaded)
        else:
            game = Game(rs, rec.players, make_setup(rec, rs), scenario=rec.scenario)
    except RebirthError as e:
        for d in e.diagnostics:  # say which file a setup problem is in
            d.file = d.file or loaded.file
        raise
    moves = rec.moves if stop_at is None else rec.moves[:stop_at]
    game.declared_over = rec.scenario and rec.over and stop_at is None
    for i, m in enumerate(moves):
        try:
            where = f"$.moves[{i}].player"
            p = game.player_index(m.player, i)
            where = f"$.moves[{i}].tile"
            tile = rs.parse_tile(m.tile)
            h = None
            where = f"$.moves[{i}].hex"
            if m.hex is not None:
                hex_: tuple[int, int] = tuple(m.hex)  # type: ignore[assignment]  # a validated hex: two ints
                h = game.t.index.get(hex_)
                if h is None:
                    raise IllegalMove(f"there is no hex ({m.hex[0]},{m.hex[1]}) on the board",
                                      rs.cites.one_tile[0] if rs.cites.one_tile else "the one-tile rule", i)
            where = f"$.moves[{i}]"
            game.play(p, tile, h, i, m.choices)
        except IllegalMove as e:
            if e.index is None:
                e = IllegalMove(e.diagnostics[0].message.rsplit(" (", 1)[0], e.rule, i)
            e.diagnostics[0].path = where
            game.declared_over = False
            return Replay(game, e, loaded)
        except RebirthError as e:  # a tile the ruleset does not have
            game.declared_over = False
            err = IllegalMove(e.diagnostics[0].message, rs.cites.mix[0] if rs.cites.mix else "the tile mix", i)
            err.diagnostics[0].path = where
            return Replay(game, err, loaded)
    return Replay(game, None, loaded)


def _from_position(loaded: Loaded) -> Game:
    """The game a record's `setup.position` describes (records.position), its errors at the character of the
    notation with the record's JSON path; nothing else of the setup may be given beside it."""
    from rebirth_dsl.records.position import read_position, start_game  # notation: only records that hold one

    rec = loaded.record
    s = rec.setup
    others = [k for k in ("seed", "set_aside", "supply", "decks", "missions", "scores", "missions_held")
              if getattr(s, k) is not None]
    if others:
        raise RebirthError.single(f"a setup that starts from a position gives nothing else: {', '.join(others)} "
                                  "belong in the position", path=f"$.setup.{others[0]}")
    # a notation read as such (a .pos file, the text, stdin) is its own file; a record's is at its JSON path
    own = loaded.notation or (loaded.file != "" and not loaded.file.endswith(".json"))
    where = loaded.file if own else f"{loaded.file}: $.setup.position" if loaded.file else "$.setup.position"
    assert s.position is not None  # the caller's test
    pos = read_position(s.position, where)
    if pos.players != list(rec.players):
        raise pos.error("players", f"the position's players ({', '.join(pos.players)}) are not the record's "
                        f"({', '.join(rec.players)})")
    if pos.scenario != rec.scenario:
        raise pos.error("rules", "the position and the record disagree on `scenario`")
    if loaded.deal_seed is None or not pos.unknowns() and all(d in pos.decks for d in loaded.rs.decks):
        return start_game(pos, loaded.rs, loaded.board)
    from rebirth_dsl.records.position import complete_position

    game, loaded.dealt = complete_position(pos, loaded.rs, loaded.deal_seed)
    return game


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write JSON to a temp file beside the target, then rename: never a half-written file."""
    write_text_atomic(path, dumps(data) + "\n")


def dumps(data: Any, indent: int = 0, width: int = 110) -> str:
    """JSON with small objects and lists kept on one line (a move per line), the rest indented."""
    import json  # writing records only: `rebirth eval` reads its JSON with files.json_loads

    flat = json.dumps(data, ensure_ascii=False)
    if len(flat) + indent <= width or not isinstance(data, dict | list) or not data:
        return flat
    pad = " " * (indent + 2)
    if isinstance(data, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}" for k, v in data.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if all(not isinstance(v, dict | list) for v in data):  # scalars: fill lines, like prose
        lines, cur = [], ""
        for v in data:
            tok = json.dumps(v, ensure_ascii=False)
            if cur and len(pad) + len(cur) + len(tok) + 2 > width:
                lines.append(cur)
                cur = ""
            cur = f"{cur}, {tok}" if cur else tok
        lines.append(cur)
        return "[\n" + ",\n".join(pad + ln for ln in lines) + "\n" + " " * indent + "]"
    items = [pad + dumps(v, indent + 2, width) for v in data]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"

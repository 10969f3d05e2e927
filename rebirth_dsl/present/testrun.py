"""`rebirth test FILE`: play each position of a tests file (records/testfile.py) against its ruleset and
judge what it expects, as the reference positions in tests/positions/ are judged: every failure a
diagnostic at the line of the expectation it breaks, saying what was expected and what the game gives."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import Diagnostic, IllegalMove, RebirthError, Span, did_you_mean
from rebirth_dsl.files import read_text, shown
from rebirth_dsl.present.report import evaluate
from rebirth_dsl.records.record import SetupRefused, load_record, replay
from rebirth_dsl.records.resources import bundled, default_board, find, is_name
from rebirth_dsl.records.testfile import (
    CardsExpect,
    OwnerExpect,
    Position,
    PublicExpect,
    ScoreExpect,
    TestsFile,
    WinnersExpect,
    parse_tests,
)

MAX_TESTS_BYTES = 4 * 1024 * 1024  # a tests file is text an author writes; far past any real one


@dataclass
class Outcome:
    """One position's result: the failures found (none: it passed)."""

    position: Position
    failures: list[Diagnostic] = field(default_factory=list)
    origin: str | None = None  # the `positions from` name it was taken from; None: the file's own


def load_tests(path: Path) -> TestsFile:
    """Read and parse a tests file (problems raised with their file:line:col)."""
    return parse_tests(read_text(path, "tests file", MAX_TESTS_BYTES), shown(path))


def tests_path(text: str) -> Path:
    """A tests file as given, or a bundled ruleset's tests file by the ruleset's name (`scotland`)."""
    p = Path(text)
    if p.is_file() or not is_name(text) or text.endswith(".tests"):
        return p
    rules = bundled("rules")
    if text in rules and rules[text].with_suffix(".tests").is_file():
        return rules[text].with_suffix(".tests")
    have = [n for n, f in rules.items() if f.with_suffix(".tests").is_file()]
    dym = did_you_mean(text, have)
    raise RebirthError.single(f"{text}: no such file, and no bundled ruleset of that name has a tests file"
                              + (f"; did you mean {dym!r}?" if dym else "")
                              + (f" (those that do: {', '.join(have)})" if have else ""))


def _locate(base: Path, text: str, folder: str) -> Path:
    """A rules or board file a tests file names: a bundled name, or a path relative to the tests file."""
    if is_name(text):
        return find(folder, text)
    p = Path(text)
    return p if p.is_absolute() else base / p


def _at(span: Span, message: str, source: str, hint: str | None = None) -> Diagnostic:
    lines = source.split("\n")
    return Diagnostic(message, file=span.file, line=span.line, col=span.col, end_line=span.end_line,
                      end_col=span.end_col, source_line=lines[span.line - 1] if span.line <= len(lines) else None,
                      hint=hint, code="tests-failure")


def run_tests(path: Path, rules: Path | None = None, board: Path | None = None) -> list[Outcome]:
    """Every position of the tests file at `path`, played and judged; `rules` and `board` replace the
    files the tests file names."""
    tf = load_tests(path)
    out = []
    for name, span in tf.includes:  # the base's positions, against this file's rules (theirs are replaced)
        try:
            beside = path.parent / name  # a file beside this one first, then a bundled ruleset's by its name
            inc_path = tests_path(name) if is_name(name) and not beside.is_file() else beside
            inc = load_tests(inc_path)
        except RebirthError as e:
            raise RebirthError([_at(span, f"positions from {name!r}: {d.message}", tf.source) for d in e.diagnostics]
                               ) from None
        own = rules
        if own is None and tf.rules is not None:
            own = _locate(path.parent, tf.rules[0], "rules")
        # their boards are found beside the file they are written in; the positions it takes from others in
        # turn are not followed (one level: a base's own positions)
        for p in inc.positions:
            taken = run_position(inc, inc_path.parent, p, own or None, board)
            taken.origin = name
            out.append(taken)
    return out + [run_position(tf, path.parent, p, rules, board) for p in tf.positions]


def run_position(tf: TestsFile, base: Path, pos: Position, rules: Path | None = None,
                 board: Path | None = None) -> Outcome:
    """One position, played and judged."""
    out = Outcome(pos)

    def fail(span: Span, message: str, hint: str | None = None) -> None:
        out.failures.append(_at(span, f"position {pos.name!r} (line {pos.span.line}): {message}", tf.source, hint))

    named = pos.rules or tf.rules
    if rules is None:
        if named is None:
            fail(pos.span, "no ruleset: name one with `rules \"FILE\"` at the top of the file (or give --rules)")
            return out
        rules = _locate(base, named[0], "rules")
    if board is None:
        where = pos.board or tf.board
        if where is not None:
            board = _locate(base, where[0], "boards")
    try:
        data = _record(pos, base, named[0] if named else "", fail)
        if data is None:
            return out
        rec_path = base / "position.json" if pos.record is None else base / pos.record[0]
        if board is None and pos.record is None:  # a record file names its own board
            board = default_board(rules)
            if board is None:
                fail(pos.span, f"no board: {shown(rules)} has no bundled board; name one with `board \"FILE\"`")
                return out
        loaded = load_record(rec_path, data, allow_paths=True, rules=rules, board=board)
    except RebirthError as e:
        if not any(d.file.endswith(".rules") for d in e.diagnostics):  # the ruleset itself: not this position's
            for d in e.diagnostics:
                in_file = f" ({d.file})" if d.file and not d.path else ""
                fail(_span_of(pos, d.path, pos.board or tf.board), d.message + in_file)
            return out
        raise
    try:
        r = replay(loaded)
    except SetupRefused as e:
        if pos.setup_refused is None:
            fail(_setup_span(pos), f"the setup is refused: {e.diagnostics[0].message}")
        elif e.rule != pos.setup_refused[0]:
            fail(pos.setup_refused[1], f"expected the setup refused by {pos.setup_refused[0]}, got "
                 f"{e.rule}: {e.diagnostics[0].message}")
        return out
    except RebirthError as e:
        for d in e.diagnostics:
            fail(_span_of(pos, d.path), d.message)
        return out
    if pos.setup_refused is not None:
        fail(pos.setup_refused[1], f"expected the setup refused by {pos.setup_refused[0]}, but the game starts")
        return out
    _judge_moves(pos, r.error, fail)
    _judge_expects(pos, r.game, fail)
    return out


def _record(pos: Position, base: Path, rules_name: str, fail: Any) -> dict[str, Any] | None:
    """The game record the position describes (a record file's, when it starts from one)."""
    if pos.record is not None:
        rec_file = base / pos.record[0]
        try:
            data = json.loads(read_text(rec_file, "game record"))
        except (RebirthError, ValueError) as e:
            fail(pos.record[1], f"cannot read the record {shown(rec_file)}: {e}")
            return None
        if not isinstance(data, dict):
            fail(pos.record[1], f"{shown(rec_file)} is not a game record (a JSON object)")
            return None
        if pos.over:
            data["over"] = True
        return data
    if not pos.players:
        fail(pos.span, "no players: list them with `players Ann, Bob`")
        return None
    data = {"rules": rules_name or "-", "board": "-", "players": pos.players, "setup": pos.setup,
            "moves": [m.data for m in pos.moves], "scenario": pos.scenario, "over": pos.over}
    return data


def _span_of(pos: Position, path: str, board: tuple[str, Span] | None = None) -> Span:
    """The line a record problem (named by its JSON path) comes from."""
    if path.startswith("$.moves["):
        i = int(path[len("$.moves["):].split("]")[0])
        if i < len(pos.moves):
            return pos.moves[i].span
    if path.startswith("$.setup"):
        key = path[len("$.setup."):].split(".")[0].split("[")[0]
        if key in pos.setup_spans:
            return pos.setup_spans[key]
        return _setup_span(pos)
    if path.startswith("$.players") and pos.players_span is not None:
        return pos.players_span
    if pos.record is not None:
        return pos.record[1]
    return board[1] if board is not None and not path else pos.span


def _setup_span(pos: Position) -> Span:
    return next(iter(pos.setup_spans.values()), pos.players_span or pos.span)


def _judge_moves(pos: Position, error: IllegalMove | None, fail: Any) -> None:
    """A refused move must be the one the file says, by the rule it says; any other refusal fails."""
    want = next(((i, m) for i, m in enumerate(pos.moves) if m.refused is not None), None)
    if error is None:
        if want is not None:
            fail(want[1].span, f"expected this move refused by {want[1].refused}, but it is played")
        return
    msg = error.diagnostics[0].message
    at = pos.moves[error.index].span if error.index is not None and error.index < len(pos.moves) else pos.span
    if want is None:
        fail(at, f"the move is refused: {msg}", "if it should be, end the line with `refused "
             f"{error.rule}`")
    elif want[0] != error.index:
        fail(want[1].span, f"expected this move refused by {want[1].refused}, but an earlier move is: {msg}")
    elif want[1].refused != error.rule:
        fail(at, f"expected the move refused by {want[1].refused}, got {error.rule}: {msg}")


def _judge_expects(pos: Position, game: Any, fail: Any) -> None:
    """Each `expect` line against the position as the game scores it."""
    result = evaluate(game)
    players: dict[str, dict[str, Any]] = {p["name"]: p for p in result["players"]}
    categories = list(game.rs.categories)

    def player(name: str, span: Span) -> dict[str, Any] | None:
        if name not in players:
            dym = did_you_mean(name, list(players))
            fail(span, f"{name!r} is not a player of this position" + (f"; did you mean {dym!r}?" if dym else "")
                 + f" (players: {', '.join(players)})")
            return None
        return players[name]

    for ex in pos.expects:
        if isinstance(ex, ScoreExpect):
            got = player(ex.player, ex.span)
            if got is None:
                continue
            wrong = []
            if ex.total is not None and got["score"] != ex.total:
                wrong.append(f"expected score {ex.total}, got {got['score']}")
            for cat, pts in ex.categories.items():
                if cat not in categories:
                    dym = did_you_mean(cat, categories)
                    fail(ex.span, f"{cat!r} is not a category of this ruleset"
                         + (f"; did you mean {dym!r}?" if dym else "") + f" (categories: {', '.join(categories)})")
                    continue
                have = got["breakdown"].get(cat, 0)
                if have != pts:
                    wrong.append(f"expected {cat} {pts}, got {have}")
            if wrong:
                shown_cats = ", ".join(f"{c} {v}" for c, v in got["breakdown"].items() if v)
                fail(ex.span, f"{ex.player}: " + "; ".join(wrong),
                     f"{ex.player} has {got['score']}" + (f" ({shown_cats})" if shown_cats else ""))
        elif isinstance(ex, OwnerExpect):
            t = game.t
            kinds = {t.landmark_name[lm]: t.landmark_kind[lm] for lm in range(len(t.landmark_name))}
            if ex.name not in result["castles"]:
                held = [n for n in result["castles"] if kinds.get(n) == ex.kind] or list(result["castles"])
                dym = did_you_mean(ex.name, held)
                fail(ex.span, f"no {ex.kind} {ex.name!r} held by majority on this board"
                     + (f"; did you mean {dym!r}?" if dym else "") + (f" ({', '.join(held)})" if held else ""))
            elif kinds.get(ex.name) != ex.kind:
                fail(ex.span, f"{ex.name!r} is a {kinds.get(ex.name)}, not a {ex.kind}")
            elif ex.owner is not None and ex.owner not in players:
                player(ex.owner, ex.span)
            elif result["castles"][ex.name] != ex.owner:
                fail(ex.span, f"{ex.kind} {ex.name!r}: expected held by {ex.owner or 'nobody'}, got "
                     f"{result['castles'][ex.name] or 'nobody'}")
        elif isinstance(ex, WinnersExpect):
            if not result["finished"]:
                fail(ex.span, "winners: the game is not over (add `over` to score it as a finished game)")
            elif sorted(result["winners"]) != sorted(ex.names):
                fail(ex.span, f"expected winners {', '.join(ex.names)}, got {', '.join(result['winners']) or 'none'}")
        elif isinstance(ex, PublicExpect):
            public = result.get("public_missions", {})
            if ex.card not in public:
                dym = did_you_mean(ex.card, list(public))
                fail(ex.span, f"{ex.card!r} is not a face-up public mission" + (
                    f"; did you mean {dym!r}?" if dym else "") + (f" (face up: {', '.join(public)})" if public
                                                                   else " (this game has none)"))
            elif public[ex.card] != ex.names:
                fail(ex.span, f"public mission {ex.card!r}: expected fulfilled by {', '.join(ex.names) or 'none'}, "
                     f"got {', '.join(public[ex.card]) or 'none'} (in the order they fulfilled it)")
        elif isinstance(ex, CardsExpect):
            got = player(ex.player, ex.span)
            if got is not None and sorted(got["cards"]) != sorted(ex.cards):
                have = ", ".join(f'"{c}"' for c in got["cards"]) or "none"
                want = ", ".join(f'"{c}"' for c in ex.cards) or "none"
                fail(ex.span, f"{ex.player}: expected cards {want}, got {have}")


def summary(path: Path, outcomes: list[Outcome]) -> str:
    """How many positions passed, or how many failed, last; before it, for each `positions from` file with
    failures, a note that they are what this file's rules change of that base's reference positions."""
    failed = sum(1 for o in outcomes if o.failures)
    n = len(outcomes)
    if failed:
        notes = []
        for origin in dict.fromkeys(o.origin for o in outcomes if o.failures and o.origin):
            k = sum(1 for o in outcomes if o.origin == origin and o.failures)
            total = sum(1 for o in outcomes if o.origin == origin)
            notes.append(f"note: {k} of the {total} positions from {origin!r} fail against these rules: each shows "
                         f"what they change of {origin!r}; once each is what you meant, drop `positions from "
                         f"\"{origin}\"` or keep its positions you still expect to hold")
        return "\n".join([*notes, f"{shown(path)}: {failed} of {n} position{'s' if n != 1 else ''} failed"])
    return f"{shown(path)}: {n} position{'s' if n != 1 else ''} passed"

"""A naive scoring oracle for Rebirth game records, written from shared/RULES.md only.

This module never imports (nor was it written by reading) the engine package `rebirth_dsl`. It is a
test-side re-statement of the rules: plain dicts and sets, breadth-first searches recomputed from
scratch after every move, no union-find and no incremental counters, so that it is slow but obviously
right. Its inputs are a game record and the board JSON it names (docs/formats.md); the rules file is
read as text only to learn which ruleset it is (`ruleset NAME`) and how many neutral tiles a 2-player
game uses (`players 2: neutral N on TAG`).

Covered: farms (S-F1), harbours (S-H1) or Ireland's wind collectors (I-H1), areas completed during play
(S-A1..S-A4, I-A1), incomplete areas at the end (S-E1), castles held at the end (S-E2) with castle
majorities (S-K1..S-K5), starting track points of a scenario, and the winner (S-E4 / I-E2).
Not covered: mission cards (S-M*, S-E3, I-M1, I-E1's privatised card) and round-tower abilities (I-R1);
their points can be passed in as `extra` so the winner can still be decided. Turn order, supply and
tower-choice checks (S-T1, I-R1) are not made; placement legality (S-P1..S-P5) is.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Hex = tuple[int, int]

# The project root (tests/oracle/naive.py -> ../..), where the bundled games' rules/ and boards/ live.
PROJECT = Path(__file__).resolve().parents[2]

# The six axial neighbours of a hex (docs/formats.md).
NEIGHBOUR_STEPS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

# Hex kinds a tile may go on (S-P1: castles, cathedrals, round towers and sea never take a tile).
PLACEABLE_KINDS = frozenset({"plain", "food", "energy", "settlement"})
FARM_KINDS = ("food", "energy")  # S-F1: the two farm kinds, never mixed in a group

# S-P2 / S-P3: where each farm goes, and where it may fall back to when none of those is free.
FARM_HOMES = {"food": ("food", "plain"), "energy": ("energy", "plain")}
FARM_FALLBACK = {"food": ("energy",), "energy": ("food",)}

HARBOUR_POINTS = 1  # S-H1 (Scotland)
WIND_POINTS = 1  # I-H1 (Ireland: replaces harbours)
CASTLE_POINTS = 5  # S-E2
# S-A3: payouts by area size, first place first; size 1 pays the tile's influence instead.
AREA_PAYOUTS = {2: (5, 3), 3: (8, 5, 0)}
IRELAND_AREA_PAYOUTS = {4: (12, 8, 5)}  # I-A1
IRELAND_AREA_PAYOUTS_2P = {4: (17, 8)}  # I-A1, 2-player game

SCOTLAND_CATEGORIES = ("farms", "harbours", "areas", "incomplete_areas", "castles")
IRELAND_CATEGORIES = ("farms", "wind", "areas", "incomplete_areas", "castles")
# Categories whose points this oracle does not compute (they go into `extra`).
SCOTLAND_UNCOVERED = ("missions",)
IRELAND_UNCOVERED = ("missions", "public_missions", "towers")

STIRLING = "Stirling"  # S-E4: the second tie-break castle, by name
HILL_OF_TARA = "Hill of Tara"  # I-E2: the second tie-break tower, by name


class OracleError(Exception):
    """The record is outside what the oracle understands (unknown ruleset, bad tile name, ...)."""


class OracleRefusal(OracleError):
    """A move breaks a placement rule (S-P1..S-P5); `rule` is the rule id, `index` the 0-based move."""

    def __init__(self, rule: str, index: int, message: str) -> None:
        super().__init__(f"move {index}: {rule}: {message}")
        self.rule = rule
        self.index = index


@dataclass
class Tile:
    """A tile on the board: its owner (None for a neutral tile, S-U2), kind and influence."""

    owner: str | None
    kind: str  # food, energy, settlement, or neutral
    influence: int = 0


@dataclass
class OracleResult:
    """What the oracle computes for a record."""

    ruleset: str
    players: list[str]
    categories: tuple[str, ...]
    uncovered: tuple[str, ...]
    points: dict[str, dict[str, int]]  # player -> category -> points, every covered category present
    start: dict[str, int]  # scenario starting track points (setup.scores)
    castles: dict[str, str | None]  # castle name -> owner
    groups: dict[tuple[str, str], list[list[Hex]]]  # (player, farm kind) -> groups, each a sorted hex list
    over: bool  # end-of-game scoring (S-E1, S-E2) was applied
    clover_owner: str | None
    stirling_owner: str | None
    tara_counts: dict[str, int]  # Ireland: tiles per player next to the Hill of Tara (I-E2)
    passes: int
    log: list[str] = field(default_factory=list)
    neutral: list[Hex] = field(default_factory=list)  # S-U2: the hexes under neutral tiles, sorted
    area_winners: dict[str, str] = field(default_factory=dict)  # completed area -> its first place (S-A2)

    def total(self, player: str, extra: dict[str, int] | None = None) -> int:
        """A player's score: start + covered categories + `extra` (uncovered points)."""
        return self.start[player] + sum(self.points[player].values()) + (extra or {}).get(player, 0)

    def winners(self, extra: dict[str, int] | None = None) -> list[str]:
        """The winner(s) by S-E4 (Scotland) or I-E2 (Ireland), in seat order."""
        totals = {p: self.total(p, extra) for p in self.players}
        best = max(totals.values())
        tied = [p for p in self.players if totals[p] == best]
        if len(tied) == 1:
            return tied
        # S-E4 / I-E2: the clover castle decides only among the tied players.
        if self.clover_owner in tied:
            return [self.clover_owner]
        if self.ruleset == "scotland":
            # S-E4: Stirling's owner wins even when not among the tied; nobody owns it: shared win.
            return [self.stirling_owner] if self.stirling_owner is not None else tied
        # I-E2: the player with strictly the most tiles around the Hill of Tara wins, even if not tied.
        most = max(self.tara_counts.values(), default=0)
        leaders = [p for p in self.players if self.tara_counts.get(p, 0) == most]
        if most > 0 and len(leaders) == 1:
            return leaders
        return tied


def neighbours(h: Hex) -> list[Hex]:
    """The six axial neighbours of a hex (whether or not they are on the board)."""
    return [(h[0] + dq, h[1] + dr) for dq, dr in NEIGHBOUR_STEPS]


def parse_tile(name: str) -> tuple[str, int]:
    """`food` / `energy` / `settlement:N` -> (kind, influence)."""
    if name in FARM_KINDS:
        return name, 0
    m = re.fullmatch(r"settlement:([1-9][0-9]*)", name)
    if not m:
        raise OracleError(f"unknown tile {name!r}")
    return "settlement", int(m.group(1))


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def read_ruleset(rules_path: Path) -> tuple[str, int | None, str | None]:
    """(ruleset name, neutral tile count, neutral tag) from the rules text, following `extends`."""
    text = rules_path.read_text(encoding="utf-8")
    name = None
    parent = None
    neutral: tuple[int, str] | None = None
    for raw in text.splitlines():
        line = _strip_comment(raw)
        m = re.match(r"ruleset\s+(\S+)(?:.*\bextends\s+\"([^\"]+)\")?", line)
        if m and name is None:
            name, parent = m.group(1), m.group(2)
        m = re.search(r"players\s+2\s*:\s*neutral\s+(\d+)\s+on\s+(\w+)", line)
        if m:
            neutral = (int(m.group(1)), m.group(2))
    if name is None:
        raise OracleError(f"{rules_path}: no `ruleset` line")
    if neutral is None and parent is not None:
        # Ireland states only what differs: the 2-player neutral tiles come from Scotland.
        _, count, tag = read_ruleset(rules_path.parent / parent)
        return name, count, tag
    return name, (neutral[0] if neutral else None), (neutral[1] if neutral else None)


def load_board(path: Path) -> dict[Hex, dict[str, Any]]:
    """The board JSON as {(q, r): {kind, tags, area, name}}."""
    data = json.loads(path.read_text(encoding="utf-8"))
    board: dict[Hex, dict[str, Any]] = {}
    for h in data["hexes"]:
        board[(h["q"], h["r"])] = {
            "kind": h["kind"],
            "tags": set(h.get("tags", [])),
            "area": h.get("area"),
            "name": h.get("name"),
        }
    return board


def farm_group(tiles: dict[Hex, Tile], start: Hex) -> set[Hex]:
    """The group of `start` by breadth-first search: same owner, same farm kind, adjacent (S-F1)."""
    owner, kind = tiles[start].owner, tiles[start].kind
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        for n in neighbours(h):
            t = tiles.get(n)
            if n not in seen and t is not None and t.owner == owner and t.kind == kind:
                seen.add(n)
                queue.append(n)
    return seen


def legal_hexes(board: dict[Hex, dict[str, Any]], tiles: dict[Hex, Tile], kind: str) -> set[Hex]:
    """Every hex a tile of `kind` may go on now (S-P1..S-P4)."""
    free = {h for h, info in board.items() if info["kind"] in PLACEABLE_KINDS and h not in tiles}
    if kind == "settlement":
        return {h for h in free if board[h]["kind"] == "settlement"}  # S-P4
    home = {h for h in free if board[h]["kind"] in FARM_HOMES[kind]}  # S-P2
    if home:
        return home
    return {h for h in free if board[h]["kind"] in FARM_FALLBACK[kind]}  # S-P3


def refusal_rule(board: dict[Hex, dict[str, Any]], tiles: dict[Hex, Tile], kind: str, h: Hex | None) -> str:
    """The rule a placement of `kind` on `h` (None: a pass) breaks, or '' if it is legal."""
    legal = legal_hexes(board, tiles, kind)
    if h is None:
        return "S-P5" if legal else ""
    if h in legal:
        return ""
    if h not in board or board[h]["kind"] not in PLACEABLE_KINDS or h in tiles:
        return "S-P1"
    target = board[h]["kind"]
    if kind == "settlement":
        return "S-P4"
    if target in FARM_FALLBACK[kind]:
        return "S-P3"  # the other farm symbol while a home hex is still free
    return "S-P2"


def area_hexes(board: dict[Hex, dict[str, Any]]) -> dict[str, list[Hex]]:
    """Settlement areas: name -> hexes."""
    areas: dict[str, list[Hex]] = {}
    for h, info in sorted(board.items()):
        if info["kind"] == "settlement" and info["area"] is not None:
            areas.setdefault(info["area"], []).append(h)
    return areas


def area_influence(players: list[str], hexes: list[Hex], tiles: dict[Hex, Tile]) -> dict[str, int]:
    """Each player's influence in an area: the icons of their tiles there (S-A1; neutral tiles none, S-A4)."""
    influence = {p: 0 for p in players}
    for h in hexes:
        t = tiles.get(h)
        if t is not None and t.owner is not None:
            influence[t.owner] += t.influence
    return influence


def rank_area(players: list[str], hexes: list[Hex], tiles: dict[Hex, Tile], completer: str) -> list[str]:
    """The players with influence in a completed area, best first (S-A1, S-A2)."""
    influence = area_influence(players, hexes, tiles)
    ranked = [p for p in players if influence[p] > 0]  # S-A1: 0 influence does not rank
    seat = players.index(completer)

    def clockwise_from_completer(p: str) -> int:
        return (players.index(p) - seat) % len(players)

    # S-A2: most influence first; the completer loses every tie; then clockwise after the completer.
    ranked.sort(key=lambda p: (-influence[p], p == completer, clockwise_from_completer(p)))
    return ranked


def area_payout(ruleset: str, size: int, n_players: int) -> tuple[int, ...]:
    """Points by place for a completed area of `size` hexes (S-A3, I-A1)."""
    if ruleset == "ireland" and size in IRELAND_AREA_PAYOUTS:
        return (IRELAND_AREA_PAYOUTS_2P if n_players == 2 else IRELAND_AREA_PAYOUTS)[size]
    if size in AREA_PAYOUTS:
        return AREA_PAYOUTS[size]
    raise OracleError(f"no payout for a settlement area of size {size} in {ruleset}")


def score_area(
    ruleset: str, players: list[str], hexes: list[Hex], tiles: dict[Hex, Tile], completer: str
) -> dict[str, int]:
    """Points each player takes when an area is completed by `completer` (S-A1..S-A4, I-A1)."""
    influence = {p: 0 for p in players}
    for h in hexes:
        t = tiles[h]
        if t.owner is not None:  # S-A4: neutral tiles hold no influence
            influence[t.owner] += t.influence
    if len(hexes) == 1:
        # S-A3 size 1: the tile's influence, to its owner (a neutral tile pays nobody).
        return {p: v for p, v in influence.items() if v > 0}
    ranked = rank_area(players, hexes, tiles, completer)
    pay = area_payout(ruleset, len(hexes), len(players))
    if len(ranked) == 1:
        return {ranked[0]: pay[0] + pay[1]}  # S-A3 / I-A1: alone takes first + second
    return {p: (pay[i] if i < len(pay) else 0) for i, p in enumerate(ranked)}


def castle_check(tiles: dict[Hex, Tile], castle: Hex, owner: str | None, placer: str) -> str | None:
    """The castle's owner after `placer` placed next to it (S-K2..S-K5)."""
    if owner is None:
        return placer  # S-K2
    if owner == placer:
        return owner

    def count(player: str, farms_only: bool) -> int:
        n = 0
        for h in neighbours(castle):
            t = tiles.get(h)
            if t is not None and t.owner == player and (not farms_only or t.kind in FARM_KINDS):
                n += 1
        return n

    mine, theirs = count(placer, False), count(owner, False)  # S-K3: all kinds
    if mine != theirs:
        return placer if mine > theirs else owner
    mine, theirs = count(placer, True), count(owner, True)  # S-K4: farms only
    if mine > theirs:
        return placer
    return owner  # S-K4 fewer farms, or S-K5 the final tie: the owner keeps it


def is_over(record: dict[str, Any]) -> bool:
    """Whether the record is a finished game (scenario `over`, or S-T2: every supply tile played)."""
    if record.get("scenario"):
        return bool(record.get("over"))
    supply = record.get("setup", {}).get("supply")
    if not supply:
        raise OracleError("a played record must give its supply in full")
    for p in record["players"]:
        mine = [m for m in record["moves"] if m["player"] == p]
        # I-R1 "take": a set-aside tile joins the hand, so one more move than the supply holds.
        taken = sum(
            1
            for m in mine
            for answer in (m.get("choices") or {}).values()
            if isinstance(answer, dict) and "take" in answer
        )
        if len(mine) < len(supply.get(p, [])) + taken:
            return False
    return True


def resolve(value: str, record_dir: Path, folder: str, suffix: str) -> Path:
    """A record's `rules` / `board`: a bundled game's name (`scotland`), or a path relative to the record."""
    if value.endswith(suffix):
        return (record_dir / value).resolve()
    return PROJECT / folder / f"{value}{suffix}"  # docs/formats.md: rules/NAME.rules, boards/NAME.json


def score_record(record: dict[str, Any], record_dir: Path, check: bool = True) -> OracleResult:
    """Replay a record's moves naively and score every covered category (see the module docstring)."""
    rules_path = resolve(record["rules"], record_dir, "rules", ".rules")
    board_path = resolve(record["board"], record_dir, "boards", ".json")
    ruleset, neutral_count, neutral_tag = read_ruleset(rules_path)
    if ruleset not in ("scotland", "ireland"):
        raise OracleError(f"the oracle knows Scotland and Ireland only, not {ruleset!r}")
    board = load_board(board_path)
    players: list[str] = list(record["players"])
    categories = SCOTLAND_CATEGORIES if ruleset == "scotland" else IRELAND_CATEGORIES
    uncovered = SCOTLAND_UNCOVERED if ruleset == "scotland" else IRELAND_UNCOVERED
    bonus_tag, bonus_category, bonus_points = (
        ("harbour", "harbours", HARBOUR_POINTS) if ruleset == "scotland" else ("wind", "wind", WIND_POINTS)
    )
    points = {p: dict.fromkeys(categories, 0) for p in players}
    log: list[str] = []
    tiles: dict[Hex, Tile] = {}

    # S-U2: in a 2-player game neutral tiles cover every hex carrying the rules' neutral tag.
    if len(players) == 2 and neutral_count is not None:
        marked = sorted(h for h, info in board.items() if neutral_tag in info["tags"])
        if len(marked) > neutral_count:
            raise OracleError(
                f"{len(marked)} hexes tagged {neutral_tag}, but only {neutral_count} neutral tiles"
            )
        for h in marked:
            tiles[h] = Tile(None, "neutral")

    areas = area_hexes(board)
    castles = {h: info["name"] for h, info in board.items() if info["kind"] == "castle"}
    owners: dict[Hex, str | None] = dict.fromkeys(castles)
    passes = 0
    area_winners: dict[str, str] = {}

    for index, move in enumerate(record["moves"]):
        player = move["player"]
        kind, influence = parse_tile(move["tile"])
        h: Hex | None = tuple(move["hex"]) if move.get("hex") is not None else None  # type: ignore[assignment]
        if check:
            rule = refusal_rule(board, tiles, kind, h)
            if rule:
                raise OracleRefusal(rule, index, f"{player} {move['tile']} on {h}")
        if h is None:
            passes += 1  # S-P5: the tile leaves play and scores nothing
            continue
        tiles[h] = Tile(player, kind, influence)
        info = board[h]

        if kind in FARM_KINDS:  # S-F1: the size of the group it creates or enlarges
            size = len(farm_group(tiles, h))
            points[player]["farms"] += size
            log.append(f"{index} {player} {kind} {h}: group {size}")
        if bonus_tag in info["tags"]:  # S-H1 / I-H1: +1 before any area scoring
            points[player][bonus_category] += bonus_points
            log.append(f"{index} {player} {bonus_category} {h}: +{bonus_points}")
        area = info["area"] if info["kind"] == "settlement" else None
        if area is not None and all(a in tiles for a in areas[area]):  # S-A1: last hex occupied
            paid = score_area(ruleset, players, areas[area], tiles, player)
            ranked = rank_area(players, areas[area], tiles, player)
            if ranked:
                area_winners[area] = ranked[0]
            for p, v in paid.items():
                points[p]["areas"] += v
                log.append(f"{index} area {area} complete: {p} +{v}")
        for n in neighbours(h):  # S-K1: every castle next to the placed tile is checked
            if n in castles:
                before = owners[n]
                owners[n] = castle_check(tiles, n, before, player)
                if owners[n] != before:
                    log.append(f"{index} castle {castles[n]}: {before} -> {owners[n]}")

    over = is_over(record)
    if over:
        for name, hexes in areas.items():
            if not all(a in tiles for a in hexes):  # S-E1: every tile in an incomplete area
                for a in hexes:
                    t = tiles.get(a)
                    if t is not None and t.owner is not None:
                        points[t.owner]["incomplete_areas"] += t.influence
                        log.append(f"end incomplete {name} {a}: {t.owner} +{t.influence}")
        for owner in owners.values():  # S-E2
            if owner is not None:
                points[owner]["castles"] += CASTLE_POINTS

    groups: dict[tuple[str, str], list[list[Hex]]] = {}
    seen: set[Hex] = set()
    for h in sorted(tiles):
        t = tiles[h]
        if h in seen or t.owner is None or t.kind not in FARM_KINDS:
            continue
        g = farm_group(tiles, h)
        seen |= g
        groups.setdefault((t.owner, t.kind), []).append(sorted(g))
    for key in groups:
        groups[key].sort(key=lambda g: (-len(g), g))

    clover = [h for h, info in board.items() if info["kind"] == "castle" and "clover" in info["tags"]]
    stirling = [h for h, name in castles.items() if name == STIRLING]
    tara = [h for h, info in board.items() if info["kind"] == "tower" and info["name"] == HILL_OF_TARA]
    tara_counts = dict.fromkeys(players, 0)
    for tower in tara:
        for n in neighbours(tower):
            t = tiles.get(n)
            if t is not None and t.owner is not None:
                tara_counts[t.owner] += 1

    start = {p: int(record.get("setup", {}).get("scores", {}).get(p, 0)) for p in players}
    return OracleResult(
        ruleset=ruleset,
        players=players,
        categories=categories,
        uncovered=uncovered,
        points=points,
        start=start,
        castles={name: owners[h] for h, name in castles.items()},
        groups=groups,
        over=over,
        clover_owner=owners[clover[0]] if clover else None,
        stirling_owner=owners[stirling[0]] if stirling else None,
        tara_counts=tara_counts,
        passes=passes,
        log=log,
        neutral=sorted(h for h, t in tiles.items() if t.owner is None),
        area_winners=area_winners,
    )

"""Work out an example game's numbers from its record, its board JSON and RULES.md, without the engine.

A helper for tests/rules/test_golden_pairs.py, the hand computation each golden file is paired with: it prints,
for one bundled example, every scoring fact with the moves it comes from (0-based indices, `m12`), each
player's points per category with their parts, and the facts the mission cards read. It never imports
rebirth_dsl and never reads a golden file; the mission cards are re-stated below from the rules files'
card lines, read by hand (an unknown card stops it: re-state the new card first). Check what it prints
against the record before writing it into the test, with the arithmetic beside each number.

    python tools/hand_facts.py scotland-3p          # the facts, move by move, then the draft entry
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Hex = tuple[int, int]
STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # the six axial neighbours
FARMS = ("food", "energy")


def nb(h: Hex) -> list[Hex]:
    return [(h[0] + a, h[1] + b) for a, b in STEPS]


class Position:
    """The tiles on the board and everything a card condition reads (S-F1 groups by breadth-first search)."""

    def __init__(self, board: dict[Hex, dict[str, Any]], players: list[str]) -> None:
        self.board, self.players = board, players
        self.tiles: dict[Hex, tuple[str | None, str, int]] = {}  # hex -> (owner, kind, influence)
        self.castles = {h: i["name"] for h, i in board.items() if i["kind"] == "castle"}
        self.owner: dict[Hex, str | None] = dict.fromkeys(self.castles)
        self.won: dict[str, int] = defaultdict(int)

    def group(self, h: Hex) -> set[Hex]:
        o, k, _ = self.tiles[h]
        seen, todo = {h}, deque([h])
        while todo:
            x = todo.popleft()
            for y in nb(x):
                t = self.tiles.get(y)
                if y not in seen and t is not None and t[0] == o and t[1] == k:
                    seen.add(y)
                    todo.append(y)
        return seen

    def groups(self, q: str, kind: str) -> list[int]:
        out, seen = [], set()
        for h, (o, k, _) in self.tiles.items():
            if o == q and k == kind and h not in seen:
                g = self.group(h)
                seen |= g
                out.append(len(g))
        return sorted(out, reverse=True)

    def mine(self, q: str) -> list[Hex]:
        return [h for h, (o, _, _) in self.tiles.items() if o == q]

    def near(self, q: str, kind: str) -> int:
        return sum(1 for h in self.mine(q) if any(self.board.get(y, {}).get("kind") == kind for y in nb(h)))

    def touched(self, q: str, kind: str) -> int:
        return len({y for h in self.mine(q) for y in nb(h) if self.board.get(y, {}).get("kind") == kind})

    def tagged(self, q: str, tag: str) -> int:
        return sum(1 for h in self.mine(q) if tag in self.board[h].get("tags", []))

    def count(self, q: str, kind: str) -> int:
        return sum(1 for h in self.mine(q) if self.tiles[h][1] == kind)

    def influence(self, q: str) -> int:
        return sum(self.tiles[h][2] for h in self.mine(q))

    def areas(self, q: str) -> int:
        return len({self.board[h]["area"] for h in self.mine(q) if self.tiles[h][1] == "settlement"})

    def owned(self, q: str) -> int:
        return sum(1 for o in self.owner.values() if o == q)

    def castle_owner(self, name: str | None = None, tag: str | None = None) -> str | None:
        for h, n in self.castles.items():
            if n == name or (tag and tag in self.board[h].get("tags", [])):
                return self.owner[h]
        return None

    def near_named(self, q: str, name: str) -> int:
        ring = [nb(h) for h, i in self.board.items() if i.get("name") == name][0]
        return sum(1 for h in ring if h in self.tiles and self.tiles[h][0] == q)

    @property
    def n(self) -> int:  # `players` in a card: the number at the table
        return len(self.players)

    def most(self, q: str, f: Callable[[str], int]) -> bool:  # S-M3: a tie fulfils
        return all(f(x) <= f(q) for x in self.players)


Card = tuple[int, int, Callable[[Position, str], bool]]  # big points, small points, condition
# rules/scotland.rules, deck mission (S-M2, S-M3), as written there
SCOTLAND_CARDS: dict[str, Card] = {
    "Cathedral gift": (3, 0, lambda s, q: True),
    "Castle lord": (5, 0, lambda s, q: s.owned(q) >= 1 and s.most(q, s.owned)),
    "Clan of the glens": (5, 0, lambda s, q: max(s.groups(q, "food"), default=0) >= 8 - s.n),
    "Power of the north": (5, 0, lambda s, q: max(s.groups(q, "energy"), default=0) >= 6),
    "Harbour master": (4, 0, lambda s, q: s.tagged(q, "harbour") >= 8 - s.n),
    "Pilgrim": (4, 0, lambda s, q: s.near(q, "cathedral") >= 15 - (s.n - 2) * (s.n - 3)),
    "Town builder": (4, 0, lambda s, q: s.areas(q) >= 10 - (s.n - 2) * (s.n - 3)),
    "Bread basket": (4, 0, lambda s, q: max(s.groups(q, "food"), default=0) >= 2
                     and s.most(q, lambda x: max(s.groups(x, "food"), default=0))),
    "Chieftain": (4, 0, lambda s, q: s.won[q] >= 1 and s.most(q, lambda x: s.won[x])),
    "Castle guard": (5, 0, lambda s, q: s.near(q, "castle") >= 21 - 2 * (s.n - 2) * (s.n - 3)),
    "Twin fields": (4, 0, lambda s, q: sum(1 for g in s.groups(q, "food") if g >= 2) >= 3),
    "Coastline": (5, 0, lambda s, q: s.near(q, "sea") >= 22 - 2 * (s.n - 2) * (s.n - 3)),
    "Heartland": (5, 0, lambda s, q: max(s.groups(q, "food") + s.groups(q, "energy"), default=0) >= 6),
    "Mayor": (5, 0, lambda s, q: s.won[q] >= 13 - 2 * s.n),
    "Borderlands": (5, 0, lambda s, q: s.touched(q, "castle") >= 14 - s.n),
    "Crown of Scotland": (6, 0, lambda s, q: s.castle_owner(tag="clover") == q),
    "Stirling bridge": (4, 0, lambda s, q: s.castle_owner("Stirling") == q),
}
# rules/ireland.rules, deck mission (I-M1), as written there (re-tuned per player count, issue 23: `s.n` is
# `players`; `2 * E >= N` asks E >= N / 2 rounded up)
IRELAND_CARDS: dict[str, Card] = {
    "Round tower pilgrim": (7, 3, lambda s, q: s.touched(q, "tower") >= 8),
    "Wind farmer": (5, 2, lambda s, q: s.tagged(q, "wind") >= 7 - s.n),
    "Harvest": (6, 3, lambda s, q: max(s.groups(q, "food"), default=0) >= 8 - (s.n - 2) * (s.n - 3)),
    "Peat power": (6, 3, lambda s, q: max(s.groups(q, "energy"), default=0) >= 2 * s.n - 2 * (s.n - 2) * (s.n - 3)),
    "Town council": (6, 3, lambda s, q: 2 * s.areas(q) >= 20 - 3 * (s.n - 2) * (s.n - 3)),
    "Castle keeper": (7, 3, lambda s, q: 2 * s.owned(q) >= 21 - 3 * s.n),
    "Lord of the province": (8, 4, lambda s, q: 2 * s.won[q] >= 19 - 3 * s.n),
    "Green fields": (6, 3, lambda s, q: 2 * sum(1 for g in s.groups(q, "food") if g >= 2) >= 6 - (s.n - 2) * (s.n - 3)),
    "Coastal clans": (6, 3, lambda s, q: s.near(q, "sea") >= 16 - 2 * (s.n - 2) * (s.n - 3)),
    "Kingdom of Tara": (8, 4, lambda s, q: 2 * s.near_named(q, "Hill of Tara") >= 6 - (s.n - 2) * (s.n - 3)),
    "Blarney stone": (7, 3, lambda s, q: s.castle_owner(tag="clover") == q and s.owned(q) >= 10 - 2 * s.n),
    "Chieftain of Ireland": (6, 3, lambda s, q: s.influence(q) >= 27 - 5 * (s.n - 2) * (s.n - 3)),
}


def resolve(value: str, folder: str, suffix: str, base: Path) -> Path:
    return (base / value) if value.endswith(suffix) else ROOT / folder / f"{value}{suffix}"


def pay(ireland: bool, size: int, n: int) -> tuple[int, ...]:
    """S-A3; I-A1 (size 4: 12 / 8 / 5, with 2 players 17 / 8)."""
    if ireland and size == 4:
        return (17, 8) if n == 2 else (12, 8, 5)
    return {2: (5, 3), 3: (8, 5, 0)}[size]


def main(argv: list[str]) -> int:
    name = argv[0]
    path = ROOT / "examples" / f"{name}.json"
    rec = json.loads(path.read_text())
    board_path = resolve(rec["board"], "boards", ".json", path.parent)
    board = {(h["q"], h["r"]): h for h in json.loads(board_path.read_text())["hexes"]}
    players: list[str] = rec["players"]
    n = len(players)
    ireland = rec["rules"] == "ireland"
    cards = IRELAND_CARDS if ireland else SCOTLAND_CARDS
    bonus, bonus_cat = ("wind", "wind") if ireland else ("harbour", "harbours")
    s = Position(board, players)
    setup = rec.get("setup", {})
    if n == 2 and not rec.get("scenario"):  # S-U2
        for h, i in board.items():
            if "neutral" in i.get("tags", []):
                s.tiles[h] = (None, "neutral", 0)
    areas: dict[str, list[Hex]] = defaultdict(list)
    for h, i in sorted(board.items()):
        if i["kind"] == "settlement" and i.get("area"):
            areas[i["area"]].append(h)
    deck = list(setup.get("decks", {}).get("mission", []))
    public = deck[:8] if ireland else []
    if ireland:
        deck = deck[8:]
    pts: dict[str, dict[str, int]] = {q: defaultdict(int) for q in players}
    notes: dict[str, dict[str, list[str]]] = {q: defaultdict(list) for q in players}
    held: dict[str, list[str]] = {q: list(setup.get("missions_held", {}).get(q, [])) for q in players}
    touched: dict[str, set[Hex]] = defaultdict(set)
    doubled: dict[str, str] = {}
    done: dict[str, list[str]] = {c: [] for c in public}
    for i, m in enumerate(rec["moves"]):
        p, tile = m["player"], m["tile"]
        if m["hex"] is None:
            print(f"m{i} {p} passes {tile} (S-P5)")
            continue
        h = (m["hex"][0], m["hex"][1])
        kind, _, val = tile.partition(":")
        s.tiles[h] = (p, kind, int(val or 0))
        if kind in FARMS:
            g = len(s.group(h))
            pts[p]["farms"] += g
            notes[p]["farms"].append(str(g))
        if bonus in board[h].get("tags", []):
            pts[p][bonus_cat] += 1
            notes[p][bonus_cat].append(f"m{i}")
        area = board[h].get("area") if board[h]["kind"] == "settlement" else None
        if area and all(x in s.tiles for x in areas[area]):
            inf = dict.fromkeys(players, 0)
            for x in areas[area]:
                o, _, v = s.tiles[x]
                if o:
                    inf[o] += v
            ranked = [q for q in players if inf[q] > 0]  # S-A1
            seat = players.index(p)
            ranked.sort(key=lambda q: (-inf[q], q == p, (players.index(q) - seat) % n))  # S-A2
            size = len(areas[area])
            if size == 1:
                paid = {q: inf[q] for q in ranked}
            elif len(ranked) == 1:
                paid = {ranked[0]: pay(ireland, size, n)[0] + pay(ireland, size, n)[1]}
            else:
                table = pay(ireland, size, n)
                paid = {q: (table[j] if j < len(table) else 0) for j, q in enumerate(ranked)}
            if ranked:
                s.won[ranked[0]] += 1
            how = ", ".join(f"{q} {inf[q]}" for q in players if inf[q])
            ties = " (tie: S-A2)" if len({inf[q] for q in ranked}) < len(ranked) else ""
            print(f"m{i} {p} completes {area} (size {size}): influence {how}{ties} -> "
                  + ", ".join(f"{q} {v}" for q, v in paid.items()))
            for q, v in paid.items():
                pts[q]["areas"] += v
                notes[q]["areas"].append(f"{area} m{i} {v}")
        for c in nb(h):
            if c in s.castles:  # S-K1..S-K5
                o = s.owner[c]
                ring = nb(c)
                cnt = {q: sum(1 for x in ring if x in s.tiles and s.tiles[x][0] == q) for q in players}
                frm = {q: sum(1 for x in ring if x in s.tiles and s.tiles[x][0] == q and s.tiles[x][1] in FARMS)
                       for q in players}
                new = o
                if o is None:
                    new = p
                elif o != p and (cnt[p] > cnt[o] or (cnt[p] == cnt[o] and frm[p] > frm[o])):
                    new = p
                if new != o:
                    print(f"m{i} {p} castle {s.castles[c]}: {o} -> {new} (tiles {cnt[p]}"
                          f"{f' to {cnt[o]}' if o else ''}, farms {frm[p]}{f' to {frm[o]}' if o else ''})")
                s.owner[c] = new
        for c in nb(h):
            info = board.get(c, {})
            if info.get("kind") in ("cathedral", "tower") and c not in touched[p]:
                touched[p].add(c)
                if info["kind"] == "cathedral":  # S-M1
                    card = deck.pop(0) if deck else None
                    if card:
                        held[p].append(card)
                    print(f"m{i} {p} first touches {info['name']}: draws {card}")
                    continue
                ability, answer = info.get("ability"), (m.get("choices") or {}).get(info["name"])
                note = "declined" if answer is False else ""
                if answer is not False:  # I-R1
                    if ability in ("score_3", "score_13"):
                        v = int(ability.split("_")[1])
                        pts[p]["towers"] += v
                        notes[p]["towers"].append(f"{info['name']} m{i} {v}")
                        note = f"+{v}"
                    elif ability == "private_mission":
                        card = deck.pop(0) if deck else None
                        if card:
                            held[p].append(card)
                        note = f"draws {card}"
                    elif ability == "double_mission" and isinstance(answer, dict):
                        doubled[p] = answer["double"]
                        # I-R1 (decision): only on a face-up card the player has not fulfilled yet
                        late = " (REFUSED: already fulfilled, I-R1)" if p in done.get(answer["double"], []) else ""
                        note = f"doubles {answer['double']}{late}"
                    else:
                        note = f"{answer}"
                print(f"m{i} {p} first touches tower {info['name']} ({ability}): {note}")
        for step in range(n):  # I-M1: the placer first, then clockwise
            q = players[(players.index(p) + step) % n]
            for c in public:
                if q in done[c] or not cards[c][2](s, q):
                    continue
                big, small, _ = cards[c]
                v = (big if not done[c] else small) * (2 if doubled.get(q) == c else 1)
                done[c].append(q)
                pts[q]["public_missions"] += v
                later = "first" if len(done[c]) == 1 else "later"
                notes[q]["public_missions"].append(f"{c} m{i} {later} {v}{' doubled' if doubled.get(q) == c else ''}")
    over = rec.get("over", False) if rec.get("scenario") else all(
        sum(1 for m in rec["moves"] if m["player"] == q) >= len(setup["supply"][q]) for q in players)
    end: dict[str, dict[str, int]] = {q: defaultdict(int) for q in players}
    for area, hs in areas.items():  # S-E1
        if not all(x in s.tiles for x in hs):
            for x in hs:
                t = s.tiles.get(x)
                if t is not None and t[0]:
                    end[t[0]]["incomplete_areas"] += t[2]
                    notes[t[0]]["incomplete_areas"].append(f"{area} {x} {t[2]}")
    for c, o in s.owner.items():  # S-E2
        if o:
            end[o]["castles"] += 5
            notes[o]["castles"].append(s.castles[c])
    for q in players:  # S-E3, I-E1
        for c in held[q]:
            if c not in cards:
                raise SystemExit(f"card {c!r} is not re-stated in tools/hand_facts.py")
            ok = cards[c][2](s, q)
            end[q]["missions"] += cards[c][0] if ok else 0
            notes[q]["missions"].append(f"{c} {cards[c][0] if ok else 0}")
    print(f"\nfinished: {over}; castles: { {s.castles[c]: o for c, o in s.owner.items()} }")
    start = {q: int(setup.get("scores", {}).get(q, 0)) for q in players}
    totals = {}
    for q in players:
        track = sum(pts[q].values())
        totals[q] = start[q] + track + (sum(end[q].values()) if over else 0)
        print(f"{q}: " + "; ".join(f"{k} {v} ({', '.join(notes[q][k])})" for k, v in {**pts[q], **end[q]}.items()))
        print(f"   total {totals[q]}; cards {held[q]}")
    if public:
        print("public missions:", done, "doubled:", doubled)
    print("facts per player:")
    for q in players:
        print(f"  {q}: food groups {s.groups(q, 'food')}, energy groups {s.groups(q, 'energy')}, influence "
              f"{s.influence(q)}, tiles by the sea {s.near(q, 'sea')}, by castles {s.near(q, 'castle')}, by cathedrals {s.near(q, 'cathedral')}, "
              f"castles touched {s.touched(q, 'castle')}, areas {s.areas(q)}, won {s.won[q]}, owned {s.owned(q)}")
    if over:
        best = max(totals.values())
        tied = [q for q in players if totals[q] == best]
        print(f"winners: {tied} (tie: apply S-E4 / I-E2)" if len(tied) > 1 else f"winner: {tied}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not re.fullmatch(r"[a-z0-9-]+", sys.argv[1]):
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))

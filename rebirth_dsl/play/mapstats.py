"""`rebirth simulate --map-stats`: where a run's tiles went, for a map maker.

Per hex: in how many games a player's tile ended on it, of which tile kind (or a neutral tile, S-U2), and
the mean points the move that filled it scored for its placer (every category the move scored: a farm's
group, a harbour, an area's payout to the completer, a public mission...; over the games it was taken).
Per area (S-A1): how often it was completed, completed **contested**, or left incomplete. An area is
contested when, at its completion, at least two players have influence in it: two or more players rank
(S-A1: players with 0 influence do not), so its payout is shared out by places (S-A2, S-A3) rather than
taken alone. Area tiles never move, so the final position tells who had influence at completion. An area
filled by neutral tiles alone counts as completed, by nobody. Per landmark of a majority statement
(S-K1..S-K5): how often it was taken from an owner, and who held it at the end, by seat. And a seat
fairness test: Pearson's chi-square of the seats' wins against 1/N each (summary.seat_advantage, the lab's seat advantage).

Everything is named from the board and the rules (hex kinds, tile kinds, area and landmark names); the
counts come from each game's `GameExtra.map` (play/tally.py, MapTally), which only a run with the flag keeps.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rebirth_dsl.compile.ruleset import Ruleset
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.files import check_output, check_output_folder, shown, write_text_atomic
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.summary import Result, seat_advantage
from rebirth_dsl.present.plots import write_heat_pngs
from rebirth_dsl.present.render import Heat, faded_kind_colour, heat_svg, seat_colour
from rebirth_dsl.runtime.state import NEUTRAL

NATIVE_MAP_STATS = ("--map-stats needs the Python engine: the native one keeps no per-hex data "
                    "(leave out --backend native)")


def map_summary(results: Sequence[Result], rs: Ruleset, players: Sequence[str]) -> dict[str, Any]:
    """Per hex, area and majority landmark, the counts over the run (see the module's text), and the seat
    fairness test. The results must have been played with `Job.map_stats`."""
    t = rs.t
    games = len(results)
    n = len(players)
    kinds = list(rs.tile_kinds)
    taken = [[0] * len(kinds) for _ in range(t.n)]
    neutral = [0] * t.n
    points = [0] * t.n
    areas = [[0, 0, 0, 0] for _ in t.area_hexes]  # incomplete, nobody, alone, contested
    changes = [0] * len(t.landmark_hex)
    owners = [[0] * (n + 1) for _ in t.landmark_hex]  # per seat, then nobody
    for r in results:
        m = r[3].map
        if m is None:
            raise RebirthError.single("these games were played without map statistics")
        for h, k in enumerate(m.tiles):
            if k >= 0:
                taken[h][k] += 1
                points[h] += m.points[h]
            elif k == NEUTRAL:
                neutral[h] += 1
        for a, c in enumerate(m.areas):
            areas[a][0 if c < 0 else 1 + min(c, 2)] += 1
        for lm, c in enumerate(m.changes):
            changes[lm] += c
            owners[lm][m.owners[lm]] += 1  # -1, nobody: the last column
    hexes = []
    for h in range(t.n):
        got = sum(taken[h])
        row: dict[str, Any] = {"q": t.coords[h][0], "r": t.coords[h][1], "kind": t.hex_kind[h]}
        if h in t.landmark_of_hex:
            row["name"] = t.landmark_name[t.landmark_of_hex[h]]
        if t.area_of[h] >= 0:
            row["area"] = t.area_names[t.area_of[h]]
        row.update({"taken": got, "taken_rate": round(got / games, 4) if games else 0.0,
                    "by_kind": {k: taken[h][i] for i, k in enumerate(kinds) if taken[h][i]},
                    "neutral": neutral[h], "points": round(points[h] / got, 3) if got else None})
        hexes.append(row)
    area_rows = []
    for a, (inc, nobody, alone, contested) in enumerate(areas):
        done = nobody + alone + contested
        area_rows.append({"name": t.area_names[a], "kind": t.area_kind[a], "size": len(t.area_hexes[a]),
                          "hexes": [list(t.coords[h]) for h in t.area_hexes[a]],
                          "completed": done, "contested": contested, "alone": alone, "nobody": nobody,
                          "incomplete": inc, "completed_rate": round(done / games, 4) if games else 0.0,
                          "contested_rate": round(contested / games, 4) if games else 0.0,
                          "contested_when_completed": round(contested / done, 4) if done else None})
    majority = sorted({lm for rule in rs.majorities for lm in rule.landmarks})
    lm_rows = []
    for lm in majority:
        lq, lr = t.coords[t.landmark_hex[lm]]
        lm_rows.append({"name": t.landmark_name[lm], "kind": t.landmark_kind[lm], "q": lq, "r": lr,
                        "changes": changes[lm], "changes_per_game": round(changes[lm] / games, 4) if games else 0.0,
                        "owner_at_end": {players[q]: owners[lm][q] for q in range(n)}, "nobody": owners[lm][n]})
    x2, p, rates = seat_advantage(results, n)  # the lab's seat advantage test, the same numbers
    wins = [r * games for r in rates]
    fair = {"chi2": x2, "df": n - 1, "p": p, "expected": games / n if n else 0.0}
    return {"games": games, "tile_kinds": kinds, "hexes": hexes, "areas": area_rows, "landmarks": lm_rows,
            "fairness": {"test": "Pearson chi-square of seat wins against 1/N (shared wins split)",
                         "wins": [round(w, 3) for w in wins], "expected": round(float(fair["expected"]), 3),
                         "chi2": round(float(fair["chi2"]), 4), "df": fair["df"], "p": round(float(fair["p"]), 6)}}


def _rows(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             .rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _pct(k: float, games: int) -> str:
    return f"{100 * k / games:.1f}" if games else "-"


def map_table(ms: dict[str, Any], players: Sequence[str], shown: int = 6) -> str:
    """The text of `map_summary`: fairness, landmarks, areas, and the hexes taken least and most often (of
    the kinds any tile went on; every hex is in --json and in the pictures)."""
    g = ms["games"]
    f = ms["fairness"]
    out = ["", "map statistics:",
           f"seat fairness: wins {', '.join(f'{p} {w:g}' for p, w in zip(players, f['wins'], strict=True))} "
           f"against {f['expected']:g} each: chi-square {f['chi2']:.2f}, {f['df']} df, p = {f['p']:.4f}"]
    if ms["landmarks"]:
        rows = [["landmark", "changes/game", *(f"ends {p} %" for p in players), "nobody %"]]
        for lm in ms["landmarks"]:
            rows.append([lm["name"], f"{lm['changes_per_game']:.2f}",
                         *(_pct(lm["owner_at_end"][p], g) for p in players), _pct(lm["nobody"], g)])
        out += ["", *_rows(rows)]
    if ms["areas"]:
        rows = [["area", "size", "completed %", "contested %", "alone %", "incomplete %"]]
        for a in ms["areas"]:
            rows.append([a["name"], str(a["size"]), _pct(a["completed"], g), _pct(a["contested"], g),
                         _pct(a["alone"], g), _pct(a["incomplete"], g)])
        out += ["", "contested: two or more players had influence at completion", *_rows(rows)]
    used = {h["kind"] for h in ms["hexes"] if h["taken"] or h["neutral"]}  # not sea, landmarks...
    placed = [h for h in ms["hexes"] if h["kind"] in used]
    if placed:
        by_rate = sorted(placed, key=lambda h: (h["taken_rate"], h["q"], h["r"]))
        kinds = ms["tile_kinds"]

        def line(h: dict[str, Any]) -> list[str]:
            name = h.get("name") or h.get("area") or ""
            return [f"({h['q']},{h['r']}) {h['kind']}" + (f" {name}" if name else ""), _pct(h["taken"], g),
                    *(_pct(h["by_kind"].get(k, 0), g) for k in kinds),
                    "-" if h["points"] is None else f"{h['points']:.2f}"]

        head = ["hex", "taken %", *(f"{k} %" for k in kinds), "points"]
        total = sum(h["taken"] for h in ms["hexes"])
        out += ["", f"hexes: {total / g if g else 0:.1f} tiles placed a game on {len(placed)} hexes; "
                    f"least and most often taken (points: what the move scored its placer):",
                *_rows([head, *map(line, by_rate if len(by_rate) <= 2 * shown
                                    else by_rate[:shown] + by_rate[-shown:])])]
    return "\n".join(out)


# ----- pictures --------------------------------------------------------------------------------------
def _pct_label(v: float | None) -> str:
    return "" if v is None else f"{v:.0f}"


def heat_maps(ms: dict[str, Any], rs: Ruleset, players: Sequence[str]) -> list[tuple[str, Heat]]:
    """One heat map per measure, by file stem: taken, taken-KIND per tile kind, points, areas-completed,
    areas-contested and (with majority landmarks) landmarks."""
    t = rs.t
    g = max(1, ms["games"])
    hexes = ms["hexes"]
    used = {h["kind"] for h in hexes if h["taken"] or h["neutral"]}
    pct = ("0%", "50%", "100%")
    f = ms["fairness"]
    notes = [f"{ms['games']} games. Seat fairness: wins {', '.join(f'{p} {w:g}' for p, w in zip(players, f['wins'], strict=True))}; "
             f"chi-square {f['chi2']:.2f} on {f['df']} df against 1/{len(players)} each, p = {f['p']:.3f}."]
    out: list[tuple[str, Heat]] = []

    def rates(count: Any) -> list[float | None]:
        return [100 * count(h) / g if h["kind"] in used else None for h in hexes]

    v = rates(lambda h: h["taken"])
    out.append(("taken", Heat("Taken: % of games a player's tile ended on the hex", v, [_pct_label(x) for x in v],
                              0, 100, pct, notes=notes)))
    for k in ms["tile_kinds"]:
        if any(h["by_kind"].get(k) for h in hexes):
            v = rates(lambda h, k=k: h["by_kind"].get(k, 0))
            out.append((f"taken-{_stem(k)}", Heat(f"Taken by {k}: % of games a player's {k} ended on the hex", v,
                                                  [_pct_label(x) for x in v], 0, 100, pct, notes=notes)))
    pts: list[float | None] = [h["points"] for h in hexes]
    top = max([p for p in pts if p is not None] or [1.0])
    out.append(("points", Heat("Points: mean points the move that filled the hex scored its placer", pts,
                               ["" if p is None else f"{p:.1f}" for p in pts], 0, top, notes=notes)))
    if ms["areas"]:
        for key, title in (("completed", "Areas completed: % of games (the rest: left incomplete)"),
                           ("contested", "Areas contested: % of games completed with two or more players "
                                         "holding influence")):
            av: list[float | None] = [None] * t.n
            labels = [""] * t.n
            for a, row in enumerate(ms["areas"]):
                for j, h in enumerate(t.area_hexes[a]):
                    av[h] = 100 * row[key] / g
                    if j == 0:
                        labels[h] = f"{av[h]:.0f}"
            out.append((f"areas-{key}", Heat(title, av, labels, 0, 100, pct, notes=notes)))
    if ms["landmarks"]:
        lv: list[float | None] = [None] * t.n
        labels = [""] * t.n
        bars: dict[int, list[tuple[str, float]]] = {}
        index = {(q, r): h for h, (q, r) in enumerate(t.coords)}
        for lm in ms["landmarks"]:
            h = index[(lm["q"], lm["r"])]
            lv[h] = lm["changes_per_game"]
            labels[h] = f"{lm['changes_per_game']:.2f}"
            bars[h] = [(seat_colour(q), lm["owner_at_end"][p] / g) for q, p in enumerate(players)]
            bars[h].append((NOBODY, lm["nobody"] / g))
        top = max([x for x in lv if x is not None] or [1.0]) or 1.0
        seats = [(seat_colour(q), f"{p} (seat {q + 1})") for q, p in enumerate(players)] + [(NOBODY, "nobody")]
        out.append(("landmarks", Heat("Landmarks: times taken from an owner a game; bar: who held it at the end",
                                      lv, labels, 0, top, bars=bars, key=seats, notes=notes)))
    return out


NOBODY = "#d0d0d0"


def _stem(name: str) -> str:
    """A name as a file name's part: letters, digits, - and _ only."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "kind"


def check_map_dir(folder: Path) -> None:
    """A folder for the heat maps: one that can take them, existing or made when they are written."""
    check_output_folder(folder, "--map-stats")


def write_maps(ms: dict[str, Any], rs: Ruleset, folder: Path, players: Sequence[str], png: bool | None = None
               ) -> list[Path]:
    """Write the heat maps into `folder`: NAME.svg for each measure (heat_maps) and, when matplotlib is
    installed (the extra [lab]) or `png`, NAME.png and overview.png (four measures on one picture)."""
    return _write(heat_maps(ms, rs, players), rs, folder, f"{ms['games']} games", png)


def _write(maps: list[tuple[str, Heat]], rs: Ruleset, folder: Path, what: str, png: bool | None) -> list[Path]:
    board = rs.t.board
    if board is None:
        raise RebirthError.single("map pictures need a board")
    if folder.exists():  # its top folder was checked before the games; a sub-folder is made here
        check_map_dir(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for stem, heat in maps:
        path = check_output(folder / f"{stem}.svg")  # never through a link or over a non-file
        write_text_atomic(path, heat_svg(board, heat))
        out.append(path)
    if png is None:
        png = importlib.util.find_spec("matplotlib") is not None
    if png:
        t = rs.t
        cells = [{"q": q, "r": r, "area": t.area_of[h], "fill": faded_kind_colour(t.hex_kind[h]),
                  "name": t.landmark_name[t.landmark_of_hex[h]] if h in t.landmark_of_hex else ""}
                 for h, (q, r) in enumerate(t.coords)]
        data = [{"file": stem, "title": heat.title, "values": list(heat.values), "labels": list(heat.labels),
                 "lo": heat.lo, "hi": heat.hi, "bars": heat.bars, "key": list(heat.key),
                 "cmap": "RdBu_r" if heat.diverging else "viridis"} for stem, heat in maps]
        overview = [s for s in ("taken", "points", "areas-contested", "landmarks") if any(m == s for m, _ in maps)]
        out += write_heat_pngs(f"{board.title or board.name}: {what}", cells, data, folder, overview,
                               maps[0][1].notes[0] if maps and maps[0][1].notes else "")
    return out


def difference_maps(b: dict[str, Any], v: dict[str, Any], rs: Ruleset, labels: tuple[str, str]
                    ) -> list[tuple[str, Heat]]:
    """The measures of heat_maps (but by tile kind), variant - base, on a diverging scale symmetric about 0
    (white: no difference): taken, points, areas-completed, areas-contested, landmarks (changes a game)."""
    players = DEFAULT_NAMES[: len(b["fairness"]["wins"])]
    base, var = heat_maps(b, rs, players), dict(heat_maps(v, rs, players))
    note = [f"variant - base: {labels[1]} against {labels[0]}, {b['games']} games each, the same seeds."]
    out = []
    for stem, hb in base:
        hv = var.get(stem)
        if hv is None or stem.startswith("taken-"):
            continue
        d: list[float | None] = [None if x is None or y is None else y - x
                                 for x, y in zip(hb.values, hv.values, strict=True)]
        top = max([abs(x) for x in d if x is not None] or [0.0]) or 1.0
        percent = stem not in ("points", "landmarks")  # the rest are % of games
        fmt = "{:+.0f}" if percent else "{:+.2f}"
        shown_labels = ["" if x is None or not hb.labels[i] or abs(x) < 0.005 else fmt.format(x)
                        for i, x in enumerate(d)]
        unit = " (percentage points)" if percent else ""
        out.append((stem, Heat(f"Difference{unit}: {hb.title.split(';')[0]}", d, shown_labels, -top, top,
                               notes=note, diverging=True)))
    return out


# ----- the balance lab (compare --map-stats) ---------------------------------------------------------
def check_compare_maps(base_board: Path, var_board: Path, map_dir: str, backend: str = "local") -> None:
    """Before any game: both sides on one board (a map statistic compares hexes), the Python engine, and a
    folder for the pictures if one is named."""
    if backend == "native":
        raise RebirthError.single(NATIVE_MAP_STATS)
    if base_board.resolve() != var_board.resolve():
        raise RebirthError.single(f"--map-stats compares one board's hexes, but the base plays on {shown(base_board)} "
                                  f"and the variant on {shown(var_board)}; run `rebirth simulate --map-stats` on each")
    if map_dir:
        check_map_dir(Path(map_dir))


def compare_maps(report: dict[str, Any], rs_b: Ruleset, res_b: Sequence[Result], rs_v: Ruleset,
                 res_v: Sequence[Result], map_dir: str) -> str:
    """Each side's map statistics into the report (`map`; pictures into DIR/base and DIR/variant), and
    their text: where the two differ most (landmarks, areas), then each side's tables."""
    players = DEFAULT_NAMES[: report["players"]]
    maps = {}
    for key, rs, res in (("base", rs_b, res_b), ("variant", rs_v, res_v)):
        ms = map_summary(res, rs, players)
        if map_dir:
            ms["pictures"] = [shown(p) for p in write_maps(ms, rs, Path(map_dir) / key, players)]
        report[key]["map"] = maps[key] = ms
    b, v = maps["base"], maps["variant"]
    diff_pictures = []
    if map_dir:
        diff = difference_maps(b, v, rs_b, (rs_b.title, rs_v.title))
        diff_pictures = [shown(p) for p in _write(diff, rs_b, Path(map_dir) / "difference", "variant - base", None)]
        report["map_difference_pictures"] = diff_pictures
    g = max(1, report["games"])
    out = ["", "map statistics, base -> variant (same board, same seeds):"]
    fb, fv = b["fairness"], v["fairness"]
    out.append(f"seat fairness p: {fb['p']:.4f} -> {fv['p']:.4f} (chi-square {fb['chi2']:.2f} -> {fv['chi2']:.2f}, "
               f"{fb['df']} df)")
    vl = {lm["name"]: lm for lm in v["landmarks"]}
    rows = [["landmark", "changes/game", "base", "variant"]]
    for lm in b["landmarks"]:
        other = vl.get(lm["name"])
        if other is not None:
            rows.append([lm["name"], f"{other['changes_per_game'] - lm['changes_per_game']:+.2f}",
                         f"{lm['changes_per_game']:.2f}", f"{other['changes_per_game']:.2f}"])
    if len(rows) > 1:
        out += ["", *_rows(rows)]
    va = {a["name"]: a for a in v["areas"]}
    rows = [["area", "completed %", "contested %", "base completed/contested %", "variant"]]
    for a in b["areas"]:
        other = va.get(a["name"])
        if other is not None:
            rows.append([a["name"], f"{100 * (other['completed'] - a['completed']) / g:+.1f}",
                         f"{100 * (other['contested'] - a['contested']) / g:+.1f}",
                         f"{_pct(a['completed'], g)} / {_pct(a['contested'], g)}",
                         f"{_pct(other['completed'], g)} / {_pct(other['contested'], g)}"])
    if len(rows) > 1:
        out += ["", *_rows(rows)]
    moved = sorted(((hv["taken"] - hb["taken"], hb) for hb, hv in zip(b["hexes"], v["hexes"], strict=True)
                    if hb["taken"] != hv["taken"]), key=lambda x: -abs(x[0]))[:8]
    if moved:
        out += ["", "hexes taken most differently (variant - base, % of games): " + ", ".join(
            f"({h['q']},{h['r']}) {h['kind']} {100 * d / g:+.1f}" for d, h in moved)]
    for key in ("base", "variant"):
        out += ["", f"{key}: {report[key]['label']}", map_table(maps[key], players).lstrip("\n")]
        if maps[key].get("pictures"):
            out.append(f"heat maps: {', '.join(maps[key]['pictures'])}")
    if diff_pictures:
        out += ["", f"difference maps: {', '.join(diff_pictures)}"]
    return "\n".join(out) + "\n"

"""Charts of a balance-lab comparison (`rebirth compare --plot DIR`), as PNG files drawn with matplotlib.

matplotlib is an optional extra (`pip install 'rebirth-dsl[lab]'`): it is imported inside `write_charts`
only, so the rest of the package, and `compare` without `--plot`, never need it. The charts read plain
data (lists and the comparison's rows); nothing here knows about games.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rebirth_dsl.errors import RebirthError

COLOURS = ("#4c72b0", "#dd8452")  # base, variant
PERCENT = "percentage points"  # the panel of rates and shares (their values are fractions: drawn x 100)


def _pyplot() -> Any:
    try:
        import matplotlib  # optional extra [lab]: imported here only
    except ImportError:
        raise RebirthError.single("--plot needs matplotlib: pip install 'rebirth-dsl[lab]'") from None
    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    import matplotlib.pyplot as plt

    return plt


def _bars(ax: Any, rows: Sequence[dict[str, Any]], labels: Sequence[str], names: Sequence[str], scale: float,
          horizontal: bool = False) -> None:
    """Base and variant side by side per row, each with its interval as an error bar; * on significant rows."""
    width = 0.38
    for j, key in enumerate(("base", "variant")):
        pos, val, lo, hi = [], [], [], []
        for i, r in enumerate(rows):
            side = r[key]
            if side is None:
                continue
            pos.append(i + (j - 0.5) * width)
            v = side["value"] * scale
            val.append(v)
            lo.append(max(0.0, v - side["ci"][0] * scale))
            hi.append(max(0.0, side["ci"][1] * scale - v))
        if horizontal:
            ax.barh(pos, val, height=width, xerr=[lo, hi], color=COLOURS[j], label=labels[j], capsize=2)
        else:
            ax.bar(pos, val, width=width, yerr=[lo, hi], color=COLOURS[j], label=labels[j], capsize=3)
    ticks = [n + (" *" if r["significant"] else "") for n, r in zip(names, rows, strict=True)]
    if horizontal:
        ax.set_yticks(range(len(rows)), ticks)
        ax.invert_yaxis()
    else:
        ax.set_xticks(range(len(rows)), ticks, rotation=20, ha="right")


def write_charts(data: dict[str, Any], folder: Path) -> list[Path]:
    """Write scores.png, shares.png, wins.png, changes.png and (when there are cards) missions.png; return
    their paths."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    labels = data["labels"]
    out: list[Path] = []

    def save(fig: Any, name: str) -> None:
        path = folder / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        out.append(path)

    # final scores: one histogram per ruleset over every seat of every game, means marked
    fig, ax = plt.subplots(figsize=(7, 4))
    scores = data["scores"]
    lo, hi = min(min(s) for s in scores), max(max(s) for s in scores)
    bins = list(range(int(lo), int(hi) + 2, max(1, (int(hi) - int(lo)) // 40 or 1)))
    for j, s in enumerate(scores):
        ax.hist(s, bins=bins, histtype="step", linewidth=1.6, color=COLOURS[j], label=labels[j])
        ax.axvline(sum(s) / len(s), color=COLOURS[j], linestyle="--", linewidth=1)
    ax.set_xlabel("final score (every seat of every game)")
    ax.set_ylabel("count")
    ax.set_title("Score distributions (dashed: means)")
    ax.legend()
    save(fig, "scores.png")

    # category shares
    rows = data["shares"]
    fig, ax = plt.subplots(figsize=(7, 4))
    _bars(ax, rows, labels, [r["metric"].split(": ", 1)[1] for r in rows], 100.0)
    ax.set_ylabel("share of all points, % (95% interval)")
    ax.set_title("Scoring categories (* significant after Holm)")
    ax.legend()
    save(fig, "shares.png")

    # seat win rates, with the fair share
    rows = data["wins"]
    fig, ax = plt.subplots(figsize=(6, 4))
    _bars(ax, rows, labels, [r["metric"].replace("win rate ", "") for r in rows], 100.0)
    ax.axhline(100.0 / len(rows), color="grey", linestyle=":", linewidth=1, label="fair share")
    ax.set_ylabel("win rate, % (95% Wilson interval)")
    ax.set_title("Win rate by seat (* significant after Holm)")
    ax.legend()
    save(fig, "wins.png")

    # every paired difference at once, in the order of the text table, in its own unit: one panel per unit
    # (points, percentage points, counts), so that a row with nothing on the base side (a new category) is
    # drawn too, and the first row of the first panel is the text's first row
    rows = [r for r in data["changes"] if r["diff"] is not None and r["diff_ci"] is not None]
    if rows:
        panels: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            panels.setdefault(r["panel"], []).append(r)
        heights = [0.6 + 0.28 * len(rs) for rs in panels.values()]
        fig, axes = plt.subplots(len(panels), 1, figsize=(8, 0.9 + sum(heights)), squeeze=False,
                                 gridspec_kw={"height_ratios": heights})
        for ax, (unit, rs) in zip(axes[:, 0], panels.items(), strict=True):
            scale = 100.0 if unit == PERCENT else 1.0
            for i, r in enumerate(rs):
                colour = COLOURS[1] if r["significant"] else "grey"
                ax.plot([r["diff_ci"][0] * scale, r["diff_ci"][1] * scale], [i, i], color=colour, linewidth=2)
                ax.plot([r["diff"] * scale], [i], "o", color=colour)
            ax.axvline(0, color="black", linewidth=0.8)
            reach = max(max(abs(r["diff_ci"][0]), abs(r["diff_ci"][1]), abs(r["diff"])) * scale for r in rs)
            ax.set_xlim(-max(0.5, 1.15 * reach), max(0.5, 1.15 * reach))
            ax.set_yticks(range(len(rs)), [r["metric"] + (" *" if r["significant"] else "") for r in rs], fontsize=8)
            ax.set_ylim(len(rs) - 0.5, -0.5)
            ax.set_xlabel(f"variant - base, {unit} (95% interval)", fontsize=9)
        axes[0, 0].set_title(f"{labels[1]} against {labels[0]}\n(* and colour: significant after Holm)", fontsize=10)
        save(fig, "changes.png")

    # missions: how often each card is fulfilled by whoever holds it (or, face up, by anyone)
    rows = data["missions"]
    if rows:
        fig, ax = plt.subplots(figsize=(7, 0.8 + 0.32 * len(rows)))
        _bars(ax, rows, labels, [r["metric"].rsplit(": ", 1)[0] for r in rows], 100.0, horizontal=True)
        ax.set_xlabel("fulfilled, % (95% Wilson interval)")
        ax.set_title("Mission cards (* significant after Holm)")
        ax.legend(loc="lower right")
        save(fig, "missions.png")
    return out


# ----- heat maps of a board (simulate --map-stats DIR) ----------------------------------------------
_SQRT3 = 3 ** 0.5
_SIDES = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # axial neighbour offsets, as the board's


def _heat_axes(ax: Any, cax: Any, plt: Any, cells: Sequence[dict[str, Any]], m: dict[str, Any], small: bool) -> None:
    """One measure on one axes: pointy-top hexes coloured by viridis (faded kind colours where the measure
    does not reach), the areas' borders, labels, landmark names, ownership bars, and a colour bar."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Rectangle, RegularPolygon

    cmap = plt.get_cmap(m.get("cmap", "viridis"))
    lo, hi = m["lo"], m["hi"] if m["hi"] > m["lo"] else m["lo"] + 1
    centre = [(_SQRT3 * (c["q"] + c["r"] / 2), -1.5 * c["r"]) for c in cells]
    patches, colours = [], []
    for (x, y), c, v in zip(centre, cells, m["values"], strict=True):
        patches.append(RegularPolygon((x, y), numVertices=6, radius=1.0, orientation=0.0))
        colours.append(cmap((v - lo) / (hi - lo)) if v is not None else c["fill"])
    ax.add_collection(PatchCollection(patches, facecolor=colours, edgecolor="#7a7a7a", linewidth=0.3))
    index = {(c["q"], c["r"]): i for i, c in enumerate(cells)}
    sides = []
    for i, c in enumerate(cells):  # an area's border: every side whose neighbour is not of the same area
        if c["area"] < 0:
            continue
        x, y = centre[i]
        for dq, dr in _SIDES:
            j = index.get((c["q"] + dq, c["r"] + dr))
            if j is not None and cells[j]["area"] == c["area"]:
                continue
            ux, uy = (dq + dr / 2), -1.5 * dr / _SQRT3  # towards the neighbour, unit length
            mx, my = x + ux * _SQRT3 / 2, y + uy * _SQRT3 / 2  # the middle of the side between them
            sides.append([(mx - uy * 0.5, my + ux * 0.5), (mx + uy * 0.5, my - ux * 0.5)])
    ax.add_collection(LineCollection(sides, colors="#6b3510", linewidths=1.0 if small else 1.6, capstyle="round"))
    fs = 5.5 if small else 7.0
    for i, (x, y) in enumerate(centre):
        label, v = m["labels"][i], m["values"][i]
        name = cells[i]["name"]
        if name:
            ax.text(x, y + 0.15, name, ha="center", va="center", fontsize=fs * 0.8, fontweight="bold",
                    color="#111", bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7})
        if label:
            at = None if v is None else (v - lo) / (hi - lo)
            dark = at is not None and (abs(at - 0.5) > 0.3 if m.get("cmap") == "RdBu_r" else at < 0.55)
            ax.text(x, y - (0.45 if name else 0.0), label, ha="center", va="center", fontsize=fs,
                    color="white" if dark else "#111")
        for colour_frac in (m["bars"].get(i),):
            if not colour_frac:
                continue
            bx = x - 0.7
            for colour, frac in colour_frac:
                ax.add_patch(Rectangle((bx, y - 0.95), 1.4 * frac, 0.22, facecolor=colour, edgecolor="none"))
                bx += 1.4 * frac
            ax.add_patch(Rectangle((x - 0.7, y - 0.95), 1.4, 0.22, facecolor="none", edgecolor="#222", linewidth=0.4))
    xs, ys = [p[0] for p in centre], [p[1] for p in centre]
    ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
    ax.set_ylim(min(ys) - 1.3, max(ys) + 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(m["title"], fontsize=7 if small else 9, wrap=True)
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(lo, hi))
    bar = plt.colorbar(sm, cax=cax)
    bar.ax.tick_params(labelsize=fs)
    if m["key"]:
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(facecolor=c, edgecolor="#222", label=lab) for c, lab in m["key"]],
                  loc="lower left", fontsize=fs, title="bar: held at the end", title_fontsize=fs, frameon=True)


def write_heat_pngs(title: str, cells: Sequence[dict[str, Any]], maps: Sequence[dict[str, Any]], folder: Path,
                    overview: Sequence[str], note: str = "") -> list[Path]:
    """Each measure as NAME.png, and `overview` (up to four names) side by side in overview.png.

    cells: per hex its axial q and r, its area index (-1: none), the faded colour drawn where a measure does
    not reach and a landmark name (or ""); maps: per measure its file stem, title, per-hex values (None: not
    covered) and labels, the scale's lo and hi, bars {hex: [(colour, fraction)]} and their key."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    xs = [_SQRT3 * (c["q"] + c["r"] / 2) for c in cells]
    ys = [1.5 * c["r"] for c in cells]
    aspect = (max(ys) - min(ys) + 2.6) / (max(xs) - min(xs) + 2.4)
    out = []
    # axes placed by hand, not by bbox_inches="tight" or a layout engine: each would lay out every label
    # once more, and the labels are most of the drawing time
    height = max(3.0, 6.2 * aspect + 0.8)
    for m in maps:
        fig = plt.figure(figsize=(7, height))
        ax = fig.add_axes((0.01, 0.05, 0.85, 0.88))
        cax = fig.add_axes((0.88, 0.25, 0.025, 0.5))
        _heat_axes(ax, cax, plt, cells, m, small=False)
        fig.suptitle(title, fontsize=10)
        if note:
            fig.text(0.01, 0.01, note, fontsize=6.5, color="#333")
        path = folder / f"{m['file']}.png"
        fig.savefig(path, dpi=130)
        plt.close(fig)
        out.append(path)
    chosen = [m for name in overview for m in maps if m["file"] == name][:4]
    if chosen:
        cols = min(2, len(chosen))
        rows = (len(chosen) + 1) // 2
        cell_w, cell_h = 5.2, max(3.0, 5.0 * aspect + 0.5)
        fig = plt.figure(figsize=(cell_w * cols, cell_h * rows + 0.6))
        top = 1 - 0.45 / (cell_h * rows + 0.6)
        for k, m in enumerate(chosen):
            col, row = k % cols, k // cols
            x0, y0 = col / cols, top - (row + 1) * (top - 0.03) / rows
            w, h = 1 / cols, (top - 0.03) / rows
            ax = fig.add_axes((x0 + 0.01 * w, y0 + 0.02 * h, 0.84 * w, 0.9 * h))
            cax = fig.add_axes((x0 + 0.87 * w, y0 + 0.25 * h, 0.03 * w, 0.5 * h))
            _heat_axes(ax, cax, plt, cells, m, small=True)
        fig.suptitle(title, fontsize=11)
        if note:
            fig.text(0.01, 0.005, note, fontsize=7, color="#333")
        path = folder / "overview.png"
        fig.savefig(path, dpi=130)
        plt.close(fig)
        out.append(path)
    return out

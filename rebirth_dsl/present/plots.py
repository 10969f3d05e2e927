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

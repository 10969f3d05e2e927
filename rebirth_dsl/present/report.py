"""Scores, breakdowns, landmark owners and winners of a replayed game, as data and as text."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.runtime.game import Event, Game

if TYPE_CHECKING:
    from typing import Any


def evaluate(game: Game, viewer: int | None = None) -> dict[str, Any]:
    """The `eval --json` object; end-of-game scoring is included once the game is over (S-T2, or a
    scenario that says so). With a `viewer`, an unfinished game is shown as that player sees it: the
    other players' private mission cards are secret until the end (S-M2, S-E3), so neither the cards nor
    what they would score appear, only how many each holds."""
    rs = game.rs
    finished = game.is_over()
    hidden = viewer is not None and not finished
    end = _seen_end_events(game, viewer) if hidden else game.end_events()
    totals = game.final_scores(end) if finished else list(game.track)
    players = []
    for q, name in enumerate(game.players):
        breakdown = {c: 0 for c in rs.categories}
        for c in rs.track_categories:
            breakdown[c] = game.scores[q].get(c, 0)
        end_now = {c: 0 for c in rs.categories if c not in rs.track_categories}
        for e in end:
            if e.player == q:
                end_now[e.category] = end_now.get(e.category, 0) + e.points
        if finished:
            breakdown.update(end_now)
        entry: dict[str, Any] = {"name": name, "score": totals[q], "breakdown": breakdown}
        if game.start_scores[q]:
            entry["start"] = game.start_scores[q]
        if not finished:
            entry["end_now"] = end_now
            entry["if_ended_now"] = game.track[q] + sum(end_now.values())
        if hidden and q != viewer:
            entry["hidden_cards"] = len(game.held[q])
        else:
            entry["cards"] = list(game.held[q])
        players.append(entry)
    landmarks = {}
    for rule in rs.majorities:
        for lm in rule.landmarks:
            o = game.lm_owner[lm]
            landmarks[game.t.landmark_name[lm]] = game.players[o] if o >= 0 else None
    out: dict[str, Any] = {"players": players, "castles": landmarks, "winners": [], "finished": finished}
    if game.public:  # I-M1: who fulfilled each face-up card, in order
        out["public_missions"] = {c: [game.players[q] for q in game.public_by[c]] for c in game.public}
    if any(game.doubled):
        out["doubled"] = {game.players[q]: (next(iter(d)) if len(d) == 1 else list(d))
                          for q, d in enumerate(game.doubled) if d}
    if hidden and viewer is not None:
        out["viewer"] = game.players[viewer]
    if finished:
        winners, how = game.winners(totals)
        out["winners"] = [game.players[q] for q in winners]
        out["decided_by"] = how
    return out


def _seen_end_events(game: Game, viewer: int | None) -> list[Event]:
    """End-of-game scoring as it would stand now with only the viewer's private cards counted: the others'
    are scored at the end, when they are revealed (S-E3)."""
    g = game.clone()
    for q in range(g.n_players):
        if q != viewer:
            g.held[q] = []
    return g.end_events()


def event_dict(game: Game, e: Event) -> dict[str, Any]:
    """One scoring event as JSON."""
    return {"move": e.index, "player": game.players[e.player] if e.player >= 0 else None, "points": e.points,
            "category": e.category, "rules": list(e.ids), "text": e.text}


def explain(game: Game) -> list[dict[str, Any]]:
    """Every event with its rule ids: those of play, then end-of-game scoring if the game is over."""
    events = list(game.events) + (game.end_events() if game.is_over() else [])
    return [event_dict(game, e) for e in events]


def render_table(result: dict[str, Any], categories: list[str]) -> str:
    """A plain-text score table."""
    rows = [["player", *categories, "total"]]
    for p in result["players"]:
        rows.append([p["name"], *(str(p["breakdown"].get(c, 0)) for c in categories), str(p["score"])])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    out = ["\n".join(lines)]
    if not result["finished"]:
        view = f" (as {result['viewer']} sees it)" if result.get("viewer") else ""
        out.append(f"\nThe game is not over: scores are the track. End-of-game scoring would add now{view}:")
        for p in result["players"]:
            adds = ", ".join(f"{k} {v}" for k, v in p["end_now"].items() if v) or "nothing"
            secret = p.get("hidden_cards", 0)
            cards = f", and {secret} secret mission card{'s' if secret != 1 else ''}" if secret else ""
            out.append(f"  {p['name']}: {adds}{cards}  (total {p['if_ended_now']}{' before those' if secret else ''})")
    owners = result["castles"]
    if owners:
        out.append("\nLandmarks held: " + ", ".join(f"{k}: {v or '-'}" for k, v in owners.items()))
    if result.get("public_missions"):
        out.append("Public missions: " + "; ".join(f"{c}: {', '.join(w) or '-'}" for c, w in result["public_missions"].items()))
    if result["finished"]:
        out.append(f"\nWinner{'s' if len(result['winners']) > 1 else ''}: {', '.join(result['winners'])} "
                   f"({result['decided_by']})")
    return "\n".join(out)

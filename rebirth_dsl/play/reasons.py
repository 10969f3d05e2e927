"""What a move does now: the one meaning of "what a move does" for `moves`, `hint`, the terminal's list
and the web app's hover.

The move is made by the engine itself on a copy (Game.play, abilities answered as probes answer them),
and what changed is read off the copy: the points each player scores now by category (the scoring
events' own), the landmarks the placer takes (and from whom) or challenges (a landmark another player
keeps although the placer's standing there rose, S-K), the areas the move completes and what they pay,
the cards drawn (how many, never which: the deck is hidden), the face-up missions fulfilled (I-M1) and
the landmark abilities the tile would use (I-R1).

A tile not in the placer's hand can be asked about (`moves --tile`): the copy is handed it first, so the
answer is what the rules would do with it there, which is what a player planning ahead asks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rebirth_dsl.runtime.game import Game, first_choice


@dataclass
class MoveEffects:
    """What placing a tile on a hex does at once (see the module's docstring)."""

    points: dict[str, int] = field(default_factory=dict)  # the placer's points now, by category
    others: dict[str, int] = field(default_factory=dict)  # other players' points now, by name
    takes: list[str] = field(default_factory=list)  # landmarks the placer now holds
    taken_from: dict[str, str] = field(default_factory=dict)  # landmark -> the player who held it
    challenges: list[str] = field(default_factory=list)  # landmarks another keeps, the placer's standing rose
    areas: list[dict[str, Any]] = field(default_factory=list)  # completed: name and what it pays, by player
    area_texts: list[str] = field(default_factory=list)  # the area scoring events, in the events' own words
    cards: dict[str, int] = field(default_factory=dict)  # cards drawn, by player (how many)
    missions: list[str] = field(default_factory=list)  # face-up missions fulfilled by the placer (I-M1)
    abilities: list[str] = field(default_factory=list)  # "landmark: ability" the tile would use (I-R1)
    asks: list[str] = field(default_factory=list)  # landmarks whose ability asks a question
    in_hand: bool = True

    @property
    def total(self) -> int:
        """The placer's points now."""
        return sum(self.points.values())

    def data(self) -> dict[str, Any]:
        """As JSON."""
        out = asdict(self)
        out["total"] = self.total
        return out


def move_effects(game: Game, p: int, tile: tuple[int, int], h: int) -> MoveEffects:
    """What p placing `tile` on hex h does now, read off the engine's own move on a copy."""
    rs, t = game.rs, game.t
    trial = game.clone()
    trial.auto_choose = first_choice
    eff = MoveEffects()
    if not trial.scenario:
        if tile not in trial.hand[p]:  # a tile asked about, not held: handed to the copy (module docstring)
            trial.hand[p].append(tile)
            eff.in_hand = False
        trial.turn = p
    for lm, _ in game.pending_abilities(p, h):
        ab, _, opts = game.ability_options(p, lm)
        eff.abilities.append(f"{t.landmark_name[lm]}: {ab.name}")
        if opts:
            eff.asks.append(t.landmark_name[lm])
    events = trial.play(p, tile, h, None)
    area_cats = {a.category for a in rs.areas.values()}
    pays: dict[str, int] = {}
    for e in events:
        if not e.points or e.player < 0:
            continue
        if e.player == p:
            eff.points[e.category] = eff.points.get(e.category, 0) + e.points
        else:
            name = game.players[e.player]
            eff.others[name] = eff.others.get(name, 0) + e.points
        if e.category in area_cats:
            pays[game.players[e.player]] = pays.get(game.players[e.player], 0) + e.points
            eff.area_texts.append(e.text)
    done = [a for a, d in enumerate(trial.area_done) if d and not game.area_done[a]]
    for a in done:  # what the move's area events pay, on the area(s) it completes
        eff.areas.append({"name": t.area_names[a], "pays": dict(pays) if len(done) == 1 else {}})
    if len(done) > 1:
        eff.areas.append({"name": " and ".join(t.area_names[a] for a in done), "pays": dict(pays)})
        eff.areas = eff.areas[-1:]
    for lm, owner in enumerate(trial.lm_owner):
        name = t.landmark_name[lm]
        before = game.lm_owner[lm]
        if owner == p and before != p:
            eff.takes.append(name)
            if before >= 0:
                eff.taken_from[name] = game.players[before]
        elif owner >= 0 and owner != p and _rose(game, trial, lm, p):
            eff.challenges.append(name)
    for q in range(game.n_players):  # how many, never which: the deck's order is hidden (S-M1)
        if len(trial.held[q]) > len(game.held[q]):
            eff.cards[game.players[q]] = len(trial.held[q]) - len(game.held[q])
    for c, who in trial.public_by.items():
        if p in who and p not in game.public_by.get(c, []):
            eff.missions.append(c)
    return eff


def _rose(before: Game, after: Game, lm: int, p: int) -> bool:
    """Whether p's count rose on any of the landmark's metrics (S-K: the standing a majority compares)."""
    return any(m[p] > n[p] for m, n in zip(after.lm_count[lm], before.lm_count[lm], strict=True))


def effects_text(eff: MoveEffects, holders: dict[str, str] | None = None) -> str:
    """The effects in words, e.g. `farms +3, areas +8; takes Dunmore from Bob; completes Westmoor (Ann 8,
    Cat 5); draws 1 card`. `holders`: who keeps each challenged landmark (named when given)."""
    said = [", ".join(f"{c} {v:+d}" for c, v in eff.points.items())]
    for lm in eff.takes:
        said.append(f"takes {lm}" + (f" from {eff.taken_from[lm]}" if lm in eff.taken_from else ""))
    for lm in eff.challenges:
        said.append(f"challenges {lm}" + (f" ({holders[lm]}'s)" if holders and lm in holders else ""))
    for a in eff.areas:
        pay = ", ".join(f"{who} {v}" for who, v in a["pays"].items())
        said.append(f"completes {a['name']}" + (f" ({pay})" if pay else ""))
    paid: dict[str, int] = {}
    for a in eff.areas:
        for who, v in a["pays"].items():
            paid[who] = paid.get(who, 0) + v
    said += [f"{who} {v - paid.get(who, 0):+d}" for who, v in eff.others.items() if v != paid.get(who, 0)]
    said += [f"fulfils {m}" for m in eff.missions]
    said += [f"{who} draws {k} card{'s' if k != 1 else ''}" for who, k in eff.cards.items()]
    said += [f"uses {a}" for a in eff.abilities]
    return "; ".join(x for x in said if x) or "nothing now"


def holders_of(game: Game) -> dict[str, str]:
    """Who holds each landmark now, by name (for the challenged landmarks' words)."""
    return {game.t.landmark_name[lm]: game.players[o] for lm, o in enumerate(game.lm_owner) if o >= 0}

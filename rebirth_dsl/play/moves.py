"""Legal moves for the next tile, each with the points it would score at once."""

from __future__ import annotations

from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.runtime.game import Game


def legal_moves(game: Game, tile: str | None = None, player: str | None = None) -> dict[str, Any]:
    """The legal hexes for a tile (the hand tile by default) and the immediate points of each."""
    rs = game.rs
    if game.scenario:
        p = game.player_index(player) if player else 0
        if tile is None:
            raise RebirthError.single("a scenario has no hands: say which tile with --tile (e.g. --tile food)")
    else:
        if game.is_over():
            raise RebirthError.single("the game is over: no tile is left to place")
        p = game.turn
        if player and game.player_index(player) != p:
            raise RebirthError.single(f"it is {game.players[p]}'s turn, not {player}'s")
    if tile is None:
        kind, value = game.hand[p][0]
    else:
        kind, value = rs.parse_tile(tile)
        if not game.scenario and (kind, value) not in game.hand[p]:
            held = ", ".join(rs.tile_name(*x) for x in game.hand[p])
            raise RebirthError.single(f"{game.players[p]} holds {held}, not {tile}")
    hexes, fallback = game.legal_hexes(kind)
    moves: list[dict[str, Any]] = []
    for h in sorted(hexes, key=lambda h: game.t.coords[h]):
        g2 = game.clone()
        events = g2.play(p, (kind, value), h)
        breakdown: dict[str, int] = {}
        for e in events:
            if e.player == p and e.points:
                breakdown[e.category] = breakdown.get(e.category, 0) + e.points
        moves.append({"hex": list(game.t.coords[h]), "hex_kind": game.t.hex_kind[h],
                      "points": sum(breakdown.values()), "breakdown": breakdown,
                      "others": {game.players[e.player]: e.points for e in events if e.player != p and e.points}})
    moves.sort(key=lambda m: (-m["points"], m["hex"]))
    return {"player": game.players[p], "tile": rs.tile_name(kind, value), "fallback": fallback, "moves": moves}

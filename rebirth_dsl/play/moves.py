"""Legal moves for the next tile, each with what it would do at once (play/reasons.py)."""

from __future__ import annotations

from typing import Any

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.play.reasons import effects_text, holders_of, move_effects
from rebirth_dsl.runtime.game import Game


def legal_moves(game: Game, tile: str | None = None, player: str | None = None) -> dict[str, Any]:
    """The legal hexes for a tile (the hand tile by default; any tile of the rules when asked, held or not)
    and what each move does now."""
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
        kind, value = rs.parse_tile(tile)  # any tile the rules have (a RebirthError names the valid ones)
    in_hand = game.scenario or (kind, value) in game.hand[p]
    hexes, fallback = game.legal_hexes(kind)
    holders = holders_of(game)
    moves: list[dict[str, Any]] = []
    for h in sorted(hexes, key=lambda h: game.t.coords[h]):
        eff = move_effects(game, p, (kind, value), h)
        moves.append({"hex": list(game.t.coords[h]), "hex_kind": game.t.hex_kind[h], "points": eff.total,
                      "breakdown": eff.points, "others": eff.others, "effects": eff.data(),
                      "does": effects_text(eff, holders)})
    moves.sort(key=lambda m: (-m["points"], m["hex"]))
    out = {"player": game.players[p], "tile": rs.tile_name(kind, value), "fallback": fallback, "moves": moves,
           "in_hand": in_hand}
    if not in_hand:
        out["hand"] = [rs.tile_name(*x) for x in game.hand[p]]
    return out

"""A human seat for `rebirth play`: the legal hexes listed with their immediate points, chosen at a prompt."""

from __future__ import annotations

import random
import sys

from rebirth_dsl.play.agents import immediate_points
from rebirth_dsl.runtime.game import Game


class HumanAgent:
    """Asks on the terminal; accepts a list number or `q,r`."""

    name = "human"

    def choose(self, game: Game, p: int, tile: tuple[int, int], hexes: list[int], rng: random.Random) -> int:
        """Prompt until a legal hex is given."""
        t = game.t
        options = sorted(((immediate_points(game, p, tile, h), h) for h in hexes), key=lambda x: (-x[0], t.coords[x[1]]))
        print(f"\n{game.players[p]} (score {game.track[p]}) places {game.rs.tile_name(*tile)}:", file=sys.stderr)
        for i, (pts, h) in enumerate(options, 1):
            q, r = t.coords[h]
            print(f"  {i:>3}. ({q},{r}) {t.hex_kind[h]:<11} +{pts}", file=sys.stderr)
        while True:
            sys.stderr.write("your move (number or q,r): ")
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                raise SystemExit("no more input: game abandoned")
            text = line.strip()
            if text.isdigit() and 1 <= int(text) <= len(options):
                return options[int(text) - 1][1]
            try:
                q, r = (int(x) for x in text.replace("(", "").replace(")", "").split(","))
            except ValueError:
                print("  type a number from the list, or q,r", file=sys.stderr)
                continue
            h = t.index.get((q, r))
            if h in hexes:
                return h
            print(f"  ({q},{r}) is not legal for this tile", file=sys.stderr)

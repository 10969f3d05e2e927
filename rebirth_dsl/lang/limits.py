"""Limits no real game comes near, so that no input can crash, exhaust or hang the engine.

The parser refuses what it cannot safely turn into an AST (numbers, expression nesting, file size);
check/checks.py refuses the rest (player counts, tile counts, ...), so whatever `rebirth check` accepts
plays. Scotland, for scale: 6 KB of rules, 36 tiles a colour, 2 to 4 players, expressions 7 deep.
"""

from __future__ import annotations

MAX_RULES_BYTES = 256 * 1024  # a rules file; Scotland's is 6 KB
MAX_NUMBER = 1_000_000  # any number written in a rules file (counts, points, sizes)
MAX_EXPR_DEPTH = 50  # nesting of one expression: parentheses, calls, `not`, each operator of a chain
MAX_EXPR_SIZE = 500  # nodes of one expression (numbers, names, calls, operators); Scotland's largest has 22
MAX_PER_PLAYER_NESTING = 2  # best/most/fewest inside best/most/fewest: each level is once per player
MAX_PLAYERS = 6  # `players A to B`: the default seat names of `rebirth play` and `simulate` number 6
MAX_TILES_PER_COLOUR = 200  # all tiles of one colour together; Scotland has 36
MAX_CARDS_PER_DECK = 1_000  # cards of a deck, copies included
MAX_KINDS = 32  # hex kinds, landmark kinds, tags, tile kinds: each (the generated engine nests per kind)
MAX_COMPARE = 8  # metrics a majority compares (`compare tiles any, then tiles farm`)

"""Words of the language that carry a fixed meaning: places in a ranking."""

from __future__ import annotations

PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")
TIE_STEPS = {
    ("completer", "last"): "the player who completed the area loses the tie",
    ("completer", "first"): "the player who completed the area wins the tie",
    ("clockwise", "from", "completer"): "the first player clockwise after the completer wins",
    ("counterclockwise", "from", "completer"): "the first player counter-clockwise from the completer wins",
    ("seat", "order"): "the earlier seat wins",
}

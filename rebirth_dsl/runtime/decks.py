"""Cards from decks (S-M1, I-R1): the one home of a draw, for statements and abilities alike."""

from __future__ import annotations

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.lang.ids import join_ids as join

if TYPE_CHECKING:
    from rebirth_dsl.runtime.game import Game


def draw_card(g: Game, p: int, deck_name: str, ids: tuple[str, ...], index: int | None, why: str) -> None:
    """The top card of a deck into the player's hand (S-M1); from an empty deck, nothing."""
    deck = g.decks.get(deck_name, [])
    if deck:
        g.held[p].append(deck.pop(0))
        if not g.quiet:  # nothing scored: a quiet game keeps nothing of it
            g.event(index, p, 0, "draw", ids, "{} draws a card, {}", g.players[p], why)
        return
    empty = g.rs.empty_decks.get(deck_name)
    if empty is None or empty.fn is None:  # `when empty: draw nothing`
        if not g.quiet:
            g.event(index, p, 0, "draw", join(ids, empty.ids if empty else ()),
                    "{}: the {} deck is empty, {} draws nothing", why, deck_name, g.players[p])
        return
    pts = empty.fn(Ctx(g, p))
    g.event(index, p, pts, empty.category, join(ids, empty.ids), "{}: the {} deck is empty, {} scores {} = {}", why,
            deck_name, g.players[p], empty.text, pts)

"""A rule's English as a value: the text and the rule ids it cites, so a reader never parses ids back out."""

from __future__ import annotations

from rebirth_dsl.shared_methods import Node, node


@node
class Words(Node):
    """One sentence of a rule in English, the ids of the rules it states, and its depth (0: a statement's own
    line, 1: an item under it)."""

    text: str
    ids: tuple[str, ...]
    depth: int = 0

    def line(self) -> str:
        """The sentence as a line of `rebirth rules`: indented by its depth, the text, then its ids in brackets."""
        return f"{'    ' * self.depth}- {self.text}{cited(self.ids)}"


def cited(ids: tuple[str, ...]) -> str:
    """Rule ids as English text cites them: ` [S-K4, S-K5]`, or nothing."""
    return f" [{', '.join(ids)}]" if ids else ""

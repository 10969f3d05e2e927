"""The built-in functions of the expression language, one entry each: what a rules writer sees of a function
(its name, argument and result types, what it means, how it reads in English). Everything that reads the
language's functions loops over SIGNATURES: the checker (check/types.py), the describer, the LSP's hover and
completion and the manual's table (docs/language.md, checked by tests/lang/test_functions.py). What a
function does in each engine is its entry in compile/functions.py, under the same name.

Types: int, bool, player, hex, hexes, groups, landmark, landmarks, areas; `coll` is any collection (hexes,
groups, landmarks, areas); `sel:WHAT` is a name argument (a tile kind or class, a hex kind or tag, a hex kind,
tag or landmark, a landmark kind), resolved when the rules are compiled. A trailing `*` repeats; `a|b`
accepts either type.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    """One built-in function as the language declares it."""

    name: str
    params: tuple[str, ...]  # argument types; the last may end in `*` (repeats, zero or more times)
    result: str
    doc: str  # one line: what it gives, in the words of the rules
    per_player: bool = False  # the argument is read once for every player, `me` bound to each in turn
    english: str = "{name}({args})"  # how `rebirth rules` says a call; {name}, {args} and {0}, {1}... fill it

    def say(self, args: list[str]) -> str:
        """A call in English, its arguments already said."""
        return self.english.format(*args, name=self.name, args=", ".join(args))


_ALL = (
    Signature("count", ("coll",), "int", "the number of things in a collection (hexes, groups, landmarks, areas)"),
    Signature("size", ("coll",), "int", "same as count; reads well for a group"),
    Signature("tiles", ("player", "sel:tile*"), "hexes",
              "the hexes holding the player's tiles, of the given kinds or classes"),
    Signature("hexes", ("sel:hex",), "hexes", "every board hex of a kind or with a tag"),
    Signature("group", ("hex",), "hexes", "the group (same owner, same kind, adjacent) containing a hex"),
    Signature("groups", ("player", "sel:tile*"), "groups", "the player's groups of the given kinds"),
    Signature("largest", ("groups",), "int", "the size of the largest group, 0 if none"),
    Signature("atleast", ("groups", "int"), "groups", "the groups of at least N tiles"),
    Signature("at", ("hexes", "sel:hex"), "hexes", "the hexes that are of a kind or carry a tag"),
    Signature("near", ("hexes", "sel:near"), "hexes",
              "the hexes adjacent to a hex of a kind or tag, or to a landmark"),
    Signature("neighbours", ("hexes|hex",), "hexes",
              "the hexes next to a hex or to a set of hexes, not counting those hexes themselves",
              english="the hexes next to {0}"),
    Signature("touched", ("player", "sel:landmark"), "landmarks",
              "landmarks of a kind next to one of the player's tiles"),
    Signature("owned", ("player", "sel:landmark"), "landmarks", "landmarks of a kind the player holds (majorities)"),
    Signature("owner", ("landmark",), "player", "who holds a landmark, or nobody"),
    Signature("areas", ("hexes",), "areas", "the distinct settlement areas the hexes lie in"),
    Signature("won", ("player",), "areas", "completed areas in which the player ranked first"),
    Signature("most", ("int",), "bool", "true if `me` has at least as much as every other player (ties count)",
              per_player=True),
    Signature("fewest", ("int",), "bool", "true if `me` has at most as much as every other player (ties count)",
              per_player=True),
    Signature("best", ("int",), "player", "the one player with strictly the most (above 0), or nobody",
              per_player=True),
)

SIGNATURES: dict[str, Signature] = {s.name: s for s in _ALL}
PER_PLAYER = frozenset(s.name for s in _ALL if s.per_player)

TABLE_BEGIN, TABLE_END = "<!-- functions: begin -->", "<!-- functions: end -->"


def function_table() -> str:
    """The manual's table of functions (docs/language.md, between TABLE_BEGIN and TABLE_END), made from the
    entries: `python -c "from rebirth_dsl.lang.functions import function_table; print(function_table())"`."""
    rows = ["| function | type | what it gives |", "|---|---|---|"]
    bar = "\\|"  # a `|` inside a cell
    for s in _ALL:
        typ = f"{s.name}({', '.join(s.params)}) → {s.result}".replace("|", bar)
        rows.append(f"| [`{s.name}`](#{s.name}) | `{typ}` | {s.doc.replace('|', bar)} |")
    return "\n".join(rows)


__all__ = ["PER_PLAYER", "SIGNATURES", "TABLE_BEGIN", "TABLE_END", "Signature", "function_table"]

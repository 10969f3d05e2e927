"""New games from a written-out copy of the blank position, a speed device of the new-game path
(runtime/game.Game.__new__): every game of a ruleset and player count starts from the same blank position,
so the copy runtime/state.copy_state makes of it is written out once as displays of its contents (`[...]`,
`{...}`), which the interpreter builds in one step each, where copy_state calls a constructor per container.
tests/engines/test_fast.py proves the copies equal to copy_state's, sharing no list, dict or set.

This layer sits below runtime/, so the state is seen as any slotted Struct (shared_methods) whose fields marked `shared`
depend only on the ruleset and board.
"""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.compile.emit import literal, run_source
from rebirth_dsl.shared_methods import Struct, shared_fields

if TYPE_CHECKING:
    from typing import Any, TypeVar

    _S = TypeVar("_S", bound=Struct)  # the state class (runtime.state.State or a Game)

_ATOMS = (bool, int, str, type(None))


def derive_fresh(s: _S) -> Callable[[], _S]:
    """A function making new states equal to `s`: every list, dict and set in a field not marked shared is
    written out as a display, so each call builds it anew; every other value (atoms, tuples, rule objects,
    dict keys and set members) is shared as copy_state shares it. The source holds only field names and
    checked literals."""
    env: dict[str, Any] = {"__builtins__": {"object": object, "set": set}, "CLS": type(s)}

    def share(v: object) -> str:
        name = f"V{len(env)}"
        env[name] = v
        return name

    templates: dict[tuple[tuple[object, object], ...], str] = {}

    def leaf(v: object) -> str:
        return literal(v) if type(v) in _ATOMS else share(v)

    def build(v: object) -> str:
        """A display making a fresh copy of v, every list, dict and set in it new; leaves as they are."""
        if type(v) is list:
            if len(v) > 8 and all(type(x) in _ATOMS for x in v):
                return f"[*{share(tuple(v))}]"  # a long flat list: extended from one tuple
            return "[" + "".join(build(x) + ", " for x in v) + "]"
        if type(v) is dict:
            if v and all(type(k) in _ATOMS and type(x) in _ATOMS for k, x in v.items()):
                items = tuple(v.items())  # equal dicts (one per seat) copy one template, read once a game
                if items not in templates:
                    templates[items] = share(dict(v))
                return f"{{**{templates[items]}}}"  # a flat dict: its table copied whole, no key looked up
            return "{" + "".join(f"{leaf(k)}: {build(x)}, " for k, x in v.items()) + "}"
        if type(v) is set:
            return "{" + "".join(leaf(x) + ", " for x in v) + "}" if v else "set()"
        if isinstance(v, list | dict | set):
            raise TypeError(f"a {type(v).__name__} in a blank position: copy_state would copy it as its base class")
        return leaf(v)

    lines = ["def fresh():", "    n = object.__new__(CLS)"]
    for f in shared_fields(type(s)):
        v = getattr(s, f.name)
        lines.append(f"    n.{f.name} = {leaf(v) if f.metadata.get('shared') else build(v)}")
    lines.append("    return n")
    run_source("\n".join(lines), f"<fresh {type(s).__name__}>", env)  # our own field names and literals
    fresh: Callable[[], _S] = env["fresh"]  # the source defines fresh
    return fresh

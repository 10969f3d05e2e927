"""rebirth-dsl: the board game Rebirth as a rules language, a compiler and an engine.

The Python API (`rebirth_dsl.load`, `new_game`, `from_record`, `Game`, `Move`, ...; see docs/api.md) lives
in `rebirth_dsl.api` and is re-exported here on first use, so `import rebirth_dsl` stays as light as the
command line needs.
"""

import importlib

__version__ = "0.1.0"

# typing.TYPE_CHECKING for the modules a command imports (`from rebirth_dsl import TYPE_CHECKING`): false at
# run time, and read as true by type checkers whatever module the name comes from. A command then never
# imports typing, nor makes a TypeVar or a Protocol (TypeVar("T", bound="Name") compiles its forward reference,
# and the first compile() of a process builds every class of Python's `ast` module); what only annotations
# name is imported under `if TYPE_CHECKING:`.
TYPE_CHECKING = False

_API = ("Game", "IllegalMove", "Move", "RebirthError", "Rules", "from_record", "load", "new_game")


def __getattr__(name: str) -> object:  # `object`, not typing.Any: importing typing would cost 2 ms here
    """`rebirth_dsl.load` and the rest of the API, imported on first access."""
    if name in _API:
        # importlib, not an import statement: this package root is the bottom layer (lang reads
        # __version__ from it), and the top layer is reached only on demand, after the package has loaded
        return getattr(importlib.import_module("rebirth_dsl.api"), name)
    raise AttributeError(f"module 'rebirth_dsl' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names, the lazily exported API included."""
    return sorted([*globals(), *_API])

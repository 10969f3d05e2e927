"""rebirth-dsl: the board game Rebirth as a rules language, a compiler and an engine."""

__version__ = "0.1.0"

"""One root error type whose errors carry positions, so every failure can be shown as file:line:col."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a source file: 1-based line and column of the first character, and of the end."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0


@dataclass(slots=True)
class Diagnostic:
    """One problem: where it is, what it is, and (for a syntax error) the line with a caret under it."""

    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    path: str = ""  # a JSON path, for problems in a board or game record
    source_line: str | None = None
    hint: str | None = None
    rule: str | None = None  # the rule id (S-P2, I-R1, ...) a move or check breaks

    def render(self) -> str:
        """Render as `file:line:col: message`, with the source line and a caret when known."""
        if self.line:
            head = f"{self.file}:{self.line}:{self.col}: {self.message}"
        elif self.path:
            head = f"{self.file}: {self.path}: {self.message}" if self.file else f"{self.path}: {self.message}"
        elif self.file:
            head = f"{self.file}: {self.message}"
        else:
            head = self.message
        out = [head]
        if self.source_line is not None:
            out.append("    " + self.source_line.rstrip("\n"))
            out.append("    " + " " * max(self.col - 1, 0) + "^")
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)


@dataclass
class RebirthError(Exception):
    """The project's one error type: carries one or many diagnostics."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.render())

    @classmethod
    def single(cls, message: str, **where: object) -> RebirthError:
        """Build an error holding one diagnostic."""
        return cls([Diagnostic(message, **where)])  # type: ignore[arg-type]

    def render(self) -> str:
        """All diagnostics, one block each."""
        return "\n".join(d.render() for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()


class RulesSyntaxError(RebirthError):
    """A rules file that does not parse."""


class IllegalMove(RebirthError):
    """A move that breaks a rule; `rule` names it and `index` is the move's place in the record."""

    def __init__(self, message: str, rule: str, index: int | None = None) -> None:
        self.rule = rule
        self.index = index
        where = f"move {index}: " if index is not None else ""
        super().__init__([Diagnostic(f"{where}{message} ({rule})", rule=rule)])


def did_you_mean(name: str, options: list[str] | set[str] | tuple[str, ...]) -> str | None:
    """The closest known name to a misspelt one, if any is close enough."""
    best = difflib.get_close_matches(name, sorted(options), n=1, cutoff=0.6)
    return best[0] if best else None

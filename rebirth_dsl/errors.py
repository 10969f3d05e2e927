"""One root error type whose errors carry positions, so every failure can be shown as file:line:col."""

from __future__ import annotations

from collections.abc import Callable

from rebirth_dsl import TYPE_CHECKING
from rebirth_dsl.shared_methods import Node, Record, field, node, record, slotted_record

if TYPE_CHECKING:
    from typing import Self


@node
class Span(Node):
    """A place in a source file: 1-based line and column of the first character, and of the end."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0


@node
class Fix(Node):
    """An edit that mends a problem, as an editor's code action applies it: replace the text of `span` (an
    empty span: insert at its start) with `text`."""

    title: str  # what the action says, e.g. "change to 'farms'"
    span: Span
    text: str


@slotted_record
class Diagnostic(Record):
    """One problem: where it is, what it is, and (for a syntax error) the line with a caret under it."""

    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    path: str = ""  # a JSON path, for problems in a board or game record
    source_line: str | None = None
    hint: str | None = None
    rule: str | None = None  # the rule id a move or check breaks
    end_line: int = 0  # the end of the offending span (exclusive column), when known
    end_col: int = 0
    severity: str = "error"  # or "warning": shown, but fails only `check --strict`
    code: str = ""  # a stable name of the kind of problem (e.g. "unknown-name"), for editors and --json
    fixes: tuple[Fix, ...] = ()  # the edits that would mend it (a did-you-mean, a missing declaration)
    related: tuple[tuple[str, Span], ...] = ()  # other places the problem is about: (what it is, where)

    def render(self) -> str:
        """Render as `file:line:col: message`, with the source line and a caret under the span when known."""
        label = "warning: " if self.severity == "warning" else ""
        if self.line:
            head = f"{self.file}:{self.line}:{self.col}: {label}{self.message}"
        elif self.path:
            head = f"{self.file}: {self.path}: {label}{self.message}" if self.file else f"{self.path}: {label}{self.message}"
        elif self.file:
            head = f"{self.file}: {label}{self.message}"
        else:
            head = label + self.message
        out = [head]
        if self.source_line is not None:
            width = self.end_col - self.col if self.end_line in (0, self.line) and self.end_col > self.col else 1
            out.append("    " + self.source_line.rstrip("\n"))
            out.append("    " + " " * max(self.col - 1, 0) + "^" + "~" * (width - 1))
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)

    def to_lsp(self) -> dict[str, object]:
        """The diagnostic in the shape the Language Server Protocol uses (0-based lines and characters),
        with the file, hint and JSON path beside it."""
        line0, col0 = max(self.line - 1, 0), max(self.col - 1, 0)
        end_line0 = max((self.end_line or self.line) - 1, 0)
        end_col0 = max(self.end_col - 1, col0 + 1) if self.end_col else col0 + 1
        out: dict[str, object] = {
            "file": self.file,
            "range": {"start": {"line": line0, "character": col0}, "end": {"line": end_line0, "character": end_col0}},
            "severity": 2 if self.severity == "warning" else 1,
            "code": self.code or ("illegal-move" if self.rule else "problem"),
            "source": "rebirth",
            "message": self.message,
        }
        if self.hint:
            out["hint"] = self.hint
        if self.path:
            out["path"] = self.path
        if self.rule:
            out["rule"] = self.rule
        if self.fixes:  # kept by the client with the diagnostic, and handed back when it asks for code actions
            out["data"] = {"fixes": [{"title": f.title, "range": _lsp_range(f.span), "newText": f.text}
                                     for f in self.fixes]}
        if self.related:  # the protocol's relatedInformation, with 0-based positions as above
            out["related"] = [{"file": sp.file, "message": what, "range": _lsp_range(sp)} for what, sp in self.related]
        return out


def _lsp_range(sp: Span) -> dict[str, dict[str, int]]:
    """A span as an LSP range (0-based); a span with no end is empty, at its start."""
    end_line, end_col = (sp.end_line, sp.end_col) if sp.end_line else (sp.line, sp.col)
    return {"start": {"line": max(sp.line - 1, 0), "character": max(sp.col - 1, 0)},
            "end": {"line": max(end_line - 1, 0), "character": max(end_col - 1, 0)}}


@record
class RebirthError(Record, Exception):
    """The project's one error type: carries one or many diagnostics."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __init__(self, diagnostics: list[Diagnostic] | None = None) -> None:
        self.diagnostics = [] if diagnostics is None else diagnostics
        Exception.__init__(self, self.render())

    @classmethod
    def single(cls, message: str, **where: object) -> Self:
        """Build an error holding one diagnostic."""
        return cls([Diagnostic(message, **where)])  # type: ignore[arg-type]

    def render(self) -> str:
        """All diagnostics, one block each."""
        return "\n".join(d.render() for d in self.diagnostics)

    def __reduce__(self) -> tuple[Callable[[type[RebirthError], dict[str, object]], RebirthError], tuple[object, ...]]:
        # Exceptions pickle as cls(*args), and args is the rendered text: an error raised in a worker
        # process could not be rebuilt in the parent, which then waited for ever. Pickle the fields.
        return (_rebuild, (type(self), dict(self.__dict__)))

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


def _rebuild(cls: type[RebirthError], state: dict[str, object]) -> RebirthError:
    """An error from its pickled fields (see RebirthError.__reduce__)."""
    err = cls.__new__(cls)
    err.__dict__.update(state)
    Exception.__init__(err, err.render())
    return err


def did_you_mean(name: str, options: list[str] | set[str] | tuple[str, ...]) -> str | None:
    """The closest known name to a misspelt one, if any is close enough."""
    import difflib  # only when a name is wrong: not on the start-up path of every command

    best = difflib.get_close_matches(name, sorted(options), n=1, cutoff=0.6)
    return best[0] if best else None

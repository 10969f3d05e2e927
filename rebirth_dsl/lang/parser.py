"""Parsing: one cached LALR parser; Lark's errors become the project's own, with file:line:col and a caret."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rebirth_dsl import __version__, cache
from rebirth_dsl.errors import Diagnostic, RebirthError, RulesSyntaxError
from rebirth_dsl.lang import ast as A

if TYPE_CHECKING:
    from lark import Lark, UnexpectedInput

# Common slips, matched by Lark's match_examples: each label becomes a hint under the caret.
_EXAMPLES: dict[str, list[str]] = {
    "a tile count is written `x12` after the kind (e.g. `food x12`)": [
        "ruleset a tiles { food 12 }",
        "ruleset a tiles { settlement influence 1 3 }",
    ],
    "a trigger reads `on place KINDS: score EXPR as CATEGORY`": [
        "ruleset a on place food: score 1",
        "ruleset a on place food score 1 as farms",
    ],
    "a rules file starts with `ruleset NAME \"Title\"`": ["players 2 to 4", "tiles { food x1 }"],
    "a payout reads `pay size N: A, B, ...`": ["ruleset a area s { pay 2: 5, 3 }", "ruleset a area s { pay size 2 5, 3 }"],
    "a block is closed by `}`": ["ruleset a tiles { food x1 "],
    "a card reads `card \"Name\" POINTS: CONDITION`": [
        "ruleset a deck m { card Name 3: always }",
        "ruleset a deck m { card \"Name\": always }",
    ],
}


_LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """The one Lark LALR parser, built once per process. Building the tables takes about 210 ms, loading
    them from the data-only cache (rebirth_dsl.cache) about 17 ms; Lark's own pickle cache is never used."""
    import lark  # 38 ms to import: `rebirth eval` with a cached AST never needs it
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    key = cache.digest(lark.__version__, repr(sorted(_LARK_OPTIONS.items())), grammar)
    stored = cache.load("lark", key)
    if stored is not None:
        try:
            tables = cache.decode(stored, {})
            return lark.Lark._load_from_dict(tables["data"], tables["memo"], propagate_positions=True)
        except Exception:  # noqa: BLE001 - any damage to an entry is a miss: build the tables afresh
            pass
    parser = lark.Lark(grammar, cache=False, **_LARK_OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    cache.store("lark", key, cache.encode({"data": data, "memo": memo}))
    return parser


def _readable(term: str) -> str:
    """A terminal's name as the user would type it."""
    try:
        pattern = lark_parser().get_terminal(term).pattern
    except KeyError:
        return term
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return {"NAME": "a name", "INT": "a number", "STRING": "a \"string\"", "COUNT": "a count like x3",
            "CMP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*'", "VISIBILITY": "'visible' or 'hidden'",
            "ANY": "'any'", "$END": "the end of the file"}.get(term, term)


def _syntax_error(e: UnexpectedInput, text: str, file: str) -> RulesSyntaxError:
    from lark import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken  # lark only once text is parsed

    line = getattr(e, "line", 0) or 0
    col = getattr(e, "column", 0) or 0
    lines = text.split("\n")  # Lark counts lines by "\n" only
    if lines and lines[-1] == "":
        lines.pop()
    if isinstance(e, UnexpectedEOF) or line <= 0:
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        what = "unexpected end of file"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        what = "unexpected end of file" if tok.type == "$END" else f"unexpected {str(tok)!r}"
    elif isinstance(e, UnexpectedCharacters):
        what = f"unexpected character {e.char!r}"
    else:
        what = "syntax error"
    expected = sorted({_readable(t) for t in (getattr(e, "expected", None) or getattr(e, "allowed", None) or [])})
    msg = what
    if expected:
        shown = ", ".join(expected[:12]) + (", ..." if len(expected) > 12 else "")
        msg += f"; expected {shown}"
    hint = _example_signatures().get(_signature(e))
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    return RulesSyntaxError([Diagnostic(msg, file=file, line=line, col=max(col, 1), source_line=src, hint=hint)])


def _signature(e: UnexpectedInput) -> tuple[object, ...]:
    """Where the parser stood and what it met. Unlike Lark's match_examples, which also compares the
    depth of the parse stack, this ignores how many statements came before the error."""
    state = getattr(e, "state", None)
    token = getattr(e, "token", None)
    return (type(e).__name__, getattr(state, "position", None), getattr(token, "type", None))


@lru_cache(maxsize=1)
def _example_signatures() -> dict[tuple[object, ...], str]:
    out: dict[tuple[object, ...], str] = {}
    from lark import UnexpectedInput

    for label, examples in _EXAMPLES.items():
        for text in examples:
            try:
                lark_parser().parse(text)
            except UnexpectedInput as ex:
                out.setdefault(_signature(ex), label)
    return out


def parse_text(text: str, file: str = "<rules>") -> A.Rules:
    """Parse one rules text (without resolving `extends`)."""
    from lark import UnexpectedInput

    from rebirth_dsl.lang.lower import Lower  # imports lark (38 ms): only when text is really parsed

    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, file) from None
    header, statements = Lower(file).transform(tree)
    return A.Rules(header, tuple(statements), file, text, {file: text})


# every class a cached AST may hold: the AST's node classes and the span class, nothing else
_AST_CLASSES: dict[str, type] = {
    name: obj for name, obj in vars(A).items() if isinstance(obj, type) and dataclasses.is_dataclass(obj)
}


def _cached_parse(text: str, file: str) -> A.Rules:
    """parse_text, with the AST cached as data by the hash of the text, the file name and the code that
    shapes the AST, so a command that only evaluates a game need not import Lark or parse again."""
    pkg = resources.files(__package__)
    code = b"".join(pkg.joinpath(f).read_bytes() for f in ("grammar.lark", "lower.py", "ast.py"))
    key = cache.digest(__version__, code, file, text)
    stored = cache.load("ast", key)
    if stored is not None:
        try:
            rules = cache.decode(stored, _AST_CLASSES)
            if isinstance(rules, A.Rules) and rules.source == text:
                return rules
        except Exception:  # noqa: BLE001 - a damaged entry is a miss: parse again
            pass
    rules = parse_text(text, file)
    try:
        cache.store("ast", key, cache.encode(rules))
    except TypeError:
        pass  # a node the codec does not know: simply not cached
    return rules


def load_rules(path: str | Path, _seen: tuple[str, ...] = ()) -> A.Rules:
    """Read a rules file and, if it extends another, merge it over its base."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RebirthError.single(f"cannot read rules: {e.strerror or e}", file=str(path)) from None
    rules = _cached_parse(text, str(path))
    ext = rules.header.extends
    if ext is None:
        return rules
    base_path = (p.parent / ext).resolve()
    if str(base_path) in _seen or base_path == p.resolve():
        sp = rules.header.span
        raise RebirthError.single(f"ruleset extends itself through {ext!r}", file=sp.file, line=sp.line, col=sp.col)
    if not base_path.exists():
        sp = rules.header.span
        raise RebirthError.single(f"extended ruleset {ext!r} not found (looked in {base_path.parent})",
                                  file=sp.file, line=sp.line, col=sp.col)
    base = load_rules(base_path, _seen + (str(p.resolve()),))
    return merge(base, rules)


def _merge_block(base: A.AreaBlock | A.MajorityBlock, child: A.AreaBlock | A.MajorityBlock) -> A.AreaBlock | A.MajorityBlock:
    items = list(base.items)
    for it in child.items:
        for i, old in enumerate(items):
            if old.key == it.key:
                items[i] = it
                break
        else:
            items.append(it)
    category = child.category or base.category
    return type(base)(base.kind, category, tuple(items), child.span)  # type: ignore[arg-type]


class OverrideProblem(RebirthError):
    """A `without` that names nothing in the base ruleset."""


def merge(base: A.Rules, child: A.Rules) -> A.Rules:
    """Child statements replace base statements with the same key; `without` removes one."""
    out: list[A.Statement] = list(base.statements)
    problems: list[Diagnostic] = []
    for st in child.statements:
        if isinstance(st, A.Without):
            idx = [i for i, old in enumerate(out) if getattr(old, "key", None) == st.target]
            if not idx:
                sp = st.span
                problems.append(Diagnostic(f"`without` names {' '.join(map(str, st.target))!r}, which the base "
                                           "ruleset does not have", file=sp.file, line=sp.line, col=sp.col))
            for i in reversed(idx):
                del out[i]
            continue
        key = getattr(st, "key", None)
        if key is None:
            out.append(st)
            continue
        for i, old in enumerate(out):
            if getattr(old, "key", None) == key:
                if isinstance(st, A.AreaBlock | A.MajorityBlock) and isinstance(old, type(st)):
                    out[i] = _merge_block(old, st)
                else:
                    out[i] = st
                break
        else:
            out.append(st)
    if problems:
        raise OverrideProblem(problems)
    sources = dict(base.sources)
    sources.update(child.sources)
    return A.Rules(child.header, tuple(out), child.file, child.source, sources)

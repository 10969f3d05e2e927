"""Loading rules files: each file's AST from the data-only cache (lang.syntax parses text not seen before),
`extends` resolved by merging a ruleset over its base."""

from __future__ import annotations

from pathlib import Path

from rebirth_dsl import TYPE_CHECKING, __version__, cache
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.files import read_text, shown
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.limits import MAX_RULES_BYTES
from rebirth_dsl.lang.refs import base_not_found, find_base, inside, with_folder

if TYPE_CHECKING:
    from typing import Protocol, TypeVar

    from lark import Lark

    class _Keyed(Protocol):
        @property
        def key(self) -> A.Key: ...

    _Item = TypeVar("_Item", bound=_Keyed)

# This package's own files, beside this module: importlib.resources would find the same files, at the price of
# importing it (and zipfile, tempfile) on every command's start.
_HERE = Path(__file__).resolve().parent

MAX_EXTENDS_DEPTH = 16  # a variant of a variant of a game: real chains are 1 or 2 long


def lark_parser() -> Lark:
    """The one Lark LALR parser (see lang.syntax.lark_parser)."""
    from rebirth_dsl.lang.syntax import lark_parser as build  # Lark: only where text is really parsed

    return build()


def parse_text(text: str, file: str = "<rules>") -> A.Rules:
    """Parse one rules text (without resolving `extends`); see lang.syntax.parse_text."""
    from rebirth_dsl.lang.syntax import parse_text as parse

    return parse(text, file)


# every class a cached AST may hold: the AST's node classes and the span class, nothing else
_AST_CLASSES: dict[str, type] = {
    name: obj for name, obj in vars(A).items() if isinstance(obj, type) and hasattr(obj, "__shared_fields__")
}


# the code that shapes a file's AST: a change to any of it makes every cached AST stale (the nodes' methods
# and their Span are the package's own, one folder up)
_AST_CODE = ("grammar.lark", "lower.py", "ast.py", "syntax.py", "parser.py", "limits.py", "../shared_methods.py",
             "../errors.py")


def _cached_parse(text: str, file: str) -> A.Rules:
    """parse_text, with the AST cached as data by the hash of the text, the file name and the code that
    shapes the AST, so a command that only evaluates a game need not import Lark or parse again."""
    key = cache.digest(__version__, cache.code_of([_HERE.joinpath(f) for f in _AST_CODE]), file, text)
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
    except (TypeError, ValueError, RecursionError):
        pass  # a node the codec does not know, or nesting it cannot write: simply not cached
    return rules


def load_rules(path: str | Path, _seen: tuple[str, ...] = (), root: Path | None = None) -> A.Rules:
    """Read a rules file and, if it extends another, merge it over its base (found by lang.refs.find_base:
    a path relative to the file, or a bundled ruleset by name). With `root` (a folder: the files a web
    visitor sent, with the bundled rulesets beside them), `extends` may name only a file inside that
    folder, and nothing outside it is opened."""
    p = Path(path)
    text = read_text(p, "rules", MAX_RULES_BYTES)  # regular files only, size-limited, UTF-8 with the bad byte's place
    rules = with_folder(_cached_parse(text, shown(path)), p.parent)
    ext = rules.header.extends
    if ext is None:
        return rules
    sp = rules.header.span
    if len(_seen) >= MAX_EXTENDS_DEPTH:
        raise RebirthError.single(f"rulesets extend each other more than {MAX_EXTENDS_DEPTH} deep",
                                  file=sp.file, line=sp.line, col=sp.col)
    if root is not None and not inside(root, p.parent, ext):
        raise RebirthError.single(f"`extends {shown(ext)!r}` names a file outside this ruleset's folder: here a "
                                  "ruleset may extend only a bundled ruleset by name or a rules file sent with it",
                                  file=sp.file, line=sp.line, col=sp.col, hint="name a bundled ruleset (`rebirth list` shows them) or send the file with this one")
    try:
        found = find_base(p.parent, ext, root)
        base_path = found.resolve() if found is not None else None
        here = p.resolve()
    except (OSError, ValueError, RuntimeError) as e:  # a name too long, a link loop
        raise RebirthError.single(f"cannot read extended ruleset {shown(ext)!r}: {getattr(e, 'strerror', None) or e}",
                                  file=sp.file, line=sp.line, col=sp.col) from None
    if base_path is None:
        raise RebirthError.single(base_not_found(p.parent, ext, root), file=sp.file, line=sp.line, col=sp.col,
                                  code="unknown-base")
    if str(base_path) in _seen or base_path == here:
        raise RebirthError.single(f"ruleset extends itself through {shown(ext)!r}", file=sp.file, line=sp.line,
                                  col=sp.col)
    base = load_rules(base_path, _seen + (str(here),), root)
    return merge(base, rules)


def _merge_items(base: tuple[_Item, ...], child: tuple[_Item, ...]) -> tuple[_Item, ...]:
    """A block's items with the child's replacing the base's of the same key, new ones after."""
    items = list(base)
    for it in child:
        for i, old in enumerate(items):
            if old.key == it.key:
                items[i] = it
                break
        else:
            items.append(it)
    return tuple(items)


def _merge_block(base: A.AreaBlock | A.MajorityBlock, child: A.AreaBlock | A.MajorityBlock) -> A.AreaBlock | A.MajorityBlock:
    category = child.category or base.category
    if isinstance(base, A.AreaBlock):
        assert isinstance(child, A.AreaBlock)  # merge pairs blocks of one class
        return A.AreaBlock(base.kind, category, _merge_items(base.items, child.items), child.span)
    assert isinstance(child, A.MajorityBlock)
    return A.MajorityBlock(base.kind, category, _merge_items(base.items, child.items), child.span)


class OverrideProblem(RebirthError):
    """A `without` that names nothing in the base ruleset."""


def trigger_identity(st: A.Trigger, classes: dict[str, tuple[str, ...]]) -> A.Key:
    """What a trigger reacts to and what it does, with classes expanded: `on place farm: ... as farms` and
    `on place energy, food: ... as farms` are the same trigger. The override model (docs/language.md):
    a statement of an extending ruleset replaces the base's statement of the same identity."""
    return event_identity(st.event, classes) + _action_identity(st.action)


def event_identity(ev: A.Event, classes: dict[str, tuple[str, ...]]) -> A.Key:
    """An event with its tile kinds resolved through classes (a `without on EVENT` names it so)."""
    if isinstance(ev, A.PlaceEvent):
        kinds = "any" if ev.kinds is None else tuple(sorted({k for n in ev.kinds for k in classes.get(n, (n,))}))
        return ("place", kinds, ev.at)
    if ev.by:  # a filtered first touch is a statement of its own, beside the unfiltered one
        return ("touch", ev.kind, tuple(sorted({k for n in ev.by for k in classes.get(n.id, (n.id,))})))
    return ("touch", ev.kind)


def _action_identity(act: A.Action) -> A.Key:
    match act:
        case A.ScoreAction(category=c):
            return ("score", c)
        case A.DrawAction(deck=d):
            return ("draw", d)
    return ("ability",)


def _target_text(target: A.Key) -> str:
    """A `without` target as it was written: `on place food, energy at harbour`, `ability score_3`."""
    if target[:2] == ("on", "place"):
        kinds, at = target[2], target[3]
        assert isinstance(kinds, tuple | None)
        return f"on place {'any' if kinds is None else ', '.join(kinds)}" + (f" at {at}" if at else "")
    if target[:2] == ("on", "touch"):
        by = target[3] if len(target) > 3 else ()
        assert isinstance(by, tuple)
        return f"on first touch {target[2]}" + (f" by {', '.join(by)}" if by else "")
    return " ".join(map(str, target))


def _without_event(st: A.Without) -> A.Event:
    """The event a `without on EVENT` names (its target is the event's key: see lower.without_trigger)."""
    _, kind, *rest = st.target
    if kind == "place":
        kinds, at = rest
        assert isinstance(kinds, tuple | None) and isinstance(at, str | None)
        return A.PlaceEvent(kinds, at, st.span)
    touched, by = rest[0], rest[1] if len(rest) > 1 else ()
    assert isinstance(touched, str) and isinstance(by, tuple)
    return A.TouchEvent(touched, st.span, tuple(A.Name(k, st.span) for k in by))


def statement_identity(st: object, classes: dict[str, tuple[str, ...]]) -> A.Key | None:
    """What makes two statements the same statement for overrides: a trigger's event and action (classes
    expanded), otherwise the statement's key (None: never the same as another)."""
    if isinstance(st, A.Trigger):
        return ("on",) + trigger_identity(st, classes)
    return getattr(st, "key", None)


def merge(base: A.Rules, child: A.Rules) -> A.Rules:
    """Child statements replace the base's statements of the same identity (triggers: the same event and
    the same category, deck or ability; others: the same key); `without` removes base statements. A child
    statement never replaces another of the same child (both stay, and check warns where they overlap)."""
    classes = {s.name: s.kinds for s in (*base.statements, *child.statements) if isinstance(s, A.ClassDecl)}

    def ident(st: object) -> A.Key | None:
        return statement_identity(st, classes)

    out: list[A.Statement] = list(base.statements)
    from_base = [True] * len(out)
    problems: list[Diagnostic] = []
    for st in child.statements:
        if isinstance(st, A.Without):
            if st.target[:1] == ("on",):
                ev = _without_event(st)
                idx = [i for i, old in enumerate(out) if from_base[i] and isinstance(old, A.Trigger)
                       and event_identity(old.event, classes) == event_identity(ev, classes)]
            else:
                idx = [i for i, old in enumerate(out) if from_base[i] and getattr(old, "key", None) == st.target]
            if not idx:
                sp = st.span
                problems.append(Diagnostic(f"`without` names {_target_text(st.target)!r}, which the base "
                                           "ruleset does not have", file=sp.file, line=sp.line, col=sp.col))
            for i in reversed(idx):
                del out[i]
                del from_base[i]
            continue
        key = ident(st)
        if key is None:
            out.append(st)
            from_base.append(False)
            continue
        for i, old in enumerate(out):
            if from_base[i] and ident(old) == key:
                if isinstance(st, A.AreaBlock | A.MajorityBlock) and isinstance(old, type(st)):
                    out[i] = _merge_block(old, st)
                else:
                    out[i] = st
                from_base[i] = False
                break
        else:
            out.append(st)
            from_base.append(False)
    if problems:
        raise OverrideProblem(problems)
    sources = dict(base.sources)
    sources.update(child.sources)
    inherited = tuple(dict.fromkeys((*base.inherited_categories, *(c for c, _ in scored_categories(base)))))
    return A.Rules(child.header, tuple(out), child.file, child.source, sources, inherited)


def scored_categories(rules: A.Rules) -> list[tuple[str, A.Statement]]:
    """Every category the statements score into or declare, with the statement that names it, in order."""
    out: list[tuple[str, A.Statement]] = []
    for s in rules.statements:
        match s:
            case A.Trigger(action=A.ScoreAction(category=c)) | A.PublicDecl(category=c) | A.EndHeld(category=c):
                out.append((c, s))
            case A.EndIncomplete(category=c) | A.EndOwned(category=c):
                out.append((c, s))
            case A.AbilityDecl(effect=A.ScoreEffect(category=c)):
                out.append((c, s))
            case A.AreaBlock(category=c) | A.MajorityBlock(category=c) if c is not None:
                out.append((c, s))
            case A.DeckBlock(on_empty=A.ScoreAction(category=c)):
                out.append((c, s))
            case A.CategoryDecl(names=names):
                out.extend((n, s) for n in names)
    return out

"""English text for a ruleset, generated from its statements (the rules explain themselves)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rebirth_dsl.errors import Span
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.functions import SIGNATURES, say_table
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.rules import area, majority, touch
from rebirth_dsl.rules.words import Words, cited


def expr_text(e: A.Expr) -> str:
    """An expression in the rules language's own notation (it is meant to read as English already)."""
    match e:
        case A.Num(value=v):
            return str(v)
        case A.Name(id=n):
            return {"me": "you", "always": "always"}.get(n, n)
        case A.Landmark(kind=k, name=n, tag=t):
            return f'{k} "{n}"' if n is not None else f"the {k} with the {t}"
        case A.Not(operand=o):
            return f"not {expr_text(o)}"
        case A.BinOp(op=op, left=left, right=right):
            word = {">=": "at least", "<=": "at most", "==": "is", "!=": "is not", ">": "more than",
                    "<": "less than"}.get(op, op)
            return f"{_operand(left, op, False)} {word} {_operand(right, op, True)}"
        case A.Call(fn="players", args=args) if args:
            return say_table(args)  # a player-count table: `15 with 2 or 3 players, 13 with 4`
        case A.PlayerEntry():
            return say_table((e,))
        case A.Call(fn=fn, args=args):
            said = [expr_text(a) for a in args]
            sig = SIGNATURES.get(fn)
            return sig.say(said) if sig is not None else f"{fn}({', '.join(said)})"  # an attribute sum
    return "?"


_BINDS = {"or": 0, "and": 1, ">=": 2, "<=": 2, "==": 2, "!=": 2, ">": 2, "<": 2, "+": 3, "-": 3, "*": 4}


def _operand(e: A.Expr, op: str, right: bool) -> str:
    """An operand of `op` in the notation, in parentheses where it binds more loosely (`15 - (players - 2)`),
    and a player-count table under arithmetic, where its commas would run into the sum (`(5 with 2 players, 4
    with 3 or 4) + 1`)."""
    text = expr_text(e)
    if isinstance(e, A.Call) and e.fn == "players" and e.args and op in ("+", "-", "*"):
        return f"({text})"
    if isinstance(e, A.BinOp):
        inner, outer = _BINDS.get(e.op, 5), _BINDS.get(op, 5)
        if inner < outer or (right and inner == outer and op in ("-", "+", "*") and e.op != op or
                             right and inner == outer and op == "-"):
            return f"({text})"
    return text


# ----- a mission card's condition in plain English (the web page and the terminal show these) -----------
_COMPARE = {">=": "at least {}", ">": "more than {}", "<=": "at most {}", "<": "fewer than {}", "==": "exactly {}"}


def _plural(noun: str) -> str:
    """A kind's plural (`castle` -> `castles`); a mass noun (food, energy) stays as it is."""
    return noun if noun in ("food", "energy", "sea", "water") else noun + "s"


def _sel(e: A.Expr) -> str | None:
    """A kind, tag or landmark as a noun (None: not one of those)."""
    match e:
        case A.Name(id=n):
            return n
        case A.Landmark(name=n) if n is not None:
            return n
        case A.Landmark(kind=k, tag=t):
            return f"the {k} with the {t}"
    return None


def _measure(e: A.Expr) -> tuple[str, str] | None:
    """A card's measure as (`{}` to fill with "at least 8", the words for "the most"), or None."""
    match e:
        case A.Call(fn="count" | "size", args=(A.Call(fn="owned", args=(A.Name(id="me"), kind)),)) if _sel(kind):
            k = _plural(str(_sel(kind)))
            return f"you hold {{}} {k}", f"you hold the most {k}"
        case A.Call(fn="count" | "size", args=(A.Call(fn="touched", args=(A.Name(id="me"), kind)),)) if _sel(kind):
            k = _plural(str(_sel(kind)))
            return f"your tiles touch {{}} {k}", f"your tiles touch the most {k}"
        case A.Call(fn="count" | "size", args=(A.Call(fn="won", args=(A.Name(id="me"),)),)):
            return "you come first in {} completed areas", "you come first in the most completed areas"
        case A.Call(fn="count" | "size", args=(A.Call(fn="areas", args=(A.Call(fn="tiles", args=(A.Name(id="me"), *ks)),)),)):
            what = " or ".join(str(_sel(k)) for k in ks) + " " if ks and all(_sel(k) for k in ks) else ""
            return (f"your {what}tiles lie in {{}} different areas", f"your {what}tiles lie in the most areas")
        case A.Call(fn="count" | "size", args=(A.Call(fn="at", args=(A.Call(fn="tiles", args=(A.Name(id="me"),)), tag)),)) \
                if _sel(tag):
            return f"{{}} of your tiles are on {_sel(tag)} hexes", f"you have the most tiles on {_sel(tag)} hexes"
        case A.Call(fn="count" | "size", args=(A.Call(fn="near", args=(A.Call(fn="tiles", args=(A.Name(id="me"),)), what)),)) \
                if _sel(what):
            noun = str(_sel(what))
            near = noun if isinstance(what, A.Landmark) else f"the {noun}" if _plural(noun) == noun else _a(noun)
            return f"{{}} of your tiles are next to {near}", f"you have the most tiles next to {near}"
        case A.Call(fn="count" | "size", args=(A.Call(fn="atleast", args=(A.Call(fn="groups", args=(A.Name(id="me"), *ks)),
                                                                           A.Num(value=m))),)) \
                if ks and all(_sel(k) for k in ks):
            what = " or ".join(str(_sel(k)) for k in ks)
            return (f"you have {{}} {what} groups of {m} or more tiles",
                    f"you have the most {what} groups of {m} or more tiles")
        case A.Call(fn="count" | "size", args=(A.Call(fn="tiles", args=(A.Name(id="me"), *ks)),)) if all(_sel(k) for k in ks):
            what = " or ".join(str(_sel(k)) for k in ks) + " " if ks else ""
            return f"you have {{}} {what}tiles on the board", f"you have the most {what}tiles on the board"
        case A.Call(fn="largest", args=(A.Call(fn="groups", args=(A.Name(id="me"), *ks)),)) if ks and all(_sel(k) for k in ks):
            what = " or ".join(str(_sel(k)) for k in ks)
            return (f"your largest {what} group has {{}} tiles", f"your largest {what} group is the largest at the "
                    "table")
        case A.Call(fn=attr, args=(A.Call(fn="tiles", args=(A.Name(id="me"), *ks)),)) if attr not in SIGNATURES \
                and all(_sel(k) for k in ks):
            what = " or ".join(str(_sel(k)) for k in ks) + " " if ks else ""
            return (f"the {attr} of your {what}tiles adds up to {{}}", f"your {what}tiles have the most {attr}")
    return None


def card_english(e: A.Expr, worked: Callable[[A.Expr], int | None] | None = None) -> str:
    """A mission card's condition in plain English; `worked` gives a number's value at the table (`13 - 2 *
    players` with 3 players: 7), or None to say it as the rules do. A shape it has no words for reads as
    the rules' notation."""

    def number(x: A.Expr) -> str:
        n = worked(x) if worked is not None else None
        return expr_text(x) if n is None else str(n)

    match e:
        case A.Name(id="always"):
            return "always fulfilled: it pays whatever happens"
        case A.BinOp(op="and", left=A.BinOp(op=">=", left=m, right=A.Num(value=n)), right=A.Call(fn="most", args=(m2,))) \
                if expr_text(m) == expr_text(m2) and _measure(m) is not None:
            return _measure(m)[1] + f" (at least {n}; a tie counts)"  # type: ignore[index]
        case A.BinOp(op="and" | "or" as op, left=left, right=right):
            return f"{card_english(left, worked)} {op} {card_english(right, worked)}"
        case A.BinOp(op=">=" | ">" | "<=" | "<" | "==" as op, left=left, right=right) if _measure(left) is not None:
            said, _ = _measure(left)  # type: ignore[misc]
            return said.format(_COMPARE[op].format(number(right)))
        case A.BinOp(op="==", left=A.Call(fn="owner", args=(lm,)), right=A.Name(id="me")) if _sel(lm):
            return f"you hold {_sel(lm)}"
        case A.Call(fn="most", args=(inner,)) if _measure(inner) is not None:
            return _measure(inner)[1] + " (a tie counts)"  # type: ignore[index]
        case A.Call(fn="fewest", args=(inner,)) if _measure(inner) is not None:
            return "nobody has fewer than you: " + _measure(inner)[0].format("as few as")  # type: ignore[index]
    return expr_text(e)


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


class _Spanned(Protocol):
    @property
    def span(self) -> Span: ...


def _cite(rules: A.Rules, span: Span) -> tuple[str, ...]:
    """The rule ids the comment on the span's line cites."""
    return comment_ids(rules.sources.get(span.file, "")).get(span.line, ())


def _ids(rules: A.Rules, span: Span) -> str:
    return cited(_cite(rules, span))


def describe(rules: A.Rules) -> str:
    """The ruleset as numbered English paragraphs, each citing the rule ids of its statement."""
    head = f"{rules.header.title or rules.header.name}" + (" (extends another ruleset)" if rules.header.extends else "")
    return "\n".join([head, "", *(w.line() for w in describe_words(rules))])


def describe_words(rules: A.Rules) -> list[Words]:
    """The ruleset's statements in English, as values: each sentence with the rule ids it cites and its depth
    (an item under its statement), so a reader (the LSP's hover) never parses ids back out of text."""
    out: list[Words] = []
    tiles = [s for s in rules.statements if isinstance(s, A.TileSpec)]

    def say(text: str, node: _Spanned, ids: tuple[str, ...] | None = None) -> None:
        out.append(Words(text, _cite(rules, node.span) if ids is None else ids))

    def cite(span: Span) -> tuple[str, ...]:
        return _cite(rules, span)

    def words(ws: list[Words]) -> None:
        """A rule module's English (rules/): a statement's line, then its items indented under it."""
        out.extend(ws)

    for s in rules.statements:
        match s:
            case A.PlayersRange():
                say(f"{s.low} to {s.high} players, seated clockwise.", s)
            case A.Turns():
                say("On your turn: place the tile in hand, score it, draw a tile; then the next player clockwise.", s)
            case A.Declare(what="tag", names=names, on=on) if on:
                say(f"Marks {', '.join(names)} may sit only on {', '.join(on)} hexes.", s)
            case A.BoardDecl(ref=ref, named=named):
                say(f"Played on the {'bundled ' if named else ''}board {ref}" + ("" if named else " (a file beside "
                    "the rules)") + ", unless another is chosen.", s)
            case A.CategoryDecl(names=names):
                say(f"Adds the scoring categor{'ies' if len(names) > 1 else 'y'} {', '.join(names)}.", s)
            case A.TileSpec() if s is tiles[0]:
                parts = []
                for t in tiles:
                    if t.attribute:
                        vals = ", ".join(f"{c} of {t.attribute} {v}" for v, c in t.counts)
                        parts.append(f"{sum(c for _, c in t.counts)} {t.kind} ({vals})")
                    else:
                        parts.append(f"{t.counts[0][1]} {t.kind}")
                say("Each colour has " + ", ".join(parts) + ".", s)
            case A.SetAside():
                say(f"Each player sets aside {s.count} tiles at random ({'they may look at them' if s.visible else 'face down, unseen'}); they never play.", s)
            case A.Hand():
                say(f"Each player starts with {s.count} tile in hand.", s)
            case A.Returns():
                returned = ", ".join(f"{tc.count} {tc.kind}" + (f" of {tc.value}" if tc.value else "") for tc in s.tiles)
                say(f"With {s.players} players each returns {returned} to the box.", s)
            case A.Neutral():
                say(f"With {s.players} players, {s.count} neutral tiles cover the hexes marked {s.tag}.", s)
            case A.PublicSetup():
                say(f"{s.count} cards of the {s.deck} deck lie face up as public missions.", s)
            case A.OneTile():
                say("A hex holds one tile; landmarks and undeclared hexes hold none.", s)
            case A.PlaceRule(fallback=False):
                say(f"{_a(s.tile).capitalize()} goes on a free {' or '.join(s.on)} hex.", s)
            case A.PlaceRule(fallback=True):
                say(f"If none is free, {_a(s.tile)} may go on a free {' or '.join(s.on)} hex.", s)
            case A.PassRule():
                say("If no hex is legal for the tile, it is passed: removed, scoring nothing; you still draw.", s)
            case A.GroupDecl():
                say(f"Adjacent tiles of one kind ({', '.join(s.kinds)}) and one owner form a group.", s)
            case A.Trigger(event=A.PlaceEvent() as ev, action=A.ScoreAction() as act):
                what = "any tile" if ev.kinds is None else _a(" or ".join(ev.kinds))
                where = f" on a {ev.at} hex" if ev.at else ""
                say(f"Placing {what}{where} scores {expr_text(act.expr)} ({act.category}).", s)
            case A.Trigger(event=A.PlaceEvent() as ev, action=A.DrawAction() as act):
                what = "any tile" if ev.kinds is None else _a(" or ".join(ev.kinds))
                where = f" on a {ev.at} hex" if ev.at else ""
                say(f"Placing {what}{where} draws the top {act.deck} card.", s)
            case A.Trigger(event=A.TouchEvent() as ev, action=act):
                out.append(touch.english(ev, act, _cite(rules, s.span), expr_text))
            case A.AreaBlock():
                words(area.english(s, cite, expr_text))
            case A.MajorityBlock():
                words(majority.english(s, cite))
            case A.DeckBlock():
                empty = ("draws nothing" if s.on_empty is None else
                         f"scores {expr_text(s.on_empty.expr)} ({s.on_empty.category}) instead")
                say(f"The {s.name} deck holds {sum(c.copies for c in s.cards)} cards; a draw from it when it is "
                    f"empty {empty}{_ids(rules, s.empty_span) if s.empty_span.line else ''}:", s)
                for card in s.cards:
                    pts = f"{card.points}" + (f" / {card.small}" if card.small is not None else "")
                    copies = f" (x{card.copies})" if card.copies > 1 else ""
                    out.append(Words(f'"{card.name}"{copies}, {pts}: {expr_text(card.condition)}', (), 1))
            case A.PublicDecl():
                order = "the placer first, then clockwise" if s.placer_first else "in seat order"
                say(f"Public missions ({s.category}) are checked after every placement, {order}: the first to "
                    "fulfil one scores its big number, each later player its small number, once.", s)
            case A.AbilityDecl():
                match s.effect:
                    case A.ScoreEffect(expr=e):
                        what = f"score {expr_text(e)}"
                    case A.TakeAsideEffect():
                        what = "take one of your set-aside tiles into hand"
                    case A.DrawKeepEffect(draw=n, keep=k, rest=rest):
                        where = {"bottom": "go under your supply in the order drawn", "top": "go back on top of "
                                 "your supply", "box": "leave the game"}.get(rest, rest)
                        what = f"draw {n} tiles instead of one at the end of the turn and keep {k}; the others {where}"
                    case A.DrawCardEffect(deck=d):
                        what = f"take a {d} card"
                    case A.DoubleEffect(deck=d, factor=f, markers=m, target=tg):
                        which = "one you have not fulfilled yet" if tg == "unfulfilled" else "any one"
                        what = (f"put a marker on a face-up {d} card ({which}): it pays you {f} times its points; "
                                f"you have {m} marker{'s' if m != 1 else ''}")
                say(f"Ability {s.name}: {what}.", s)
            case A.EndIncomplete():
                say(f"At the end, each tile in an incomplete {s.kind} area scores {expr_text(s.expr)} ({s.category}).", s)
            case A.EndOwned():
                say(f"At the end, each {s.kind} you hold scores {expr_text(s.expr)} ({s.category}).", s)
            case A.EndHeld():
                say(f"At the end, each card you hold scores its points if fulfilled ({s.category}).", s)
            case A.WinnerTies():
                steps = "; else ".join(f"{expr_text(st.expr)} wins" + (" if among the tied" if st.among_tied else ", even if not tied")
                                       for st in s.steps)
                say(f"Most points wins. Ties: {steps}; else the win is shared.", s)
    return out


def describe_statement(rules: A.Rules, statement: A.Statement) -> list[Words]:
    """One statement in English, worded as `describe` words it, as values with their rule ids; [] if it has
    no wording."""
    return describe_words(A.Rules(rules.header, (statement,), rules.file, rules.source, rules.sources))

"""English text for a ruleset, generated from its statements (the rules explain themselves)."""

from __future__ import annotations

from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.ids import comment_ids
from rebirth_dsl.lang.vocab import TIE_STEPS


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
            return f"{expr_text(left)} {word} {expr_text(right)}"
        case A.Call(fn=fn, args=args):
            return f"{fn}({', '.join(expr_text(a) for a in args)})"
    return "?"


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _ids(rules: A.Rules, span: A.Span) -> str:
    src = rules.sources.get(span.file, "")
    ids = comment_ids(src).get(span.line, ())
    return f" [{', '.join(ids)}]" if ids else ""


def describe(rules: A.Rules) -> str:
    """The ruleset as numbered English paragraphs, each citing the rule ids of its statement."""
    out = [f"{rules.header.title or rules.header.name}" + (" (extends another ruleset)" if rules.header.extends else ""), ""]
    tiles = [s for s in rules.statements if isinstance(s, A.TileSpec)]

    def say(text: str, node: object) -> None:
        out.append(f"- {text}{_ids(rules, node.span)}")  # type: ignore[attr-defined]

    for s in rules.statements:
        match s:
            case A.PlayersRange():
                say(f"{s.low} to {s.high} players, seated clockwise.", s)
            case A.Turns():
                say("On your turn: place the tile in hand, score it, draw a tile; then the next player clockwise.", s)
            case A.Declare(what="tag", names=names, on=on) if on:
                say(f"Marks {', '.join(names)} may sit only on {', '.join(on)} hexes.", s)
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
                names = ", ".join(f"{tc.count} {tc.kind}" + (f" of {tc.value}" if tc.value else "") for tc in s.tiles)
                say(f"With {s.players} players each returns {names} to the box.", s)
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
            case A.Trigger(event=A.TouchEvent() as ev, action=act):
                does = f"draw the top {act.deck} card" if isinstance(act, A.DrawAction) else "use its ability once"
                say(f"The first time you place next to a {ev.kind}, you {does}.", s)
            case A.AreaBlock():
                say(f"A {s.kind} area is scored when its last hex is filled ({s.category or s.kind}):", s)
                for it in s.items:
                    match it:
                        case A.RankBy():
                            out.append(f"    - players rank by the {it.attribute} of their tiles there; 0 does not rank{_ids(rules, it.span)}")
                        case A.Ties():
                            out.append("    - ties: " + "; then ".join(TIE_STEPS[st].text if st in TIE_STEPS else " ".join(st) for st in it.steps) + _ids(rules, it.span))
                        case A.Pay():
                            who = f" with {it.players} players" if it.players else ""
                            out.append(f"    - size {it.size}{who} pays " + " / ".join(expr_text(a) for a in it.amounts) + _ids(rules, it.span))
                        case A.Alone():
                            out.append(f"    - alone in an area: the {' + '.join(it.places)} places' payouts{_ids(rules, it.span)}")
            case A.MajorityBlock():
                say(f"A {s.kind} is held by majority over its neighbouring hexes:", s)
                for it in s.items:
                    match it:
                        case A.UnownedTakes():
                            out.append(f"    - placing next to an unheld {s.kind} takes it{_ids(rules, it.span)}")
                        case A.Compare():
                            ms = ", then ".join("all tiles" if m == "any" else f"{m} tiles" for m in it.metrics)
                            out.append(f"    - otherwise the placer is compared with the holder by {ms}: more takes it{_ids(rules, it.span)}")
                        case A.FinalTie():
                            out.append(f"    - still tied: the {'placer takes it' if it.placer_takes else 'holder keeps it'}{_ids(rules, it.span)}")
            case A.DeckBlock():
                say(f"The {s.name} deck holds {sum(c.copies for c in s.cards)} cards:", s)
                for c in s.cards:
                    pts = f"{c.points}" + (f" / {c.small}" if c.small is not None else "")
                    copies = f" (x{c.copies})" if c.copies > 1 else ""
                    out.append(f'    - "{c.name}"{copies}, {pts}: {expr_text(c.condition)}')
            case A.PublicDecl():
                say(f"Public missions ({s.category}) are checked after every placement: the first to fulfil one "
                    "scores its big number, each later player its small number, once.", s)
            case A.AbilityDecl():
                match s.effect:
                    case A.ScoreEffect(expr=e):
                        what = f"score {expr_text(e)}"
                    case A.TakeAsideEffect():
                        what = "take one of your set-aside tiles into hand"
                    case A.DrawKeepEffect(draw=n, keep=k):
                        what = f"draw {n} tiles and keep {k}"
                    case A.DrawCardEffect(deck=d):
                        what = f"take a {d} card"
                    case A.DoubleEffect(deck=d):
                        what = f"double one {d} card for you"
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
    return "\n".join(out)

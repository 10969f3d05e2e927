"""Checks of a ruleset, and of a ruleset against a board: an ordered tuple of pure functions.

Each check returns diagnostics and never raises; `check` runs them all, so a user sees every problem
at once, each at its file:line:col (or a board's JSON path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields, is_dataclass

from rebirth_dsl.board.model import Board
from rebirth_dsl.check.symbols import Tables
from rebirth_dsl.check.types import ExprError, Scope, type_of
from rebirth_dsl.errors import Diagnostic, did_you_mean
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.vocab import PLACES, TIE_STEPS

Check = Callable[[A.Rules, Tables, Board | None], list[Diagnostic]]


def _at(node: object, msg: str, hint: str | None = None) -> Diagnostic:
    sp = node.span  # type: ignore[attr-defined]
    return Diagnostic(msg, file=sp.file, line=sp.line, col=sp.col, hint=hint)


def _unknown(node: object, what: str, name: str, options: Iterable[str]) -> Diagnostic:
    dym = did_you_mean(name, list(options))
    return _at(node, f"unknown {what} `{name}`", f"did you mean `{dym}`?" if dym else None)


def check_declarations(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every rules file needs tiles, placement and players; names are declared once."""
    out: list[Diagnostic] = []
    seen: dict[str, str] = {}
    for s in rules.statements:
        if isinstance(s, A.Declare):
            for n in s.names:
                if n in seen and seen[n] != s.what:
                    out.append(_at(s, f"`{n}` is declared as both a {seen[n]} and a {s.what}"))
                seen[n] = s.what
        if isinstance(s, A.ClassDecl) and (s.name in t.tile_kinds):
            out.append(_at(s, f"class `{s.name}` has the name of a tile kind"))
    if not t.tile_kinds:
        out.append(_at(rules.header, "the ruleset declares no tiles (`tiles { food x12 ... }`)"))
    if not any(isinstance(s, A.PlayersRange) for s in rules.statements):
        out.append(_at(rules.header, "the ruleset does not say how many may play (`players 2 to 4`)"))
    return out


def check_names(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every name a statement uses is declared, with a "did you mean" when it is not."""
    out: list[Diagnostic] = []
    hexlike = t.hex_kinds + t.landmark_kinds + t.tags

    def tile(node: object, name: str, classes: bool = False) -> None:
        options = t.tile_kinds + (list(t.classes) if classes else [])
        if name not in options:
            out.append(_unknown(node, "tile kind" + (" or class" if classes else ""), name, options))

    for s in rules.statements:
        match s:
            case A.ClassDecl():
                for k in s.kinds:
                    tile(s, k)
            case A.Returns():
                for tc in s.tiles:
                    tile(tc, tc.kind)
            case A.Declare(what="tag"):
                for k in s.on:
                    if k not in t.hex_kinds + t.landmark_kinds:
                        out.append(_unknown(s, "hex kind", k, t.hex_kinds + t.landmark_kinds))
            case A.Neutral():
                if s.tag not in t.tags:
                    out.append(_unknown(s, "tag", s.tag, t.tags))
            case A.PublicSetup():
                if s.deck not in t.decks:
                    out.append(_unknown(s, "deck", s.deck, t.decks))
            case A.PlaceRule():
                tile(s, s.tile)
                for h in s.on:
                    if h not in t.hex_kinds:
                        hint_opts = t.hex_kinds
                        out.append(_unknown(s, "hex kind", h, hint_opts) if h not in t.landmark_kinds
                                   else _at(s, f"`{h}` is a landmark: landmarks take no tile"))
            case A.GroupDecl():
                for k in s.kinds:
                    tile(s, k)
            case A.Trigger():
                ev = s.event
                if isinstance(ev, A.PlaceEvent):
                    for k in ev.kinds or ():
                        tile(ev, k, classes=True)
                    if ev.at and ev.at not in hexlike:
                        out.append(_unknown(ev, "hex kind or tag", ev.at, hexlike))
                elif ev.kind not in t.landmark_kinds:
                    out.append(_unknown(ev, "landmark kind", ev.kind, t.landmark_kinds))
                if isinstance(s.action, A.DrawAction) and s.action.deck not in t.decks:
                    out.append(_unknown(s.action, "deck", s.action.deck, t.decks))
            case A.AreaBlock():
                if s.kind not in t.hex_kinds:
                    out.append(_unknown(s, "hex kind", s.kind, t.hex_kinds))
                for it in s.items:
                    if isinstance(it, A.RankBy) and it.attribute not in t.attributes:
                        out.append(_unknown(it, "tile attribute", it.attribute, t.attributes))
                    if isinstance(it, A.Ties):
                        for step in it.steps:
                            if step not in TIE_STEPS:
                                opts = [" ".join(k) for k in TIE_STEPS]
                                dym = did_you_mean(" ".join(step), opts)
                                out.append(_at(it, f"unknown tie-break `{' '.join(step)}`",
                                               f"did you mean `{dym}`?" if dym else "one of: " + "; ".join(opts)))
                    if isinstance(it, A.Alone):
                        for p in it.places:
                            if p not in PLACES:
                                out.append(_unknown(it, "place", p, PLACES))
            case A.MajorityBlock():
                if s.kind not in t.landmark_kinds:
                    out.append(_unknown(s, "landmark kind", s.kind, t.landmark_kinds))
                for it in s.items:
                    if isinstance(it, A.Compare):
                        for m in it.metrics:
                            if m != "any":
                                tile(it, m, classes=True)
            case A.PublicDecl():
                if s.deck not in t.decks:
                    out.append(_unknown(s, "deck", s.deck, t.decks))
            case A.AbilityDecl():
                if isinstance(s.effect, A.DrawCardEffect | A.DoubleEffect) and s.effect.deck not in t.decks:
                    out.append(_unknown(s.effect, "deck", s.effect.deck, t.decks))
            case A.EndIncomplete():
                if s.kind not in t.hex_kinds:
                    out.append(_unknown(s, "hex kind", s.kind, t.hex_kinds))
            case A.EndOwned():
                if s.kind not in t.landmark_kinds:
                    out.append(_unknown(s, "landmark kind", s.kind, t.landmark_kinds))
    return out


def check_tiles(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Returned tiles exist in the mix; set-aside and hand fit what is left (S-U3, S-U4)."""
    out: list[Diagnostic] = []
    mix: dict[tuple[str, int | None], int] = {}
    total = 0
    for s in rules.statements:
        if isinstance(s, A.TileSpec):
            for value, count in s.counts:
                mix[(s.kind, value if s.attribute else None)] = count
                total += count
    aside = next((s.count for s in rules.statements if isinstance(s, A.SetAside)), 0)
    for s in rules.statements:
        if not isinstance(s, A.Returns):
            continue
        left = dict(mix)
        returned = 0
        for tc in s.tiles:
            if tc.kind not in t.tile_kinds:
                continue
            attr = t.attribute_of.get(tc.kind)
            if attr and tc.value is None:
                out.append(_at(tc, f"`{tc.kind}` tiles differ by {attr}; say which: `{tc.kind}:N`"))
                continue
            key = (tc.kind, tc.value if attr else None)
            if left.get(key, 0) < tc.count:
                out.append(_at(tc, f"cannot return {tc.count} x {tc.kind}{':' + str(tc.value) if attr else ''}: "
                                   f"a colour has {left.get(key, 0)} left"))
            left[key] = left.get(key, 0) - tc.count
            returned += tc.count
        if total - returned - aside < 1:
            out.append(_at(s, f"with {s.players} players nothing is left to play after returning {returned} "
                              f"and setting aside {aside}"))
    return out


def check_placement(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every tile kind has a placement rule; fallbacks follow one (S-P2..S-P4)."""
    out: list[Diagnostic] = []
    primary = {s.tile for s in rules.statements if isinstance(s, A.PlaceRule) and not s.fallback}
    for s in rules.statements:
        if isinstance(s, A.PlaceRule) and s.fallback and s.tile not in primary:
            out.append(_at(s, f"fallback for `{s.tile}` but no `place {s.tile} on ...` rule"))
    for s in rules.statements:
        if isinstance(s, A.TileSpec) and s.kind not in primary:
            out.append(_at(s, f"tiles of kind `{s.kind}` have no placement rule (`place {s.kind} on ...`)"))
    return out


def check_expressions(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Types, arity and names of every expression, in the context it is evaluated in."""
    errors: list[ExprError] = []
    want: list[tuple[A.Expr, str, Scope]] = []
    for s in rules.statements:
        match s:
            case A.Trigger(action=A.ScoreAction() as act):
                want.append((act.expr, "int", Scope(placed=isinstance(s.event, A.PlaceEvent))))
            case A.AreaBlock():
                for it in s.items:
                    if isinstance(it, A.Pay):
                        want.extend((e, "int", Scope(influence=True)) for e in it.amounts)
            case A.DeckBlock():
                want.extend((c.condition, "bool", Scope()) for c in s.cards)
            case A.AbilityDecl(effect=A.ScoreEffect(expr=e)):
                want.append((e, "int", Scope()))
            case A.EndIncomplete():
                want.append((s.expr, "int", Scope(influence=True)))
            case A.EndOwned():
                want.append((s.expr, "int", Scope()))
            case A.WinnerTies():
                want.extend((st.expr, "player", Scope()) for st in s.steps)
    for expr, typ, scope in want:
        got = type_of(expr, t, scope, errors)
        if got not in (typ, "?"):
            sp = expr.span
            errors.append(ExprError.single(f"this must be a {typ}, but it is a {got}", file=sp.file,
                                           line=sp.line, col=sp.col))
    return [d for e in errors for d in e.diagnostics]


def check_decks(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Card names are unique within a deck; a public deck's cards have a small number and are laid out."""
    out: list[Diagnostic] = []
    for s in rules.statements:
        if isinstance(s, A.PublicDecl) and s.deck in t.decks:
            for c in t.decks[s.deck].cards:
                if c.small is None:
                    out.append(_at(c, f"card {c.name!r} is in the public deck `{s.deck}`: give its small number "
                                      f"too (`{c.points} / N`)"))
            if not any(isinstance(x, A.PublicSetup) and x.deck == s.deck for x in rules.statements):
                out.append(_at(s, f"public missions from `{s.deck}`, but the setup lays none out "
                                  f"(`public 8 from {s.deck}`)"))
    for d in t.decks.values():
        seen: set[str] = set()
        for c in d.cards:
            if c.name in seen:
                out.append(_at(c, f"card {c.name!r} is in deck `{d.name}` twice (use `xN` for copies)"))
            seen.add(c.name)
    return out


def check_citations(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every rule statement cites the rule id it encodes in its comment (RULES.md habit)."""
    out: list[Diagnostic] = []
    for s in rules.statements:
        if isinstance(s, A.Declare):
            continue
        whole = not isinstance(s, A.AreaBlock | A.MajorityBlock | A.DeckBlock)
        items = getattr(s, "items", None) or getattr(s, "cards", None)
        if t.ids(s.span, whole=whole):
            continue
        if items and all(t.ids(it.span) for it in items):
            continue
        out.append(_at(s, "this rule cites no rule id; add a comment naming the id of the rule it encodes (the ids of RULES.md, e.g. `# X-P2`)"))
    return out


# ----- rules against a board ------------------------------------------------------------------
def _bd(board_file: str, path: str, msg: str) -> Diagnostic:
    return Diagnostic(msg, file=board_file, path=path)


def check_board_names(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every kind, tag and ability on the board is declared by the rules."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    kinds = t.hex_kinds + t.landmark_kinds
    abilities = {s.name for s in rules.statements if isinstance(s, A.AbilityDecl)}
    for i, h in enumerate(board.hexes):
        if h.kind not in kinds:
            dym = did_you_mean(h.kind, kinds)
            out.append(_bd(t.board_file, f"$.hexes[{i}].kind", f"hex kind {h.kind!r} is not declared by the rules"
                           + (f"; did you mean {dym!r}?" if dym else "")))
        for j, tag in enumerate(h.tags):
            if tag not in t.tags:
                dym = did_you_mean(tag, t.tags)
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags[{j}]", f"tag {tag!r} is not declared by the rules"
                               + (f"; did you mean {dym!r}?" if dym else "")))
        if h.kind in t.landmark_kinds and not h.name:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"a {h.kind} needs a name"))
        if h.ability is not None and h.ability not in abilities:
            dym = did_you_mean(h.ability, abilities)
            out.append(_bd(t.board_file, f"$.hexes[{i}].ability", f"ability {h.ability!r} is not declared by the "
                           "rules" + (f"; did you mean {dym!r}?" if dym else "")))
    for s in rules.statements:
        if isinstance(s, A.Trigger) and isinstance(s.action, A.AbilityAction) and isinstance(s.event, A.TouchEvent):
            for i, h in enumerate(board.hexes):
                if h.kind == s.event.kind and h.ability is None:
                    out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} {h.name!r} names no ability"))
    return out


def check_board_has_what_rules_use(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every landmark kind and tag a rule acts on is on the board (else that rule could never fire)."""
    if board is None:
        return []
    kinds = {h.kind for h in board.hexes}
    tags = {tag for h in board.hexes for tag in h.tags}
    out: list[Diagnostic] = []
    for s in rules.statements:
        used: list[tuple[str, str]] = []
        match s:
            case A.MajorityBlock() | A.EndOwned():
                used.append(("kind", s.kind))
            case A.Trigger(event=A.TouchEvent() as ev):
                used.append(("kind", ev.kind))
            case A.Trigger(event=A.PlaceEvent(at=at)) if at is not None:
                used.append(("tag" if at in t.tags else "kind", at))
            case A.Neutral():
                used.append(("tag", s.tag))
        for what, name in used:
            if name not in (kinds if what == "kind" else tags):
                out.append(_at(s, f"this rule acts on {'hexes tagged ' if what == 'tag' else ''}{name}"
                                  f"{' hexes' if what == 'kind' else ''}, but {t.board_file or 'the board'} has none"))
    return out


def check_areas(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Areas are of an area kind, contiguous, and have a payout for their size at every player count."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    area_rules = {s.kind: s for s in rules.statements if isinstance(s, A.AreaBlock)}
    lo, hi = next(((s.low, s.high) for s in rules.statements if isinstance(s, A.PlayersRange)), (2, 4))
    first_index: dict[str, int] = {}
    for i, h in enumerate(board.hexes):
        if h.area is not None:
            first_index.setdefault(h.area, i)
            if h.kind not in area_rules:
                out.append(_bd(t.board_file, f"$.hexes[{i}].area",
                               f"hex ({h.q},{h.r}) of kind {h.kind!r} is in area {h.area!r}, but the rules score "
                               f"no {h.kind} areas"))
        elif h.kind in area_rules:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} hex ({h.q},{h.r}) belongs to no area"))
    for a, hexes in enumerate(t.area_hexes):
        name = t.area_names[a]
        path = f"$.hexes[{first_index[name]}].area"
        kinds = {t.hex_kind[h] for h in hexes}
        if len(kinds) > 1:
            out.append(_bd(t.board_file, path, f"area {name!r} mixes hex kinds {sorted(kinds)}"))
        # contiguity: a flood fill from the first hex reaches them all
        todo, seen = [hexes[0]], {hexes[0]}
        members = set(hexes)
        while todo:
            h = todo.pop()
            for m in t.neighbours[h]:
                if m in members and m not in seen:
                    seen.add(m)
                    todo.append(m)
        if seen != members:
            out.append(_bd(t.board_file, path, f"area {name!r} is not contiguous: "
                           f"{sorted(t.coords[h] for h in members - seen)} are cut off from {t.coords[hexes[0]]}"))
        rule = area_rules.get(t.hex_kind[hexes[0]])
        if rule is None:
            continue
        sizes = {(it.size, it.players) for it in rule.items if isinstance(it, A.Pay)}
        for n in range(lo, hi + 1):
            if (len(hexes), n) not in sizes and (len(hexes), None) not in sizes:
                out.append(_bd(t.board_file, path, f"area {name!r} has {len(hexes)} hexes, but the rules have no "
                               f"`pay size {len(hexes)}` (with {n} players)"))
                break
    return out


def check_geometry(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Tags sit where their rules can fire; landmarks touch tile hexes; no tile hex is cut off."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    tag_rules: dict[str, set[str]] = {}
    for s in rules.statements:
        if isinstance(s, A.Trigger) and isinstance(s.event, A.PlaceEvent) and s.event.at in t.tags:
            kinds = set(s.event.kinds or t.tile_kinds)
            hexes = {h for p in rules.statements if isinstance(p, A.PlaceRule)
                     and (p.tile in kinds or any(p.tile in t.classes.get(k, ()) for k in kinds)) for h in p.on}
            tag_rules.setdefault(s.event.at, set()).update(hexes)
    for i, h in enumerate(board.hexes):
        for tag in h.tags:
            allowed = t.tag_on.get(tag)
            if allowed and h.kind not in allowed:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): the "
                               f"rules put {tag} only on {', '.join(allowed)} hexes"))
            elif tag in tag_rules and h.kind not in tag_rules[tag]:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): its "
                               f"rule only fires for tiles placed on {', '.join(sorted(tag_rules[tag]))} hexes"))
        nb = t.neighbours[i]
        if h.kind in t.landmark_kinds and not any(t.hex_kind[m] in takeable for m in nb):
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"{h.kind} {h.name!r} has no neighbour that takes a tile"))
        if h.kind in takeable and not nb:
            out.append(_bd(t.board_file, f"$.hexes[{i}]", f"hex ({h.q},{h.r}) has no neighbours at all"))
    return out


def check_supply(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Neutral-hex counts match, and every player count's tiles fit on the board (S-U2, S-U3)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    n_take = sum(1 for h in board.hexes if h.kind in takeable)
    total = sum(c for s in rules.statements if isinstance(s, A.TileSpec) for _, c in s.counts)
    aside = next((s.count for s in rules.statements if isinstance(s, A.SetAside)), 0)
    returns = {s.players: sum(tc.count for tc in s.tiles) for s in rules.statements if isinstance(s, A.Returns)}
    neutral = {s.players: s for s in rules.statements if isinstance(s, A.Neutral)}
    lo, hi = next(((s.low, s.high) for s in rules.statements if isinstance(s, A.PlayersRange)), (2, 4))
    for n, s in neutral.items():
        have = sum(1 for h in board.hexes if s.tag in h.tags)
        if have != s.count:
            out.append(_at(s, f"with {n} players {s.count} neutral tiles go on `{s.tag}` hexes, but "
                              f"{t.board_file} has {have}"))
    for n in range(lo, hi + 1):
        tiles = n * (total - returns.get(n, 0) - aside)
        if n in neutral:
            tiles += neutral[n].count
        if tiles > n_take:
            out.append(Diagnostic(f"with {n} players {tiles} tiles are placed, but the board has only {n_take} "
                                  "hexes that take a tile", file=t.board_file, path="$.hexes"))
    return out


def check_neutral_hexes(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """The hexes neutral tiles are laid on take a tile: a neutral tile occupies its hex (S-U2)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    takeable = {h for s in rules.statements if isinstance(s, A.PlaceRule) for h in s.on}
    laid = {s.tag: s for s in rules.statements if isinstance(s, A.Neutral)}
    for i, h in enumerate(board.hexes):
        for tag in h.tags:
            if tag in laid and h.kind not in takeable:
                out.append(_bd(t.board_file, f"$.hexes[{i}].tags", f"{tag!r} on a {h.kind} hex ({h.q},{h.r}): with "
                               f"{laid[tag].players} players a neutral tile goes there, but no rule places a tile on "
                               f"{h.kind} hexes"))
    return out


def check_abilities(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """Every declared ability is printed on a landmark whose first touch uses it, and only there (I-R1)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    users = {s.event.kind for s in rules.statements if isinstance(s, A.Trigger)
             and isinstance(s.event, A.TouchEvent) and isinstance(s.action, A.AbilityAction)}
    printed: set[str] = set()
    for i, h in enumerate(board.hexes):
        if h.ability is None:
            continue
        printed.add(h.ability)
        if h.kind not in users and h.kind in t.hex_kinds + t.landmark_kinds:
            out.append(_bd(t.board_file, f"$.hexes[{i}].ability", f"{h.kind} {h.name!r} carries ability "
                           f"{h.ability!r}, but no rule uses the abilities of {h.kind} hexes"
                           + (f" (only those of {', '.join(sorted(users))})" if users else "")))
    for s in rules.statements:
        if isinstance(s, A.AbilityDecl) and s.name not in printed:
            out.append(_at(s, f"ability `{s.name}` is printed on no landmark of {t.board_file or 'the board'}, so it "
                              "can never be used"))
    return out


def _landmark_refs(node: object) -> Iterator[A.Landmark]:
    """Every landmark reference (`castle "Stirling"`, `castle with clover`) inside a piece of the AST."""
    if isinstance(node, A.Landmark):
        yield node
    elif isinstance(node, tuple | list):
        for x in node:
            yield from _landmark_refs(x)
    elif is_dataclass(node) and not isinstance(node, A.Span):
        for f in fields(node):
            yield from _landmark_refs(getattr(node, f.name))


def check_landmarks_by_tag(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """A landmark the rules name by a tag (`castle with clover`) is one landmark of the board (S-C3, S-E4)."""
    if board is None:
        return []
    out: list[Diagnostic] = []
    seen: set[tuple[str, str]] = set()
    for ref in _landmark_refs(rules.statements):
        if ref.tag is None or (ref.kind, ref.tag) in seen:
            continue
        seen.add((ref.kind, ref.tag))
        names = [n for i, (k, n) in enumerate(t.landmark_names)
                 if k == ref.kind and ref.tag in t.hex_tags[t.landmark_hex[i]]]
        if len(names) > 1:
            out.append(_at(ref, f"`{ref.kind} with {ref.tag}` names one {ref.kind}, but {t.board_file or 'the board'} "
                                f"has {len(names)}: {', '.join(names)}"))
    return out


RULES_CHECKS: tuple[Check, ...] = (
    check_declarations,
    check_names,
    check_tiles,
    check_placement,
    check_expressions,
    check_decks,
)
BOARD_CHECKS: tuple[Check, ...] = (check_board_names, check_board_has_what_rules_use, check_areas, check_geometry,
                                   check_supply, check_neutral_hexes, check_abilities, check_landmarks_by_tag)


def check(rules: A.Rules, board: Board | None = None, board_file: str = "", strict: bool = False,
          full: bool = True) -> list[Diagnostic]:
    """Run the checks. `full` adds the map-design checks (areas, geometry, supply, named landmarks) that a
    tiny test board need not pass to be played; `strict` adds the style check (rule ids cited)."""
    t = Tables(rules, board)
    t.board_file = board_file
    t.require_landmarks = full
    out: list[Diagnostic] = []
    for c in RULES_CHECKS + ((check_citations,) if strict else ()):
        out.extend(c(rules, t, board))
    if board is not None:
        for c in BOARD_CHECKS if full else (check_board_names,):
            out.extend(c(rules, t, board))
    return out



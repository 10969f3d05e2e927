"""Missions that matter: how often each mission card is fulfilled by the players who hold it, at each player
count, and how much play changes that, from seeded games of the balance lab; `python -m
rebirth_dsl.play.missions` writes docs/missions.md.

A private card (Scotland) is held by one player: its rate is the share of holders who fulfil it at the
end. A face-up card (Ireland, I-M1) is held by every player: its rate is the share of players who fulfil
it during the game. The design target (issue 12, issue 23): every conditional card between 15 % and 75 %
at every player count, a harder card paying more than an unconditional card, and no card decided by the
deal.

How much play changes a card: the same deals (a game's deal depends on its seed only) are played again by
random seats, and every card's condition is read at the end for every seat of both games. A card whose
condition comes out the same for every seat of every deal, whatever is played, is "decided by the deal"
(for instance "most food tiles" when every tile gets played); the table gives the share of seats whose
outcome the two plays change, and the rate of random holders beside the lab agent's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.files import write_text_atomic
from rebirth_dsl.play.loop import DEFAULT_NAMES
from rebirth_dsl.play.simulate import Job, game_seed
from rebirth_dsl.play.stats import wilson
from rebirth_dsl.play.tally import held_missions, play_tallied, public_missions
from rebirth_dsl.play.workers import worker_pool
from rebirth_dsl.records.record import load_ruleset
from rebirth_dsl.records.resources import bundled, rules_and_board

LOW, HIGH = 0.15, 0.75  # the target band of fulfilment for a conditional card
# The run docs/missions.md shows: the lab's default agent (play/registry.py DEFAULT_AGENT) in every seat, at
# every player count the rules allow, against random seats on the same deals.
AGENT, COUNTS, GAMES, SEED, BASELINE = "oneply", (2, 3, 4), 320, 0, "random"
PLAYERS = 3  # the count a single-count run plays by default

# One game's outcome: (seat, card, fulfilled) for every card held (a face-up card is held by every seat),
# and, per card of the deck, its condition read at the end for every seat.
Outcome = tuple[tuple[tuple[int, str, bool], ...], dict[str, tuple[bool, ...]]]


@dataclass(frozen=True)
class CardRate:
    """One card's fulfilment over a run: times held, times fulfilled, the rate with its 95 % interval; with
    a baseline run on the same deals, the baseline's rate and the share of seats whose end condition the
    two plays change (None: no baseline run)."""

    card: str
    points: str
    condition: str
    held: int
    fulfilled: int
    low: float
    high: float
    unconditional: bool
    players: int = 0
    baseline: float | None = None  # the rate of the baseline's holders (random play on the same deals)
    changed: float | None = None  # share of (deal, seat) whose condition at the end differs between the plays

    @property
    def rate(self) -> float:
        """Fulfilled over held."""
        return self.fulfilled / self.held if self.held else 0.0

    @property
    def decided_by_deal(self) -> bool:
        """Play never changes the outcome, and some holder meets it: every seat of every deal ends the same
        under both plays (a card nobody meets is out of the band, and said so, not "decided")."""
        met = self.fulfilled > 0 or bool(self.baseline)
        return not self.unconditional and self.changed == 0.0 and met


def play_outcomes(job: Job, start: int, stop: int) -> list[Outcome]:
    """Games start..stop-1 of the job: what each seat held and fulfilled, and every card's end condition."""
    rs = load_ruleset(Path(job.rules), Path(job.board))[0]
    cards = {c.name: c for c in rs.decks.get("mission", [])}
    out: list[Outcome] = []
    for i in range(start, stop):
        g, _ = play_tallied(rs, DEFAULT_NAMES[: job.players], job.agents, game_seed(job.seed, i))
        held = [(q, name, ok) for q, name, ok, _ in held_missions(g, g.end_events())]
        for name, paid in public_missions(g):
            fulfillers = {q for q, _ in paid}
            held += [(q, name, q in fulfillers) for q in range(job.players)]
        ends = {name: tuple(bool(c.cond(Ctx(g, q))) for q in range(job.players)) for name, c in cards.items()}
        out.append((tuple(held), ends))
    return out


def _run(job: Job, games: int, workers: int) -> list[Outcome]:
    """The job's games in game order, on `workers` processes."""
    size = max(1, games // max(1, workers * 4))
    chunks = [(a, min(a + size, games)) for a in range(0, games, size)]
    if workers <= 1:
        parts = [play_outcomes(job, a, b) for a, b in chunks]
    else:
        with worker_pool(workers) as pool:
            parts = pool.starmap(play_outcomes, [(job, a, b) for a, b in chunks])
    return [o for part in parts for o in part]


def _tally(outcomes: Sequence[Outcome]) -> dict[str, list[bool]]:
    held: dict[str, list[bool]] = {}
    for cards, _ in outcomes:
        for _, card, ok in cards:
            held.setdefault(card, []).append(ok)
    return held


def card_rates(rules: str, players: int, games: int, agents: Sequence[str], seed: int = 0, workers: int = 1,
               baseline: str | None = None) -> list[CardRate]:
    """Fulfilment of every mission card of a ruleset over seeded games of the given agents; with a
    baseline agent, the same deals played by it in every seat, for the rate play changes."""
    rules_path, board_path = rules_and_board(rules, None)
    job = Job(str(rules_path.resolve()), str(board_path.resolve()), players, tuple(agents), seed)
    main = _run(job, games, workers)
    held = _tally(main)
    base_held: dict[str, list[bool]] = {}
    changed: dict[str, list[bool]] = {}
    if baseline is not None:
        other = _run(Job(job.rules, job.board, players, (baseline,) * players, seed), games, workers)
        base_held = _tally(other)
        for (_, a), (_, b) in zip(main, other, strict=True):
            for card, seats in a.items():
                changed.setdefault(card, []).extend(x != y for x, y in zip(seats, b[card], strict=True))
    texts = _card_texts(rules_path)
    out = []
    for card in sorted(held):
        oks = held[card]
        lo, hi = wilson(sum(oks), len(oks))
        points, cond = texts.get(card, ("?", "?"))
        base = base_held.get(card)
        diff = changed.get(card)
        out.append(CardRate(card, points, cond, len(oks), sum(oks), lo, hi, cond.strip() == "always", players,
                            sum(base) / len(base) if base else None if baseline is None else 0.0,
                            sum(diff) / len(diff) if diff else None))
    return out


def _card_texts(rules_path: Path) -> dict[str, tuple[str, str]]:
    """Card name -> (points as written, condition as written), from the rules files (base first)."""
    from rebirth_dsl.lang.parser import load_rules
    from rebirth_dsl.present.describe import expr_text

    rules = load_rules(rules_path)
    out = {}
    for s in rules.statements:
        for c in getattr(s, "cards", ()):
            pts = f"{c.points}" + (f" / {c.small}" if c.small is not None else "")
            out[c.name] = (pts, "always" if expr_text(c.condition) == "always" else expr_text(c.condition))
    return out


def out_of_band(rates: Sequence[CardRate]) -> list[CardRate]:
    """The conditional cards whose rate lies outside the target band."""
    return [r for r in rates if not r.unconditional and not LOW <= r.rate <= HIGH]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.0%}"


Section = tuple[str, int, str, str, list[CardRate]]  # title, games, agents, baseline, rates of every count


def report(sections: list[Section], command: str) -> str:
    """docs/missions.md: one table per ruleset, a row per card and player count."""
    lines = ["# Mission cards: how often they are fulfilled", "",
             "Generated by the balance lab; do not edit by hand. Regenerate with:", "", f"    {command}", "",
             "Each rate is over the players who held the card (a face-up public card is held by every "
             "player), with a 95 % Wilson interval, at each player count. The target for a conditional card is "
             f"{LOW:.0%} to {HIGH:.0%} at every count (⚠ outside it); `tests/rules/test_missions_balance.py` "
             "re-checks it on a smaller seeded run; `tests/rules/test_decks.py` checks that every "
             "conditional card pays more than the unconditional one. `python tools/mission_values.py` shows, "
             "for a card `VALUE >= N`, how its holders' VALUE is spread, which is where to move N.", "",
             "How much play changes a card: the same deals are played again by random seats. *random play* is "
             "the rate of the random holders; *changed by play* is the share of seats (every seat of every "
             "deal, holder or not) whose card condition, read at the end, differs between the two games. A card "
             "changed for no seat is **decided by the deal**: nothing a player does moves it (one that no seat meets "
             "under either play is marked *never met* instead).", ""]
    for title, games, agents, baseline, rates in sections:
        lines += [f"## {title}: {games} games a count, agents {agents}, against {baseline} play", "",
                  "| card | points | condition | players | held | fulfilled | 95 % interval | random play "
                  "| changed by play |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in sorted(rates, key=lambda r: (r.card, r.players)):
            flag = "" if r.unconditional or LOW <= r.rate <= HIGH else " ⚠"
            deal = " (decided by the deal)" if r.decided_by_deal else (
                " (never met)" if r.changed == 0.0 and not r.unconditional else "")
            lines.append(f"| {r.card} | {r.points} | `{r.condition}` | {r.players} | {r.held} | {r.rate:.0%}{flag} "
                         f"| {r.low:.0%} to {r.high:.0%} | {_pct(r.baseline)} | {_pct(r.changed)}{deal} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write docs/missions.md from seeded games of every bundled base ruleset, at every player count."""
    ap = argparse.ArgumentParser(prog="python -m rebirth_dsl.play.missions", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=GAMES, help="games per ruleset and player count")
    ap.add_argument("--players", type=int, nargs="+", default=list(COUNTS))
    ap.add_argument("--agents", default=AGENT, help="the agent of every seat")
    ap.add_argument("--baseline", default=BASELINE, help="the agent that replays the same deals")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--rules", action="append", help="rulesets (default: every bundled ruleset but the variants)")
    ap.add_argument("-o", "--output", default="docs/missions.md", help="run from a checkout: docs/missions.md")
    args = ap.parse_args(argv)
    names = args.rules or [n for n in bundled("rules") if "/" not in n]
    sections: list[Section] = []
    for name in names:
        rs, _ = load_ruleset(*rules_and_board(name, None))
        rates: list[CardRate] = []
        for n in args.players:
            got = card_rates(name, n, args.games, [args.agents] * n, args.seed, args.workers, args.baseline)
            rates += got
            print(f"{rs.title}, {n} players: {len(out_of_band(got))} conditional card(s) outside "
                  f"{LOW:.0%}-{HIGH:.0%}, {sum(r.decided_by_deal for r in got)} decided by the deal", file=sys.stderr)
        sections.append((rs.title, args.games, args.agents, args.baseline, rates))
    command = (f"python -m rebirth_dsl.play.missions --games {args.games} --players "
               f"{' '.join(map(str, args.players))} --agents {args.agents} --baseline {args.baseline} "
               f"--seed {args.seed}")
    write_text_atomic(args.output, report(sections, command) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

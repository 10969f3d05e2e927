"""A game at a table: its record, its position, the agents in its seats, and what each seat may see.

The record (rules, board, players, agents, setup, moves) is the whole truth: a Table is rebuilt from it
by replaying, which is how the web app resumes its games after a restart, how a study branches from a
move, and how `rebirth play --resume` continues a saved game. Every move goes through `Game.play`, which
refuses an illegal one (with its rule id) before anything changes.

A placement that first touches a landmark whose ability asks something (I-R1: which tile to take or keep,
which mission to double) is made in two steps: the placement is committed first, then the question is
shown with its options. Asking first would let a player peek (the tiles a "draw 3" would show) and then
place elsewhere.

A take-back must not let a seat peek either: only a person playing against agents may take back their
last move, before anyone else has moved and before the game is over, and only a move that showed them
nothing new (no tile drawn, no mission card, no question). See `Table.can_undo`.
"""

from __future__ import annotations

import copy
import os
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebirth_dsl.board.model import load_json
from rebirth_dsl.compile.prims import Ctx
from rebirth_dsl.errors import IllegalMove, RebirthError
from rebirth_dsl.files import check_output, shown
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.play.agents import Agent, decide, move_entry
from rebirth_dsl.play.evaluate import by_count
from rebirth_dsl.play.human import HumanAgent, SaveGame
from rebirth_dsl.play.reasons import (  # the one meaning of a move's effects
    effects_text,
    holders_of,
    move_effects,
)
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.play.tally import held_missions
from rebirth_dsl.present.describe import card_english
from rebirth_dsl.present.report import evaluate, render_table
from rebirth_dsl.records.inputs import record_files
from rebirth_dsl.records.record import (
    Loaded,
    dumps,
    load_record,
    load_ruleset,
    replay,
    resolve,
    write_json_atomic,
)
from rebirth_dsl.records.resources import name_of
from rebirth_dsl.runtime.game import Event, Game, first_choice
from rebirth_dsl.runtime.setup import deal

HUMAN = "human"
HIDDEN = "(hidden)"


def new_record(rules: Path, board: Path, names: list[str], agents: list[str], seed: int,
               base: Path | None = None) -> dict[str, Any]:
    """A fresh game's record with its setup written out (so it replays without our random generator).
    Bundled files are named; other files are relative to `base`, or absolute when there is none."""
    rs, _ = load_ruleset(rules, board)
    lo, hi = rs.players
    if not lo <= len(names) <= hi:
        raise RebirthError.single(f"{len(names)} players: {rs.title} is for {lo} to {hi} players",
                                  rule=rs.cites.players[0] if rs.cites.players else None)
    setup = deal(rs, len(names), seed)

    def ref(p: Path, folder: str) -> str:
        """A file as the record names it."""
        named = name_of(folder, p)
        if named:
            return named
        return os.path.relpath(p.resolve(), base.resolve()) if base is not None else str(p.resolve())

    return {
        "rules": ref(rules, "rules"),
        "board": ref(board, "boards"),
        "players": list(names),
        "agents": list(agents),
        "setup": {
            "seed": seed,
            "set_aside": {n: [rs.tile_name(*t) for t in setup.set_aside[i]] for i, n in enumerate(names)},
            "supply": {n: [rs.tile_name(*t) for t in setup.supply[i]] for i, n in enumerate(names)},
            "decks": setup.decks,
        },
        "moves": [],
    }


def check_agents(agents: list[str], n: int, lenient: bool = False) -> list[str]:
    """One known agent name per seat (`human` for a person), lower case. `lenient`: a record's own list,
    which is informational, so a name this program does not know is a person's seat."""
    if len(agents) != n:
        if lenient:
            return [HUMAN] * n
        raise RebirthError.single(f"{len(agents)} agents for {n} players: give one per seat")
    out = []
    for a in agents:
        key = str(a).strip().lower()
        try:
            make_agent(key)  # an unknown name is refused with the list of agents
        except RebirthError:
            if not lenient:
                raise
            key = HUMAN
        out.append(key)
    return out


@dataclass
class Table:
    """A game in progress with its record; `pending` holds placements waiting for an ability's answer."""

    data: dict[str, Any]
    loaded: Loaded
    game: Game
    rules_path: Path
    board_path: Path
    agents: list[str]
    pending: dict[int, dict[str, Any]] = field(default_factory=dict)
    _agents: dict[int, Agent] = field(default_factory=dict, repr=False)
    _shown: tuple[int, str | None] | None = field(default=None, repr=False)  # a person's move: what it showed them
    _texts: dict[str, str] | None = field(default=None, repr=False)  # the cards' words: the rules do not change
    _measures: dict[str, Measure] | None = field(default=None, repr=False)  # each card's measure, compiled once

    # ----- reading ------------------------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        """Player names in seat order."""
        return list(self.game.players)

    @property
    def moves(self) -> list[dict[str, Any]]:
        """The record's moves so far."""
        return self.data["moves"]

    @property
    def seed(self) -> int:
        """The record's seed (0 when it gives none): agents draw from it, per seat and move."""
        return int((self.data.get("setup") or {}).get("seed") or 0)

    def is_over(self) -> bool:
        """Whether every tile has been played (S-T2)."""
        return self.game.is_over()

    def is_human(self, p: int) -> bool:
        """Whether a person plays this seat."""
        return self.agents[p] == HUMAN

    def seat(self, name: str) -> int:
        """A player's seat by name."""
        return self.game.player_index(name)

    def record(self) -> dict[str, Any]:
        """The record as it stands (a copy: the same JSON `rebirth eval` reads)."""
        return copy.deepcopy(self.data)

    # ----- moves --------------------------------------------------------------------------------
    def _hex(self, hexq: Any, index: int) -> int | None:
        rs = self.game.rs
        if hexq is None:
            return None
        h = self.game.t.index.get((int(hexq[0]), int(hexq[1])))
        if h is None:
            raise IllegalMove(f"there is no hex ({hexq[0]},{hexq[1]}) on the board",
                              rs.cites.one_tile[0] if rs.cites.one_tile else "the one-tile rule", index)
        return h

    def _tile(self, name: str, index: int) -> tuple[int, int]:
        rs = self.game.rs
        try:
            return rs.parse_tile(name)
        except RebirthError as e:  # as a replay reports a tile the ruleset does not have
            raise IllegalMove(e.diagnostics[0].message, rs.cites.mix[0] if rs.cites.mix else "the tile mix",
                              index) from None

    def questions(self, p: int, h: int) -> list[dict[str, Any]]:
        """The abilities a placement on h would use that ask p something, with the possible answers (a
        hidden set-aside tile is offered face down, by position: I-U1)."""
        g, rs = self.game, self.game.rs
        out = []
        for lm, _ in g.pending_abilities(p, h):
            ab, key, opts = g.ability_options(p, lm)
            if not opts:
                continue  # nothing to choose: the ability is used as it stands
            if key == "take" and not rs.set_aside_visible:
                options = [{"value": f"#{i + 1}", "label": f"face-down tile {i + 1}"}
                           for i in range(len(g.set_aside[p]))]
            else:
                options = [{"value": o, "label": o} for o in opts]
            out.append({"landmark": g.t.landmark_name[lm], "ability": ab.name, "key": key, "options": options,
                        "rules": list(ab.ids)})
        return out

    def _blind(self, p: int, choices: dict[str, Any]) -> dict[str, Any]:
        """Face-down answers (`#2`: the second set-aside tile) turned into the tile the engine expects."""
        out: dict[str, Any] = {}
        for lm, c in choices.items():
            if isinstance(c, dict) and len(c) == 1:
                (key, val), = c.items()
                # ASCII digits only, and few: "#²" passes isdigit() and "#" + 5,000 digits int()'s limit
                if isinstance(val, str) and re.fullmatch(r"#[0-9]{1,6}", val):
                    i = int(val[1:]) - 1
                    aside = self.game.set_aside[p]
                    if 0 <= i < len(aside):
                        c = {key: self.game.rs.tile_name(*aside[i])}
            out[lm] = c
        return out

    def _check_answers(self, questions: list[dict[str, Any]], choices: dict[str, Any], index: int) -> None:
        """Refuse an answer the question did not offer, naming only the answers as offered: a face-down
        set-aside tile by its position (I-U1). The engine's own check would look at the tiles themselves, so
        a guessed tile name, refused or accepted, would tell the seat what lies face down."""
        for q in questions:
            key, values = q["key"], [o["value"] for o in q["options"]]
            c = choices.get(q["landmark"])
            if c is False or (isinstance(c, dict) and set(c) == {key} and c[key] in values):
                continue
            raise IllegalMove(f"{q['landmark']}'s ability {q['ability']} is answered with "
                              f'{{"{key}": ...}} and one of {values}, or false to decline',
                              q["rules"][0] if q["rules"] else "the ability rule", index)

    def submit(self, p: int, tile: str, hexq: Any, choices: dict[str, Any] | None = None,
               ask: bool = True) -> dict[str, Any]:
        """A seat's move: `{"status": "moved", "events": [...]}`, or, when the placement asks a question
        and `ask`, `{"status": "question", "questions": [...]}` with the placement committed as pending."""
        index = len(self.moves)
        pend = self.pending.get(p)
        kind = self._tile(tile, index)
        h = self._hex(hexq, index)
        if pend is not None:
            if (pend["tile"], pend["hex"]) != (self.game.rs.tile_name(*kind), list(hexq) if hexq else None):
                q, r = pend["hex"]
                raise RebirthError.single(f"your {pend['tile']} is already placed on ({q},{r}): answer its "
                                          "question first")
            if not isinstance(choices, dict):
                raise RebirthError.single("answer the question: give a choice for each landmark")
            self._check_answers(pend["questions"], choices, index)
        elif ask and h is not None and self.game.pending_abilities(p, h):
            trial = self.game.clone()  # the placement must be legal before it is committed as pending
            trial.auto_choose = first_choice
            trial.play(p, kind, h, index)
            qs = self.questions(p, h)
            if qs:
                self.pending[p] = {"tile": self.game.rs.tile_name(*kind), "hex": list(hexq), "questions": qs}
                return {"status": "question", "questions": qs}
        events = self.play(p, kind, h, choices or {})
        return {"status": "moved", "events": events}

    def play(self, p: int, tile: tuple[int, int], h: int | None, choices: dict[str, Any]) -> list[Event]:
        """Apply one move through the engine and append it to the record."""
        g = self.game
        index = len(self.moves)
        choices = self._blind(p, choices)
        before = self._before(p, h) if self.is_human(p) else None
        events = g.play(p, tile, h, index, choices)
        self.pending.pop(p, None)
        move: dict[str, Any] = {"player": g.players[p], "tile": g.rs.tile_name(*tile),
                                "hex": list(g.t.coords[h]) if h is not None else None}
        if choices:
            move["choices"] = choices
        self.moves.append(move)
        if before is not None:
            self._shown = (index, self._showed(p, before, events))
        return events

    def _before(self, p: int, h: int | None) -> tuple[list[dict[str, Any]], int, int]:
        """What a person's move may show them, counted before it is made: the questions it asks (I-R1),
        the tiles in their supply (S-T1 draws from it) and the mission cards they hold (S-M1)."""
        g = self.game
        return (self.questions(p, h) if h is not None else []), len(g.supply[p]), len(g.held[p])

    def _showed(self, p: int, before: tuple[list[dict[str, Any]], int, int], events: list[Event]) -> str | None:
        """What a person's move showed them that they could not have known before it (None: nothing): the
        reason it may not be taken back."""
        g = self.game
        questions, supply, held = before
        if questions:  # the options shown (the top of the supply, I-R1) stay known whatever is answered
            q = questions[0]
            rules = ", ".join(q["rules"]) or "the ability rule"
            return (f"your last move asked you a question ({q['landmark']}: {q['ability']}, {rules}): a move is "
                    "not taken back once its question has been shown")
        if len(g.held[p]) > held:  # the top card of a deck, now in hand (S-M1; I-R1 "draw mission")
            ids = sorted({i for e in events if e.category == "draw" for i in e.ids})
            return f"your last move drew a mission card you have seen ({', '.join(ids) or 'the draw rule'})"
        if len(g.supply[p]) < supply:  # the draw after the placement (S-T1): the supply's next tile is known
            return f"your last move drew a tile you have seen ({g.rs.cites.turns[0] if g.rs.cites.turns else 'the turn rule'})"
        return None

    def _last_shown(self) -> str | None:
        """What the record's last move (a person's) showed its mover: kept when it was played here, else
        found once by replaying it on the position before (a table rebuilt from its record)."""
        n = len(self.moves)
        if self._shown is None or self._shown[0] != n - 1:
            data = copy.deepcopy(self.data)
            data["moves"] = data["moves"][: n - 1]
            prev = table_from_record(data, self.loaded.base / "record.json", allow_paths=True,
                                     rules=self.rules_path, board=self.board_path)
            prev.apply_record_move(self.moves[-1])
            self._shown = (n - 1, prev._shown[1] if prev._shown else None)
        return self._shown[1]

    def agent(self, p: int) -> Agent:
        """The agent of a seat (made once)."""
        if p not in self._agents:
            self._agents[p] = make_agent(self.agents[p])
        return self._agents[p]

    def agent_move(self, game: Game | None = None, agent: Agent | None = None) -> dict[str, Any]:
        """What the agent in the turn seat plays now, as a record move (the table is not changed). Its
        random generator comes from the seed, the seat and the move number, so a game resumed after a
        restart goes on exactly as it would have."""
        g = game or self.game
        p = g.turn
        rng = random.Random(f"{self.seed}/{p}/{len(self.moves)}")
        tile, h, choices = decide(agent or self.agent(p), g, p, rng)
        return move_entry(g, p, tile, h, choices)

    def apply_record_move(self, move: dict[str, Any]) -> list[Event]:
        """Apply a move given as a record entry (an agent's, or one replayed)."""
        index = len(self.moves)
        p = self.seat(move["player"])
        return self.play(p, self._tile(move["tile"], index), self._hex(move.get("hex"), index),
                         dict(move.get("choices") or {}))

    def undo_refusal(self, p: int) -> str | None:
        """Why p may not take back their last move now, as the refusal says it (None: they may)."""
        name = self.players[p]
        if not self.is_human(p):
            return f"nothing to take back: an agent plays {name}"
        if not any(m["player"] == name for m in self.moves) and p not in self.pending:
            return "nothing to take back: you have not moved yet"
        if self.is_over():  # every tile is placed (S-T2) and the record, which shows every tile, is given out
            return "the game is over: no move is taken back once every tile has been placed"
        others = [self.players[q] for q in range(len(self.players)) if q != p and self.is_human(q)]
        if others:
            return (f"no take-backs in a game with another person ({others[0]}): taking a move back would need "
                    "their consent, so only a game against agents allows it")
        pend = self.pending.get(p)
        if pend is not None:  # the placement is committed once its question is shown (module docstring)
            q, r = pend["hex"]
            rules = ", ".join(dict.fromkeys(i for x in pend["questions"] for i in x["rules"])) or "the ability rule"
            return (f"your {pend['tile']} on ({q},{r}) waits for its answer: its question has been shown "
                    f"({rules}), so the placement stands")
        last = self.moves[-1]
        if last["player"] != name:  # hands are hidden (view: counts only); the agent still holds the rest
            return (f"{last['player']} has moved since: that move showed a tile from {last['player']}'s hand, "
                    "which you could not have known")
        return self._last_shown()

    def can_undo(self, p: int) -> bool:
        """Whether p may take back their last move. Only a person whose every opponent is an agent (a game
        with another person has no take-backs: it would need their consent, which is not asked), before the
        game is over (S-T2), before any other seat has moved (that move showed a tile from its hidden hand),
        and only a move that showed them nothing they could not have known: no tile drawn into their hand
        (S-T1), no mission card drawn (S-M1), no question shown (I-R1). Most moves draw, so a take-back is
        rare: a last tile misplaced, taken back before the agent replies. `undo_refusal` says why not."""
        return self.undo_refusal(p) is None

    def undo(self, p: int) -> int:
        """Take back p's last move (see can_undo); return how many moves went (1)."""
        why = self.undo_refusal(p)
        if why is not None:
            raise RebirthError.single(why)
        data = copy.deepcopy(self.data)
        data["moves"] = data["moves"][:-1]
        fresh = table_from_record(data, self.loaded.base / "record.json", allow_paths=True,
                                  rules=self.rules_path, board=self.board_path)
        self.data, self.game, self.loaded, self.pending = fresh.data, fresh.game, fresh.loaded, {}
        self._shown = None
        return 1

    # ----- what a seat sees ---------------------------------------------------------------------
    def previews(self, p: int) -> dict[str, list[dict[str, Any]]]:
        """Per tile in p's hand: every legal hex with what the move does now (play/reasons.py): the points
        by category, the landmarks it takes or challenges, the areas it completes, the cards drawn and the
        abilities it would use, and all of it in words (`text`)."""
        g = self.game
        rs = g.rs
        holders = holders_of(g)
        out: dict[str, list[dict[str, Any]]] = {}
        for tile in dict.fromkeys(g.hand[p]):
            hexes, fallback = g.legal_hexes(tile[0])
            rows: list[dict[str, Any]] = []
            for h in hexes:
                eff = move_effects(g, p, tile, h)
                rows.append({"hex": list(g.t.coords[h]), "index": h, "kind": g.t.hex_kind[h],
                             "points": eff.total, "breakdown": eff.points, "others": eff.others,
                             "takes": eff.takes, "challenges": eff.challenges, "areas": eff.area_texts,
                             "cards": eff.cards, "abilities": eff.abilities, "asks": eff.asks, "fallback": fallback,
                             "text": effects_text(eff, holders)})
            rows.sort(key=lambda r: (-r["points"], r["hex"]))
            out[rs.tile_name(*tile)] = rows
        return out

    def card_texts(self) -> dict[str, str]:
        """Each mission card's condition in plain English, its numbers for this table's player count (read
        once per table)."""
        if self._texts is None:
            try:
                rules = load_rules(self.rules_path)
            except RebirthError:
                return {}
            cards = [c for s in rules.statements if isinstance(s, A.DeckBlock) for c in s.cards]
            n = len(self.game.players)

            def worked(e: A.Expr) -> int | None:
                """A number by player count (`13 - 2 * players`), at this table."""
                f = by_count(e)
                return None if f is None else f(n)

            self._texts = {c.name: card_english(c.condition, worked) for c in cards}
            self._measures = {c.name: m for c in cards if (m := card_measure(c.condition, self.game)) is not None}
        return self._texts

    def progress(self, name: str, q: int) -> dict[str, Any]:
        """How far seat q is towards a card now: whether its condition holds and, for a card `VALUE >= N`,
        VALUE and N (what a seat may be shown: the board is public; the caller decides whose cards)."""
        self.card_texts()
        g = self.game
        out: dict[str, Any] = {"met": bool(g.cards[name].cond(Ctx(g, q)))}
        m = (self._measures or {}).get(name)
        if m is not None:
            out["value"], out["target"] = int(m.value(Ctx(g, q))), m.target
        return out

    def log(self, viewer: int | None, reveal: bool = False, start: int = 0) -> list[dict[str, Any]]:
        """The moves from `start` with their events and rule ids. Without `reveal`, what another player
        learnt privately (the tile taken or kept through an ability) is hidden from the viewer."""
        g = self.game
        by_move: dict[int, list[Event]] = {}
        for e in g.events:
            if e.index is not None and e.index >= start:
                by_move.setdefault(e.index, []).append(e)
        out = []
        for i, m in enumerate(self.moves[start:], start):
            mover = self.seat(m["player"])
            secret = [] if reveal or viewer == mover else self._secrets(m)
            choices = m.get("choices") or {}
            if secret:
                choices = {lm: ({k: HIDDEN if v in secret else v for k, v in c.items()} if isinstance(c, dict)
                                else c) for lm, c in choices.items()}
            events: list[dict[str, Any]] = []
            for e in by_move.get(i, []):
                text = e.text
                for s in secret:
                    text = text.replace(s, HIDDEN)
                events.append({"player": g.players[e.player] if e.player >= 0 else None, "points": e.points,
                               "category": e.category, "rules": list(e.ids), "text": text})
            out.append({"n": i, "player": m["player"], "seat": mover, "tile": m["tile"], "hex": m.get("hex"),
                        "choices": choices, "events": events,
                        "points": sum(e["points"] for e in events if e["player"] == m["player"])})
        return out

    def _secrets(self, move: dict[str, Any]) -> list[str]:
        """The answers of a move that name a tile (what was taken or kept): private to the mover."""
        out = []
        for c in (move.get("choices") or {}).values():
            for v in (c.values() if isinstance(c, dict) else ()):
                if isinstance(v, str):
                    try:
                        self.game.rs.parse_tile(v)
                    except RebirthError:
                        continue
                    out.append(v)
        return out

    def view(self, viewer: int | None, reveal: bool = False) -> dict[str, Any]:
        """Everything the viewer's seat may see (None: a spectator); `reveal` shows everything (a finished
        game, or a record being studied)."""
        g = self.game
        rs = g.rs
        over = g.is_over()
        reveal = reveal or over
        texts = self.card_texts()
        cards = g.cards
        result = evaluate(g)
        players = []
        for q, name in enumerate(g.players):
            mine = reveal or viewer == q
            entry: dict[str, Any] = {
                "name": name, "seat": q, "agent": self.agents[q], "score": g.track[q],
                "supply": len(g.supply[q]), "hand_count": len(g.hand[q]), "set_aside_count": len(g.set_aside[q]),
                "touched": len(g.touched[q]), "cards_held": len(g.held[q]),
            }
            if mine:
                entry["hand"] = [rs.tile_name(*t) for t in g.hand[q]]
                entry["missions"] = [{"name": c, "points": cards[c].points, "text": texts.get(c, ""),
                                      "progress": self.progress(c, q)} for c in g.held[q] if c in cards]
            if (mine and rs.set_aside_visible) or reveal:
                entry["set_aside"] = [rs.tile_name(*t) for t in g.set_aside[q]]
            if over:
                entry["final"] = result["players"][q]["score"]
                entry["breakdown"] = result["players"][q]["breakdown"]
            players.append(entry)
        public = [{"name": c, "points": cards[c].points, "small": cards[c].small, "text": texts.get(c, ""),
                   "by": [g.players[q] for q in g.public_by.get(c, [])],
                   "doubled_by": [g.players[q] for q, d in enumerate(g.doubled) if c in d],
                   # a face-up card reads the board, which every seat sees: everyone's progress is public
                   "progress": [self.progress(c, q) for q in range(len(g.players))]}
                  for c in g.public if c in cards]
        out: dict[str, Any] = {
            "title": rs.title, "rules": self.data["rules"], "board": self.data["board"],
            "players": players, "turn": None if over else g.turn, "over": over, "moves": len(self.moves),
            "you": viewer, "categories": list(rs.categories), "castles": result["castles"], "public": public,
            "set_aside_visible": rs.set_aside_visible, "log": self.log(viewer, reveal),
            "pass_rule": ", ".join(rs.cites.passes),
            "hexes": [list(c) for c in g.t.coords],
        }
        if viewer is not None and not over:
            why = self.undo_refusal(viewer)
            out["can_undo"], out["undo_refused"] = why is None, why
            if g.turn == viewer and self.is_human(viewer):
                pend = self.pending.get(viewer)
                out["pending"] = pend
                if pend is None:
                    out["legal"] = self.previews(viewer)
        if over:
            # the held cards as the end of the game paid them (S-M1: each fulfilled card scores its points)
            for q, name, ok, pts in held_missions(g, g.end_events()):
                for c in players[q].get("missions", []):
                    if c["name"] == name and "fulfilled" not in c:
                        c["fulfilled"], c["paid"] = ok, pts
                        break
            out["result"] = {"winners": result["winners"], "decided_by": result["decided_by"],
                             "players": [{"name": r["name"], "score": r["score"], "breakdown": r["breakdown"],
                                          "cards": r["cards"]} for r in result["players"]],
                             "end_events": [{"player": g.players[e.player], "points": e.points,
                                             "category": e.category, "rules": list(e.ids), "text": e.text}
                                            for e in g.end_events()]}
        return out


@dataclass(frozen=True)
class Measure:
    """A card `VALUE >= N` (or `>`), read for a seat: VALUE compiled, N for the table's player count."""

    value: Callable[[Ctx], Any]
    target: int


def card_measure(cond: A.Expr, game: Game) -> Measure | None:
    """The measure of a card's condition: its first comparison of a value with a number (by player count),
    depth first through `and`/`or`; None when it has none (`owner(...) is you`)."""
    from rebirth_dsl.compile.closures import compile_expr

    match cond:
        case A.BinOp(op="and" | "or", left=left, right=right):
            return card_measure(left, game) or card_measure(right, game)
        case A.BinOp(op=">=" | ">" as op, left=e, right=k) if (f := by_count(k)) is not None:
            try:
                return Measure(compile_expr(e, game.rs.t), f(game.n_players) + (op == ">"))
            except Exception:  # noqa: BLE001 - a shape the closures refuse: the card shows no count
                return None
    return None


def table_from_record(data: dict[str, Any], path: str | Path, allow_paths: bool = False,
                      agents: list[str] | None = None, at: int | None = None, rules: Path | None = None,
                      board: Path | None = None, playable: bool = True, deal_seed: int | None = None) -> Table:
    """A table from a record's data (paths relative to `path`'s folder), after its first `at` moves (all by
    default); `agents` replace the record's (default: the record's, else a person in every seat). A
    scenario (free order, no turns) can be looked at but not `playable`. `deal_seed`: a position's unknown
    parts are dealt with it (records.games.replay_game's), else refused."""
    if not isinstance(data, dict):
        raise RebirthError.single("a game record is a JSON object", file=shown(path))
    file = shown(path)
    base = Path(path).parent
    rules_path = rules or resolve(base, str(data.get("rules", "")), "rules", allow_paths, file)
    board_path = board or resolve(base, str(data.get("board", "")), "boards", allow_paths, file)
    loaded = load_record(path, data, allow_paths, rules=rules_path, board=board_path)
    loaded.deal_seed = deal_seed
    rec = loaded.record
    if rec.scenario and playable:
        raise RebirthError.single("a scenario places tiles in free order, with no turns: it cannot be played on",
                                  file=file, path="$.scenario")
    n_moves = len(rec.moves)
    if at is not None and not 0 <= at <= n_moves:
        raise RebirthError.single(f"move {at}: the record has {n_moves} moves", file=file)
    r = replay(loaded, stop_at=at)
    if r.error is not None:
        raise r.error
    names = list(rec.players)
    if agents is not None:
        agent_names = check_agents(agents, len(names))
    else:
        agent_names = check_agents(rec.agents or [HUMAN] * len(names), len(names), lenient=True)
    out = copy.deepcopy(data)
    out["moves"] = [m.data() for m in (rec.moves if at is None else rec.moves[:at])]
    out["agents"] = agent_names
    return Table(out, loaded, r.game, rules_path, board_path, agent_names)


def new_table(rules: Path, board: Path, names: list[str], agents: list[str], seed: int,
              base: Path | None = None) -> Table:
    """A fresh game at a table."""
    agent_names = check_agents(agents, len(names))
    data = new_record(rules, board, names, agent_names, seed, base)
    return table_from_record(data, (base or Path.cwd()) / "record.json", allow_paths=True, rules=rules, board=board)


# ----- the terminal: `rebirth play` with a person in a seat, and `--resume` ----------------------------
def run(table: Table, seats: dict[int, Agent], say: Callable[[str], None] | None = None) -> None:
    """Play on until the game is over; a person at the terminal may stop it (SaveGame)."""
    g = table.game
    while not g.is_over():
        p = g.turn
        agent = seats.get(p) or table.agent(p)
        if isinstance(agent, HumanAgent):
            agent.table = table
        move = _ask_move(table, agent, p)
        table.apply_record_move(move)


def _ask_move(table: Table, agent: Agent, p: int) -> dict[str, Any]:
    """The move a seat's agent (or person) makes now, as a record entry."""
    return table.agent_move(agent=agent if isinstance(agent, HumanAgent) else None)


def _save_path(out: Path | None) -> Path:
    """Where a stopped game goes: the -o file, else a new rebirth-save-N.json in the current folder."""
    if out is not None:
        return out
    for i in range(1, 1000):
        p = Path(f"rebirth-save{'' if i == 1 else f'-{i}'}.json")
        if not p.exists():
            return check_output(p)
    raise RebirthError.single("no free name for the saved game in this folder: give -o")


def _finish(table: Table, out: Path | None, quiet: bool, stopped: bool) -> int:
    """Write (or print) the record; a stopped game is always written to a file, to be resumed."""
    rec = table.record()
    if stopped:
        target = _save_path(out)
        write_json_atomic(target, rec)
        print(f"\nsaved the game after {len(rec['moves'])} moves to {shown(target)}; continue it with "
              f"`rebirth play --resume {shown(target)}` (or open it in `rebirth serve`)", file=sys.stderr)
        return 0
    if out is not None:
        write_json_atomic(out, rec)
        if not quiet:
            print(render_table(evaluate(table.game), table.game.rs.categories))
            print(f"\nwrote {shown(out)} ({len(rec['moves'])} moves)")
    else:
        print(dumps(rec))
    return 0


def _seats(agents: list[str]) -> dict[int, Agent]:
    return {i: HumanAgent() for i, a in enumerate(agents) if a == HUMAN}


def play_at_terminal(rules: Path, board: Path, names: list[str], agents: list[str], seed: int,
                     out: Path | None, quiet: bool = False) -> int:
    """`rebirth play` with a person in at least one seat: `q` or the end of input saves the game."""
    table = new_table(rules, board, names, agents, seed, out.parent if out else Path.cwd())
    try:
        run(table, _seats(table.agents))
    except SaveGame:
        return _finish(table, out, quiet, stopped=True)
    return _finish(table, out, quiet, stopped=False)


def resume_command(path: str, agents: str | None, output: str | None, quiet: bool = False,
                   allow_paths: bool = False) -> int:
    """`rebirth play --resume GAME`: continue a saved game; it is written back to the same file unless -o
    names another. GAME may also be a position in the notation (a file, the text or `-`): the game goes on
    from it, its unknown parts dealt with seed 0 and said, and is written as a record to -o (never over
    the notation)."""
    from rebirth_dsl.records.games import game_data

    src, data, text = game_data(path)
    if text is not None:
        if not output:
            raise RebirthError.single("a position in the notation: name the record to write with -o (the "
                                      "position is never written over)", file=shown(src))
        table = table_from_record(data, src, allow_paths=allow_paths,
                                  agents=_resume_agents(agents, data.get("players")), deal_seed=0)
        if table.loaded.dealt and not quiet:
            print("dealt (seed 0): " + "; ".join(table.loaded.dealt), file=sys.stderr)
        out = check_output(output, record_files(src, data, allow_paths) + [src])
        return _play_on(table, out, quiet)
    if data is None:
        data = load_json(src)
    names = data.get("players") if isinstance(data, dict) else None
    table = table_from_record(data, src, allow_paths=allow_paths, agents=_resume_agents(agents, names))
    # continuing a saved game extends that file; another -o must not be one the record reads
    out = check_output(output, record_files(src, data, allow_paths)) if output else src
    if out == src and name_of("examples", src) is not None:
        raise RebirthError.single(f"{shown(src)} is a bundled example: name a file to write with -o")
    if table.is_over():
        print(f"{shown(src)}: the game is already over", file=sys.stderr)
    return _play_on(table, out, quiet)


def _resume_agents(agents: str | None, names: Any) -> list[str] | None:
    """--agents for a resumed game: one name for every seat, or one per seat (a loose list is refused later)."""
    if not agents:
        return None
    agent_names = [a.strip() for a in agents.split(",") if a.strip()]
    if isinstance(names, list) and names and len(agent_names) == 1:
        agent_names = agent_names * len(names)
    return agent_names


def _play_on(table: Table, out: Path, quiet: bool) -> int:
    """Play a resumed game on to its end (or a human seat's `q`), then write it."""
    try:
        run(table, _seats(table.agents))
    except SaveGame:
        return _finish(table, out, quiet, stopped=True)
    return _finish(table, out, quiet, stopped=False)

"""The research environments (rebirth_dsl.envs), each checked with its library's own checker, against
`rebirth play` and `rebirth eval`, and for hidden information.

The adapters need the optional libraries: `pip install -e '.[rl]'` (numpy, gymnasium, pettingzoo,
open_spiel). Without them those tests skip, saying which package is missing.
"""

from __future__ import annotations

import json
import random
import re
import warnings
from pathlib import Path

import pytest
from conftest import ROOT

from rebirth_dsl.cli import main
from rebirth_dsl.envs.table import AgentPlayer, Table, spec_for
from rebirth_dsl.play.agents import RandomAgent
from rebirth_dsl.play.loop import DEFAULT_NAMES, play_game
from rebirth_dsl.play.registry import make_agent
from rebirth_dsl.records.record import load_record, replay

INSTALL = "install the research extra: pip install -e '.[rl]'"


def need(module: str) -> None:
    """Skip, naming the package and the extra, when an optional library is missing."""
    pytest.importorskip(module, reason=f"{module} is not installed ({INSTALL})")


def random_aec_game(e, seed: int) -> None:
    """Play an AEC game to the end with the seats drawing as `rebirth play --agents random` does."""
    raw = e.unwrapped
    players = [AgentPlayer(RandomAgent(), seed, q) for q in range(len(raw.possible_agents))]
    for _ in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else players[raw.table.seat()].action(raw.table))


# ----- the numbering (plain Python: no optional library) ------------------------------------------
@pytest.mark.parametrize("rules", ["scotland", "ireland"])
def test_every_action_decodes_back_to_itself(rules: str) -> None:
    """Spec: place, pass and the answers cover 0..size-1 without overlap."""
    import rebirth_dsl as rb

    spec = spec_for(rb.load(rules).ruleset)
    seen = set()
    for a in range(spec.size):
        what, i, h = spec.decode(a)
        back = spec.place(i, h) if what == "place" else spec.pass_(i) if what == "pass" else spec.answer(what, i)
        assert back == a
        seen.add((what, i, h))
    assert len(seen) == spec.size
    with pytest.raises(ValueError):
        spec.decode(spec.size)


@pytest.mark.parametrize("rules,n,seed", [("scotland", 2, 3), ("scotland", 4, 1), ("ireland", 2, 5), ("ireland", 3, 2)])
@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_agents_through_the_numbering_make_the_game_rebirth_play_makes(rules: str, n: int, seed: int, agent: str) -> None:
    """A built-in agent deciding action by action (AgentPlayer) makes exactly `rebirth play`'s game."""
    import rebirth_dsl as rb

    game = rb.load(rules).new_game(n, seed)
    table = Table(game.engine)
    seats = [AgentPlayer(make_agent(agent), seed, q) for q in range(n)]
    while not game.is_over:
        done = table.step(seats[table.seat()].action(table))
        if done is not None:
            game.play(rb.Move(*table.move_of(done)))
    ref, moves = play_game(game.rules.ruleset, list(game.players), [make_agent(agent) for _ in range(n)], seed)
    assert game.record()["moves"] == moves
    assert game.engine.final_scores(game.engine.end_events()) == ref.final_scores(ref.end_events())


def test_an_illegal_action_is_refused_with_a_reason_and_changes_nothing() -> None:
    """Table.step refuses an action outside the mask, saying why; the decision is still open."""
    import rebirth_dsl as rb

    game = rb.load("scotland").new_game(2, 1)
    table = Table(game.engine)
    legal = table.legal_actions()
    bad = next(a for a in range(table.spec.pass_base) if a not in legal)
    with pytest.raises(ValueError, match=r"action \d+"):
        table.step(bad)
    with pytest.raises(ValueError, match=r"cannot be passed, it has a legal hex \(S-P5\)"):
        table.step(table.spec.pass_(0))
    with pytest.raises(ValueError, match="outside"):
        table.step(table.spec.size)
    assert table.turn is None and table.legal_actions() == legal


# ----- PettingZoo -------------------------------------------------------------------------------
@pytest.mark.parametrize("rules,n", [("scotland", 2), ("scotland", 4), ("ireland", 3), ("variants/korean-castles", 3)])
def test_pettingzoo_api_test(rules: str, n: int) -> None:
    """PettingZoo's own checker (a whole game with random masked actions, spaces, rewards, seeding)."""
    need("pettingzoo")
    from pettingzoo.test import api_test

    from rebirth_dsl.envs.aec import env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice for non-dict observations (ours is a dict, as chess's)
        api_test(env(rules=rules, players=n), num_cycles=1000)


@pytest.mark.parametrize("reward", ["win", "score", "points"])
def test_pettingzoo_rewards_add_up(reward: str) -> None:
    """Each agent's rewards over a game: +1/-1 by the winners, or its final score (at the end, or move
    by move with the end-of-game points last)."""
    need("pettingzoo")
    from rebirth_dsl.envs.aec import raw_env

    e = raw_env(rules="ireland", players=3, reward=reward)
    e.reset(seed=11)
    total = dict.fromkeys(e.possible_agents, 0.0)
    players = [AgentPlayer(RandomAgent(), 11, q) for q in range(3)]
    for agent in e.agent_iter():
        _, r, term, trunc, _ = e.last()
        total[agent] += r
        e.step(None if term or trunc else players[e.table.seat()].action(e.table))
    result = e.game.result()
    for q, p in enumerate(result["players"]):
        want = (1.0 if p["name"] in result["winners"] else -1.0) if reward == "win" else float(p["score"])
        assert total[f"player_{q}"] == want


@pytest.mark.parametrize("rules,n,seed", [("scotland", 3, 4), ("ireland", 2, 9), ("ireland", 4, 2)])
def test_pettingzoo_seeded_random_run_equals_rebirth_play(rules: str, n: int, seed: int, tmp_path: Path) -> None:
    """reset(seed) deals as `rebirth play --seed`; seats drawing from seat_rng(seed, seat) one float per
    pick (AgentPlayer over RandomAgent) make the same moves and final scores as
    `rebirth play --agents random --seed`."""
    need("pettingzoo")
    from rebirth_dsl.envs.aec import env

    e = env(rules=rules, players=n)
    e.reset(seed=seed)
    random_aec_game(e, seed)
    out = tmp_path / "cli.json"
    assert main(["play", "--rules", rules, "--players", str(n), "--seed", str(seed), "--agents", "random",
                 "-o", str(out), "--quiet"]) == 0
    cli = json.loads(out.read_text())
    game = e.unwrapped.game
    assert game.record()["moves"] == cli["moves"]
    ref = replay(load_record(out)).game
    assert list(game.scores().values()) == ref.final_scores(ref.end_events())


def test_the_readme_example_prints_what_rebirth_eval_says(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The PettingZoo example of docs/api.md (pasted into the README) runs as written; its scores are
    those `rebirth eval` gives the record it saves."""
    need("pettingzoo")
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- readme-example -->\s*```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    assert len(code.strip().splitlines()) <= 20
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/api.md", "exec"), {"__name__": "example"})  # noqa: S102 - our own documentation
    printed = capsys.readouterr().out.strip().splitlines()[-1]
    assert main(["eval", str(tmp_path / "game.json"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert printed == str({p["name"]: p["score"] for p in result["players"]})
    assert result["finished"]


# ----- hidden information -------------------------------------------------------------------------
def hidden_shuffle(table: Table, me: int, rng: random.Random) -> None:
    """Change everything seat `me` cannot see, keeping what it can: the other players' hands, supplies
    and set-aside tiles (pooled and dealt again), their cards (swapped with the decks), every deck's and
    supply's order, and which of my own unseen tiles are set aside face down."""
    g = table.game
    pending = table.turn.p if table.turn is not None else None
    for q in range(g.n_players):
        if q == me:
            continue
        parts = [g.supply[q], g.set_aside[q]] + ([g.hand[q]] if q != pending else [])  # a pending tile stays
        pool = [x for part in parts for x in part]
        rng.shuffle(pool)
        for part in parts:
            part[:], pool = pool[:len(part)], pool[len(part):]
    keep = table.keep_count() if table.turn is not None and table.phase() == "keep" and pending == me else 0
    cut = len(g.supply[me]) - keep  # the tiles a "draw N keep" shows me stay where they are
    aside = g.set_aside[me] if not g.rs.set_aside_visible else []
    pool = g.supply[me][:cut] + aside
    rng.shuffle(pool)
    g.supply[me][:cut] = pool[:cut]
    aside[:] = pool[cut:]
    for deck in g.decks.values():
        held = [h for q, h in enumerate(g.held) if q != me]
        pool = list(deck) + [c for h in held for c in h]
        rng.shuffle(pool)
        deck[:], pool = pool[:len(deck)], pool[len(deck):]
        for h in held:
            h[:], pool = pool[:len(h)], pool[len(h):]


def hidden_part(g, me: int) -> tuple:
    """What `me` cannot see, to tell that a shuffle changed something."""
    return (tuple(tuple(g.hand[q]) + tuple(g.supply[q]) + tuple(g.set_aside[q]) for q in range(g.n_players) if q != me),
            tuple(g.supply[me]), tuple(tuple(d) for d in g.decks.values()))


@pytest.mark.parametrize("rules,n,seed", [("ireland", 3, 1), ("ireland", 2, 6), ("scotland", 2, 2), ("scotland", 4, 3)])
def test_observations_hold_nothing_a_player_cannot_see(rules: str, n: int, seed: int) -> None:
    """At every decision of random games (placements and questions alike), each seat's observation and
    mask are the same in a copy where everything that seat cannot see has been shuffled."""
    need("numpy")
    import numpy as np

    import rebirth_dsl as rb
    from rebirth_dsl.envs.observe import Encoder

    game = rb.load(rules).new_game(n, seed)
    table = Table(game.engine)
    enc = Encoder(game.rules.ruleset, n, table.spec)
    seats = [AgentPlayer(RandomAgent(), seed, q) for q in range(n)]
    rng = random.Random(seed)
    changed = questions = 0
    while not game.is_over:
        questions += table.turn is not None
        for me in range(n):
            other = table.clone(table.game.clone())
            hidden_shuffle(other, me, rng)
            changed += hidden_part(other.game, me) != hidden_part(table.game, me)
            assert np.array_equal(enc.encode(table, me), enc.encode(other, me)), (me, table.game.move_index)
            if table.seat() == me:
                assert table.legal_actions() == other.legal_actions()
        done = table.step(seats[table.seat()].action(table))
        if done is not None:
            game.play(rb.Move(*table.move_of(done)))
    assert changed > 0
    assert questions > 0 or rules == "scotland"


def test_an_observation_shows_what_its_player_may_see() -> None:
    """The observation does change with what a seat sees: its own hand and the board."""
    need("numpy")
    import numpy as np

    import rebirth_dsl as rb
    from rebirth_dsl.envs.observe import Encoder

    game = rb.load("ireland").new_game(2, 1)
    table = Table(game.engine)
    enc = Encoder(game.rules.ruleset, 2, table.spec)
    before = enc.encode(table, 0)
    other = table.clone(table.game.clone())
    other.game.hand[0][0] = next(x for x in enc.tiles if x != other.game.hand[0][0])
    assert not np.array_equal(before, enc.encode(other, 0))  # my hand is mine to see
    assert np.array_equal(enc.encode(table, 1), enc.encode(other, 1))  # and not the other seat's
    done = table.step(table.legal_actions()[0])
    assert done is not None
    game.play(rb.Move(*table.move_of(done)))
    assert enc.views(enc.encode(table, 1))["hex_occupant"][:, 3].sum() == 1  # seat 0's tile, seen by seat 1


# ----- Gymnasium ----------------------------------------------------------------------------------
@pytest.mark.parametrize("rules,opponents", [("scotland", "greedy"), ("ireland", "random")])
def test_gymnasium_check_env(rules: str, opponents: str) -> None:
    """Gymnasium's own checker, on the class and through gymnasium.make."""
    need("gymnasium")
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from rebirth_dsl.envs.single import ENV_ID, RebirthEnv

    check_env(RebirthEnv(rules=rules, players=2, opponents=opponents), skip_render_check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make(ENV_ID, rules=rules, players=3, seat=1, opponents=opponents,
                                 render_mode="ansi").unwrapped)


def test_gymnasium_episode_is_rebirth_play_with_the_learner_as_an_agent() -> None:
    """The learner at seat 1 playing as `random` would, against greedy: the game of
    `rebirth play --agents greedy,random --seed`; reward +1/-1 at the end, 0 before."""
    need("gymnasium")
    from rebirth_dsl.envs.single import RebirthEnv

    seed = 8
    e = RebirthEnv(rules="ireland", players=2, seat=1, opponents="greedy")
    obs, info = e.reset(seed=seed)
    me = AgentPlayer(RandomAgent(), seed, 1)
    rewards = []
    while True:
        assert info["action_mask"][me_action := me.action(e.table)]
        obs, r, term, trunc, info = e.step(me_action)
        rewards.append(r)
        if term:
            break
    _, moves = play_game(e.rules.ruleset, ["Ann", "Bob"], [make_agent("greedy"), RandomAgent()], seed)
    assert e.game.record()["moves"] == moves
    assert set(rewards[:-1]) <= {0.0} and rewards[-1] == (1.0 if "Bob" in e.game.winners() else -1.0)


def test_gymnasium_illegal_action_ends_the_episode() -> None:
    """An action outside the mask: the episode ends with illegal_reward and the reason in info."""
    need("gymnasium")
    from rebirth_dsl.envs.single import RebirthEnv

    e = RebirthEnv(rules="scotland", players=2, illegal_reward=-5.0)
    _, info = e.reset(seed=1)
    bad = int(next(i for i, ok in enumerate(info["action_mask"]) if not ok))
    _, r, term, _, info = e.step(bad)
    assert (r, term) == (-5.0, True) and "action" in info["illegal"]


# ----- OpenSpiel ----------------------------------------------------------------------------------
@pytest.mark.parametrize("rules,n", [("scotland", 2), ("ireland", 3), ("scotland", 4)])
def test_openspiel_random_sim_test(rules: str, n: int) -> None:
    """OpenSpiel's own random simulation test: chance outcomes, legal actions, clones, serialisation,
    observations and returns, over whole games."""
    need("pyspiel")
    import pyspiel

    import rebirth_dsl.envs.spiel  # noqa: F401 - registers python_rebirth

    game = pyspiel.load_game("python_rebirth", {"rules": rules, "players": n})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_openspiel_mcts_plays_a_whole_game() -> None:
    """OpenSpiel's MCTS bot (random rollouts through the chance nodes) plays Ireland to the end."""
    need("pyspiel")
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import rebirth_dsl.envs.spiel  # noqa: F401

    game = pyspiel.load_game("python_rebirth", {"rules": "ireland", "players": 2})
    rng = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=4, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                         random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
            decisions += 1
    assert decisions >= 64 and sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])


@pytest.mark.parametrize("rules,n,seed", [("scotland", 2, 1), ("ireland", 2, 1), ("ireland", 3, 7), ("ireland", 4, 5)])
def test_openspiel_chance_nodes_reproduce_a_dealt_game(rules: str, n: int, seed: int) -> None:
    """Each chance node is one draw: answering every draw with what `deal(seed)` put there, and every
    decision with the moves of `rebirth play --agents greedy --seed`, replays that game exactly (draws
    from a supply, tiles shown and put back by "draw 3 keep 1", mission cards, public missions)."""
    need("pyspiel")
    import pyspiel

    import rebirth_dsl as rb
    import rebirth_dsl.envs.spiel  # noqa: F401

    rules_obj = rb.load(rules)
    ref_final, moves = play_game(rules_obj.ruleset, DEFAULT_NAMES[:n], [make_agent("greedy")] * n, seed)
    asked = {k for m in moves for c in m.get("choices", {}).values() if isinstance(c, dict) for k in c}
    assert asked == ({"take", "keep", "double"} if rules == "ireland" else set())  # every kind of question
    ref = rules_obj.new_game(n, seed)  # the dealt game, kept in step with the OpenSpiel state
    setup = ref.setup
    game = pyspiel.load_game("python_rebirth", {"rules": rules, "players": n})
    state = game.new_initial_state()
    cfg = game.cfg
    T = len(cfg.tiles)
    tile_action = {x: i for i, x in enumerate(cfg.tiles)}
    card_action = {c: T + i for i, c in enumerate(cfg.cards)}
    deal = [tile_action[x] for p in range(n) for x in setup.set_aside[p]]
    if cfg.rs.public is not None:
        deal += [card_action[c] for c in setup.decks[cfg.rs.public.deck][:cfg.rs.public.count]]
    deal += [tile_action[x] for p in range(n) for x in setup.supply[p][:cfg.rs.hand]]
    move = 0
    while not state.is_terminal():
        core = state.core
        if state.is_chance_node():
            if deal:
                a = deal.pop(0)
            else:
                what, i, deck = core.need()
                if what == "tile":  # the reference supply's tile at the next unfixed place from the top
                    a = tile_action[ref.engine.supply[i][-1 - core.top[i]]]
                else:
                    a = card_action[ref.engine.decks[deck][i]]
            assert a in dict(state.chance_outcomes())
            state.apply_action(a)
        else:
            table = core.table
            m = moves[move]
            p = table.seat()
            if table.turn is None:
                tile = rules_obj.ruleset.parse_tile(m["tile"])
                slot = core.game.hand[p].index(tile)
                h = core.game.t.index[tuple(m["hex"])] if m["hex"] is not None else None
                a = table.spec.place(slot, h) if h is not None else table.spec.pass_(slot)
            else:
                ask = table.turn.asks[0]
                want = next(iter(m["choices"][core.game.t.landmark_name[ask.lm]].values()))
                a = next(x for x in table.legal_actions() if table._name(ask.key, table.spec.decode(x)[1]) == want)
            state.apply_action(a)
        core = state.core
        if core.game is not None and core.game.move_index > move:  # a move is played (after its draws)
            m = moves[move]
            p = ref.engine.turn
            ref.play(rb.Move(m["tile"], tuple(m["hex"]) if m["hex"] else None,
                             tuple((k, v if isinstance(v, bool) else next(iter(v.values())))
                                   for k, v in m.get("choices", {}).items())))
            move += 1
            assert core.game.track == ref.engine.track
            mine, theirs, b, t = core.game.supply[p], ref.engine.supply[p], core.bottom[p], core.top[p]
            assert sorted(mine) == sorted(theirs)  # the same tiles left; where known, in the same places
            assert mine[:b] == theirs[:b] and mine[len(mine) - t:] == theirs[len(theirs) - t:]
            assert core.game.hand == ref.engine.hand and core.game.held == ref.engine.held
    assert move == len(moves)
    final = state.core.game.final_scores(state.core.game.end_events())
    assert final == ref_final.final_scores(ref_final.end_events())


def test_openspiel_observations_hide_what_a_seat_cannot_see() -> None:
    """OpenSpiel's observation tensor is the encoder's: unchanged by shuffling what a seat cannot see."""
    need("pyspiel")
    import numpy as np
    import pyspiel
    from open_spiel.python.observation import make_observation

    import rebirth_dsl.envs.spiel  # noqa: F401

    game = pyspiel.load_game("python_rebirth", {"rules": "ireland", "players": 3})
    obs = make_observation(game)
    rng = np.random.RandomState(1)
    shuffle_rng = random.Random(1)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        if checked < 40:
            for me in range(3):
                obs.set_from(state, me)
                mine = obs.tensor.copy()
                other = state.clone()
                hidden_shuffle(other.core.table, me, shuffle_rng)
                obs.set_from(other, me)
                assert np.array_equal(mine, obs.tensor)
            checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked == 40

"""Speed devices of the engines, each proven equal to the rule or plain code it accelerates (rules/,
runtime/): the public missions' incremental check (public.py), the deal's shuffle and seeding (shuffle.py),
new games from a written-out copy of the blank position (fresh.py), and the generated end scoring of quiet
games (fast_end.py). This layer sits between rules/ and runtime/, so the engines (runtime/setup.py,
runtime/game.py, runtime/endgame.py, pyengine/fast.py) may use it and it never reads the runtime's classes.
"""

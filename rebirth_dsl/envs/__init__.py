"""Rebirth as an environment for game-playing research: PettingZoo (`envs.aec`), Gymnasium (`envs.single`)
and OpenSpiel (`envs.spiel`). Install the libraries with `pip install 'rebirth-dsl[rl]'`.

Nothing is imported here: each adapter imports numpy and its own library when it is imported, so the
rest of the package never pays for them. `envs.table` (the action numbering and the decision machine)
is plain Python.
"""

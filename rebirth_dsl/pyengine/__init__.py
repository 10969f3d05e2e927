"""The generated Python engine: per ruleset and board, the placement and the random playout loop written
out as Python source (fast.py), emitted from the rule modules' templates (rules/, each statement through its
`Kind`). It repeats the reference engine (runtime/) for speed and is held equal to it by tests/engines.

This layer sits right above runtime/: it plays on the runtime's `Game`, calls its reference reactions
where it writes nothing out, and uses the speed devices of accel/.
"""

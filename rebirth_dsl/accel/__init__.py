"""Speed devices of the generated engines, each proven equal to the rule it accelerates (rules/): the
public missions' incremental check (public.py). This layer sits between rules/ and runtime/, so the generated
engine (runtime/fast.py) may use it and it never reads the runtime's classes.
"""

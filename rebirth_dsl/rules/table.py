"""Which rule module holds each compiled statement type: the one place an engine learns what a statement
is (every engine asks `kind_of`, none tests a statement's type)."""

from __future__ import annotations

from rebirth_dsl.compile.ruleset import AreaRule, MajorityRule, PlaceDraw, PublicRule, ScoreTrigger, TouchRule
from rebirth_dsl.rules import area, majority, public, touch, trigger
from rebirth_dsl.rules.kind import Kind

KINDS: dict[type, Kind] = {
    ScoreTrigger: trigger.SCORE,
    PlaceDraw: trigger.DRAW,
    AreaRule: area.KIND,
    MajorityRule: majority.KIND,
    TouchRule: touch.KIND,
    PublicRule: public.KIND,
}


def kind_of(rule: object) -> Kind:
    """The rule module's Kind of a compiled statement; a statement type with none is an error, never a
    statement accepted and ignored."""
    try:
        return KINDS[type(rule)]
    except KeyError:
        raise TypeError(f"no rule module for {type(rule).__name__}") from None

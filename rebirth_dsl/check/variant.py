"""Checks of what a ruleset takes from outside itself: the board its `board` statement names, and the scoring
categories a variant scores into. A category is inherited (the base scores into it), declared (`category
wells`), or new by use; a new one that reads like a misspelling of an inherited one (`farm` beside `farms`)
is an error, since it would silently add a scoring beside the base's instead of replacing it
(docs/language.md, "Categories")."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from rebirth_dsl.errors import Diagnostic, Fix, Span, did_you_mean
from rebirth_dsl.lang import ast as A
from rebirth_dsl.lang.parser import scored_categories
from rebirth_dsl.lang.refs import board_problem

if TYPE_CHECKING:
    from rebirth_dsl.check.checks import Board
    from rebirth_dsl.check.symbols import Tables


def check_board_statement(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """A `board` statement names a board there is: a bundled one, or a file beside the rules file."""
    out = []
    for s in rules.statements:
        if isinstance(s, A.BoardDecl):
            problem = board_problem(s)
            if problem is not None:  # as lang.refs says it to a command that needs the board
                out.append(replace(problem, code="unknown-board"))
    return out


def check_categories(rules: A.Rules, t: Tables, board: Board | None) -> list[Diagnostic]:
    """In a ruleset that extends another, a category scored into that is neither the base's nor declared
    here, and is close to one of the base's, is an error with the did-you-mean and the two fixes."""
    if rules.header.extends is None:
        return []  # a ruleset of its own introduces its categories by scoring into them
    declared = [n for s in rules.statements if isinstance(s, A.CategoryDecl) for n in s.names]
    known = list(dict.fromkeys((*rules.inherited_categories, *declared)))
    known_set = set(known)
    out: list[Diagnostic] = []
    for cat, st in scored_categories(rules):
        if cat in known_set or isinstance(st, A.CategoryDecl) or st.span.file != rules.file:
            continue
        span = category_span(rules, st, cat)
        if span is None:  # not written in this file: a block that keeps its base's category
            continue
        dym = did_you_mean(cat, known)
        if dym is None:
            continue  # a new category, like none of the base's: introduced by scoring into it
        fixes = (Fix(f"change to '{dym}'", span, dym),
                 Fix(f"declare the new category '{cat}'", _after_header(rules), f"category {cat}\n"))
        out.append(Diagnostic(
            f"`{cat}` is no category of the ruleset this one extends, nor declared here: did you mean `{dym}`?",
            file=span.file, line=span.line, col=span.col, end_line=span.end_line, end_col=span.end_col,
            hint=f"its categories: {', '.join(known) or 'none'}; to add a new category beside `{dym}`, declare "
                 f"it: `category {cat}`", code="unknown-category", fixes=fixes))
    return out


def category_span(rules: A.Rules, st: A.Statement, cat: str) -> Span | None:
    """Where a statement writes `as CATEGORY` in its file, or None when its text does not say it."""
    src = rules.sources.get(st.span.file)
    if src is None or not st.span.line:
        return None
    lines = src.split("\n")
    pattern = re.compile(rf"\bas\s+({re.escape(cat)})\b")
    last = min(st.span.end_line or st.span.line, len(lines))
    for n in range(st.span.line, last + 1):
        text = lines[n - 1].split("#", 1)[0]
        start = st.span.col - 1 if n == st.span.line else 0
        m = pattern.search(text, start)
        if m is not None:
            return Span(st.span.file, n, m.start(1) + 1, n, m.end(1) + 1)
    return None


def _after_header(rules: A.Rules) -> Span:
    """An empty span at the start of the line after the header: where a declaration is inserted."""
    h = rules.header.span
    line = (h.end_line or h.line) + 1
    return Span(rules.file, line, 1, line, 1)

"""The reference manual (docs/language.md) keeps up with the language, and its examples are true.

- Every statement form of the grammar (read as tests/lang/test_statement_forms.py reads them), every block, every
  expression atom, every function of lang/functions.SIGNATURES and every variable of VARIABLES has an entry:
  a heading with a marker `<!-- form: NAME -->`, `<!-- function: NAME -->` or `<!-- variable: NAME -->`,
  and an example in its section that really uses it. A function's `**Type:**` line is its signature.
- Every example (a fenced block whose language is `rules`, `rules-warns` or `rules-refused`) goes through
  the real checker against the bundled board, as `rebirth check` would run it: a `rules` block must check
  clean, a `rules-warns` block must give warnings and no error, a `rules-refused` block must be refused.

An example is a whole ruleset (it starts with `ruleset`) or a snippet. A snippet becomes a variant,
`ruleset example extends "scotland.rules"` followed by the snippet, written beside the bundled rules so the
override model applies; the words after the fence's language change that:

    base=NAME    the bundled ruleset the snippet extends (default scotland)
    append       the snippet is appended to the text of the base file instead (no override: both stay)
    board=NAME   the bundled board to check against (default: the base's board); board=none: no board
    strict       check --strict (every statement cites a rule id)
    expect="..." a text the checker's message must contain (rules-warns, rules-refused)
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, beyond_bundled_findings
from test_statement_forms import CONTAINERS, grammar_forms  # its own folder is on sys.path (no __init__.py)

from rebirth_dsl.board.model import load_board
from rebirth_dsl.check.checks import check
from rebirth_dsl.check.types import VARIABLES
from rebirth_dsl.errors import Diagnostic, RebirthError
from rebirth_dsl.lang.functions import SIGNATURES
from rebirth_dsl.lang.parser import lark_parser, load_rules
from rebirth_dsl.records.resources import default_board, find

RULES = ROOT / "rules"
MANUAL = ROOT / "docs" / "language.md"
TEXT = MANUAL.read_text(encoding="utf-8")

LANGS = ("rules", "rules-warns", "rules-refused")
OPTIONS = {"base", "append", "board", "strict", "expect"}
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
MARKER = re.compile(r"<!--\s*(form|function|variable):\s*([\w+]+)\s*-->")
HEADING = re.compile(r"^#{1,6} ", re.M)


# ----- the manual's entries --------------------------------------------------------------------------
def required_entries(parser: object = None) -> set[str]:
    """What must have an entry: the statement forms, the blocks and other containers of the grammar, the
    header, a card, the expression atoms, every function and every variable."""
    rules = (parser or lark_parser()).rules  # type: ignore[attr-defined]
    atoms = {r.alias for r in rules if r.origin.name == "atom"}
    forms = grammar_forms(parser) | CONTAINERS | atoms | {"header", "card"}
    return ({f"form: {f}" for f in forms} | {f"function: {f}" for f in SIGNATURES}
            | {f"variable: {v}" for v in VARIABLES})


def markers(text: str) -> list[str]:
    """Every entry marker of the manual, in order."""
    return [f"{what}: {name}" for what, name in MARKER.findall(text)]


def missing_entries(text: str, parser: object = None) -> set[str]:
    """What has no entry in the manual."""
    return required_entries(parser) - set(markers(text))


def sections(text: str) -> list[tuple[int, str]]:
    """The manual cut at its headings (not at a `#` comment inside an example): (line of the heading, text up
    to the next heading)."""
    fenced = [m.span() for m in FENCE.finditer(text)]
    starts = [m.start() for m in HEADING.finditer(text) if not any(a <= m.start() < b for a, b in fenced)]
    starts.append(len(text))
    return [(text.count("\n", 0, a) + 1, text[a:b]) for a, b in zip(starts, starts[1:], strict=False)]


# ----- the manual's examples -------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    """One fenced example and how it is checked."""

    line: int
    lang: str
    text: str
    base: str = "scotland"
    board: str | None = None
    append: bool = False
    strict: bool = False
    expect: str = ""

    @property
    def whole(self) -> bool:
        """A whole ruleset, not a snippet."""
        code = [ln.split("#", 1)[0].strip() for ln in self.text.splitlines()]
        return next((ln for ln in code if ln), "").startswith("ruleset")

    def source(self) -> str:
        """The rules file the example is checked as."""
        if self.whole:
            return self.text
        if self.append:
            return (RULES / f"{self.base}.rules").read_text(encoding="utf-8") + "\n" + self.text
        return f'ruleset example "Example" extends "{self.base}.rules"\n{self.text}'


def examples(text: str) -> list[Example]:
    """Every fenced block of the manual whose language starts with `rules`."""
    out = []
    for m in FENCE.finditer(text):
        info = m.group(1).strip()
        if not info.startswith("rules"):
            continue
        lang, *words = shlex.split(info)
        line = text.count("\n", 0, m.start()) + 1
        if lang not in LANGS:
            raise ValueError(f"docs/language.md:{line}: unknown example kind {lang!r} (one of {LANGS})")
        opts: dict[str, str | bool] = {}
        for w in words:
            key, _, value = w.partition("=")
            if key not in OPTIONS:
                raise ValueError(f"docs/language.md:{line}: unknown example option {key!r} (one of {sorted(OPTIONS)})")
            opts[key] = value if "=" in w else True
        out.append(Example(line, lang, m.group(2), **opts))  # type: ignore[arg-type]
    return out


def _board(ex: Example, rules_file: Path) -> Path | None:
    """The board the example is checked against: as `rebirth check` picks it for the bundled file."""
    if ex.board == "none":
        return None
    if ex.board:
        return find("boards", ex.board)
    if not ex.whole:
        return default_board(RULES / f"{ex.base}.rules")
    m = re.search(r'^\s*ruleset\b[^\n]*\bextends\s+"([^"]+)"', ex.text, re.M)
    board = default_board(RULES / m.group(1)) if m else None
    if board is None:
        raise ValueError(f"docs/language.md:{ex.line}: a whole ruleset that extends no bundled one names its "
                         "board (board=NAME or board=none)")
    return board


def diagnostics(ex: Example, tmp: Path) -> list[Diagnostic]:
    """What `rebirth check` says of the example (a syntax or override error is one diagnostic)."""
    rules_dir = tmp / "rules"
    if not rules_dir.exists():
        shutil.copytree(RULES, rules_dir)  # so `extends "scotland.rules"` finds the bundled file
    f = rules_dir / "example.rules"
    f.write_text(ex.source(), encoding="utf-8")
    try:
        rules = load_rules(f)
        board_path = _board(ex, f)
        board = load_board(board_path) if board_path else None
    except RebirthError as e:
        return list(e.diagnostics)
    # the bundled base's own findings are its own (tests/conftest.py), not the example's
    return beyond_bundled_findings(check(rules, board, str(board_path or ""), strict=ex.strict))


def example_problem(ex: Example, tmp: Path) -> str | None:
    """Why the example is wrong (None: it is what its fence says)."""
    diags = diagnostics(ex, tmp)
    errors = [d for d in diags if d.severity != "warning"]
    warnings = [d for d in diags if d.severity == "warning"]
    said = "\n".join(d.render() for d in diags)
    where = f"docs/language.md:{ex.line}: a `{ex.lang}` example"
    if ex.lang == "rules" and diags:
        return f"{where} must check clean, but:\n{said}"
    if ex.lang == "rules-warns" and (errors or not warnings):
        return f"{where} must give a warning and no error, but: {said or 'it checks clean'}"
    if ex.lang == "rules-refused" and not errors:
        return f"{where} must be refused, but: {said or 'it checks clean'}"
    if ex.expect and ex.expect not in said:
        return f"{where} must say {ex.expect!r}, but:\n{said}"
    return None


def used(ex: Example) -> set[str]:
    """The entries an example shows: the grammar's forms in its parse tree, the functions it calls and the
    variables it names (empty when it does not parse: a refused example of a syntax error)."""
    from lark import Token, Tree
    from lark.exceptions import LarkError

    text = ex.text if ex.whole else "ruleset example\n" + ex.text
    try:
        tree = lark_parser().parse(text)
    except LarkError:
        return set()
    out: set[str] = set()
    for node in tree.iter_subtrees():
        out.add(f"form: {node.data}")
        kids = [k for k in node.children if k is not None]
        if node.data == "trigger":
            out.add(f"form: {kids[0].data}+{kids[1].data}")
        if node.data in ("without_trigger", "without_ability"):
            out.add("form: without")
        if node.data == "extends_clause":
            out.add("form: extends")
        if node.data == "call" and isinstance(kids[0], Token):
            out.add(f"function: {kids[0]}")
        if node.data == "name" and isinstance(kids[0], Token):  # a built-in of no argument is written bare
            bare_call = str(kids[0]) in SIGNATURES and all(p.endswith("*") for p in SIGNATURES[str(kids[0])].params)
            out.add(f"function: {kids[0]}" if bare_call else f"variable: {kids[0]}")
    assert isinstance(tree, Tree)
    return out


EXAMPLES = examples(TEXT)


# ----- tests -----------------------------------------------------------------------------------------
def test_every_entry_is_in_the_manual() -> None:
    """Each form, block, atom, function and variable has an entry, once; no entry names something gone."""
    found = markers(TEXT)
    assert missing_entries(TEXT) == set()
    assert set(found) - required_entries() == set(), "entries for what the language no longer has"
    assert sorted(m for m in found if found.count(m) > 1) == []


def test_a_missing_entry_is_found() -> None:
    """The coverage test can fail: an entry taken out of the manual, and a form planted in the grammar."""
    from lark import Lark

    assert "<!-- function: largest -->" in TEXT
    assert missing_entries(TEXT.replace("<!-- function: largest -->", "")) == {"function: largest"}
    grammar = (ROOT / "rebirth_dsl" / "lang" / "grammar.lark").read_text(encoding="utf-8")
    line = next(ln for ln in grammar.splitlines() if ln.strip().startswith('| "hand" INT'))
    planted = grammar.replace(line, line + '\n           | "bonus" INT -> bonus')
    assert missing_entries(TEXT, Lark(planted, parser="lalr", maybe_placeholders=True)) == {"form: bonus"}


def test_each_entry_shows_itself_in_an_example() -> None:
    """An entry's section (its heading up to the next) has an example that uses what the entry documents."""
    bare = []
    for line, section in sections(TEXT):
        shown: set[str] = set()
        for ex in examples(section):
            shown |= used(ex)
        bare += [f"docs/language.md:{line}: {m}" for m in markers(section) if m not in shown]
    assert bare == []


def _signature(fn: str) -> str:
    sig = SIGNATURES[fn]
    return f"`{fn}({', '.join(sig.params)}) → {sig.result}`"


def test_entries_say_where_type_and_rule() -> None:
    """A statement entry says where it stands and the rule it encodes; a function entry gives its
    signature exactly as lang/functions.SIGNATURES has it; a variable entry its type."""
    wrong = []
    for line, section in sections(TEXT):
        for m in markers(section):
            what, name = m.split(": ")
            if what == "form" and not ("**Where:**" in section and "**Rule:**" in section):
                wrong.append(f"{line}: {m}: no **Where:** or **Rule:** line")
            if what == "function" and f"**Type:** {_signature(name)}" not in section:
                wrong.append(f"{line}: {m}: the type line is not **Type:** {_signature(name)}")
            if what == "variable" and f"**Type:** `{name}: {VARIABLES[name][0]}`" not in section:
                wrong.append(f"{line}: {m}: the type line is not **Type:** `{name}: {VARIABLES[name][0]}`")
    assert wrong == []


def test_the_manual_has_examples_of_each_kind() -> None:
    """The examples are read (a fence typo would silently drop them): many clean ones, some refused ones,
    and the double-scoring warning."""
    kinds = [ex.lang for ex in EXAMPLES]
    assert kinds.count("rules") >= 60 and kinds.count("rules-refused") >= 10 and "rules-warns" in kinds
    assert sum(ex.whole for ex in EXAMPLES) >= 3


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"line{ex.line}" for ex in EXAMPLES])
def test_example(ex: Example, tmp_path: Path) -> None:
    """The checker agrees with the example's fence."""
    problem = example_problem(ex, tmp_path)
    assert problem is None, problem


def test_a_bad_example_is_caught(tmp_path: Path) -> None:
    """The example test can fail: a typo in a `rules` example, a `rules-refused` example the checker accepts,
    a refusal for another reason than the one it claims, a `rules-warns` example with no warning, and an
    unknown fence."""
    typo = examples("```rules\nplace food on fod, plain\n```\n")[0]
    assert "unknown hex kind `fod`" in (example_problem(typo, tmp_path) or "")
    fine = examples("```rules-refused\nplace food on food, plain\n```\n")[0]
    assert "must be refused" in (example_problem(fine, tmp_path) or "")
    other = examples('```rules-refused expect="a landmark"\nplace food on fod\n```\n')[0]
    assert "must say 'a landmark'" in (example_problem(other, tmp_path) or "")
    quiet = examples("```rules-warns\non place food: score 1 as bonus\n```\n")[0]
    assert "must give a warning" in (example_problem(quiet, tmp_path) or "")
    with pytest.raises(ValueError, match="unknown example kind"):
        examples("```rules-refuse\nhand 2\n```\n")
    with pytest.raises(ValueError, match="unknown example option"):
        examples("```rules bsae=ireland\nhand 2\n```\n")


def test_every_word_of_the_vocabulary_is_explained() -> None:
    """The fixed words: every tie step (lang/vocab.TIE_STEPS), every place, where the rest of a draw goes,
    what a doubling marker may go on, and every tile-count limit of lang/limits.py with its value."""
    from rebirth_dsl.check.checks import DOUBLE_TARGETS, DRAW_REST
    from rebirth_dsl.lang import limits
    from rebirth_dsl.lang.parser import MAX_EXTENDS_DEPTH
    from rebirth_dsl.lang.vocab import PLACES, TIE_STEPS

    words = [" ".join(w) for w in TIE_STEPS] + list(PLACES) + list(DRAW_REST) + list(DOUBLE_TARGETS)
    assert [w for w in words if f"`{w}`" not in TEXT] == []
    values = {k: v for k, v in vars(limits).items() if k.startswith("MAX_")} | {"MAX_EXTENDS_DEPTH": MAX_EXTENDS_DEPTH}
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(MAX_\w+)` \|[^\n]*$", TEXT, re.M)}
    assert set(rows) == set(values)
    for name, value in values.items():
        shown = f"{value // 1024} KB" if name == "MAX_RULES_BYTES" else f"{value:,}"
        assert f"| {shown} |" in rows[name], (name, value, rows[name])


def test_the_required_statements_are_listed(tmp_path: Path) -> None:
    """The statements check_required demands (asked of a ruleset that has none of them) are in the
    manual's list of required statements."""
    f = tmp_path / "bare.rules"
    f.write_text("ruleset bare\nplayers 2 to 2\nhex plain\nlandmark castle\ntiles { food x1 }\n"
                 "place food on plain\narea plain { }\nmajority castle { }\n")
    said = [d.message for d in check(load_rules(f)) if d.code == "required"]
    assert len(said) == 6
    part = TEXT.split("## Statements the engine requires", 1)[1].split("\n## ", 1)[0]
    demanded = [re.findall(r"`([^`]+)`", m)[0] for m in said]
    assert [d for d in demanded if f"`{d}`" not in part] == []


def test_the_rule_ids_are_those_of_rules_md() -> None:
    """Every S- and I- id the manual cites is a rule of shared/RULES.md (the repository's copy when there)."""
    copies = [ROOT / "tests" / "data" / "RULES.md", ROOT.parent / "shared" / "RULES.md"]
    src = next((p for p in copies if p.is_file()), None)
    assert src is not None, "tests/data/RULES.md is missing: python tools/sync_rules.py"  # never a skip
    ids = set(re.findall(r"^- ([SI]-[A-Z]+\d+)", src.read_text(encoding="utf-8"), re.M))
    cited = set(re.findall(r"\b[SI]-[A-Z]+\d+\b", TEXT))
    assert cited and cited - ids == set()


def test_every_check_is_in_the_table() -> None:
    """The table of checks names every check `rebirth check` runs, with the code its problems carry."""
    import inspect

    from rebirth_dsl.check.checks import BOARD_CHECKS, RULES_CHECKS, check_citations

    wrong = []
    for fn in (*RULES_CHECKS, check_citations, *BOARD_CHECKS):
        m = re.search(r'code="([\w-]+)"', inspect.getsource(fn))
        code = m.group(1) if m else fn.__name__.removeprefix("check_").replace("_", "-")
        if f"| `{fn.__name__}` | `{code}` |" not in TEXT:
            wrong.append(f"{fn.__name__} (code {code})")
    assert wrong == []


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_links_inside_the_manual_lead_somewhere() -> None:
    """Every `(#anchor)` link of the manual is the anchor of one of its headings."""
    outside = re.sub(r"^```.*?^```", "", TEXT, flags=re.M | re.S)
    anchors: set[str] = set()
    for m in re.finditer(r"^#{1,6} (.+)$", outside, re.M):
        a = _slug(m.group(1))
        n = 0
        while (a if not n else f"{a}-{n}") in anchors:
            n += 1
        anchors.add(a if not n else f"{a}-{n}")
    links = set(re.findall(r"\]\(#([^)]+)\)", outside))
    assert links and links - anchors == set()


def test_the_rule_index_lists_every_cited_rule() -> None:
    """Every S- and I- id a bundled ruleset cites has a row in the manual's rule index."""
    from rebirth_dsl.lang.ids import comment_ids

    index = TEXT.split("### Rule index", 1)[1]
    rows = {i for m in re.finditer(r"^\| ([SI]-[A-Z]+\d+(?:, [SI]-[A-Z]+\d+)*) \|", index, re.M)
            for i in m.group(1).split(", ")}
    cited = {i for f in ("scotland", "ireland") for ids in comment_ids((RULES / f"{f}.rules").read_text()).values()
             for i in ids if i[0] in "SI"}
    assert cited - rows == set()

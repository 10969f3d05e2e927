"""compile.emit.Emitter: the one emitter of generated code (indentation, names bound once, declared locals)."""

from __future__ import annotations

import pytest

from rebirth_dsl.compile.emit import Emitter, Locals, UndeclaredLocal, assigned
from rebirth_dsl.rules import touch, turn


def test_blocks_indent_and_empty_lines_stay_empty() -> None:
    e = Emitter()
    with e.block("def f(x):"):
        with e.block("if x:"):
            e.line("y = 1")
            e.line()
        with e.block("else:"):
            e.extend(["for i in x:", "    y = i"])
        with e.block():  # only deeper, under a header emitted by hand
            e.line("z = 2")
        e.line("return y")
    assert e.lines == ["def f(x):", "    if x:", "        y = 1", "", "    else:", "        for i in x:",
                       "            y = i", "        z = 2", "    return y"]


def test_an_undeclared_local_is_refused() -> None:
    e = Emitter()
    e.declare("g", "p")
    assert e.local("p") == "p"
    with pytest.raises(UndeclaredLocal, match="groot"):
        e.local("groot")
    with pytest.raises(UndeclaredLocal, match="touched_by"):
        touch.python_mark("adj", e.locals)  # a rule template asks for the locals it reads
    with pytest.raises(UndeclaredLocal, match="hp"):
        turn.python_end_of_turn(False, Locals().declare("g", "p"))


def test_a_template_sees_the_locals_declared_before_it() -> None:
    loc = Locals().declare(*assigned(["p = g.turn", "nexts, nxt = seats"]), "touched_by")
    assert all(n in loc for n in ("p", "nexts", "nxt", "touched_by"))
    assert touch.python_mark("adj", loc) == "touched_by[p].update(adj)"
    assert "g" not in loc


def test_names_bound_once_constants_by_literal_objects_by_reference() -> None:
    e = Emitter({})
    marker = object()
    assert e.const("T", (1, (2, 3))) == "T"
    assert e.ref("OBJ", marker) == "OBJ"
    assert e.consts == ["T = (1, (2, 3, ), )"]
    assert e.namespace["OBJ"] is marker
    with pytest.raises(TypeError):
        e.const("BAD", marker)  # never an object as text
    with e.block("def f(*, T=T):"):
        e.line("return T[0]  # OBJ only in a comment is not read")
    assert e.names_read(0, e.bound()) == ["T"]


def test_a_child_shares_names_and_locals_not_lines() -> None:
    e = Emitter({})
    e.declare("h")
    with e.block("def f(h):"):
        c = e.child()
        c.line(f"return {c.local('h')} + {c.const('K', 1)}")
        e.extend(c.lines)
    assert e.lines == ["def f(h):", "    return h + K"]
    assert e.consts == ["K = 1"]


def test_a_c_block_closes_and_tables_are_checked_ints() -> None:
    e = Emitter()
    with e.block("static void f(S *s, int h) {", "}"):
        with e.block("if (h >= 0) {", "}"):
            e.line(f"s->x = {e.c_table('u8', 'OK', 'NH', [1, 0, True])}[h];")
    assert e.lines == ["static void f(S *s, int h) {", "    if (h >= 0) {", "        s->x = OK[h];", "    }", "}"]
    assert e.consts == ["static const u8 OK[NH] = {1, 0, 1};"]
    with pytest.raises(TypeError):
        e.c_table("u8", "BAD", "NH", ["1"])  # type: ignore[list-item]


def test_public_source_refuses_a_loop_that_does_not_declare_its_locals() -> None:
    """public_source (accel/public.py) reads the playout loop's locals: without them declared it refuses
    to write, and with them it writes the inline check."""
    from rebirth_dsl.accel.public import PUBLIC_LOCALS, public_source
    from rebirth_dsl.records.record import load_ruleset
    from rebirth_dsl.records.resources import rules_and_board
    from rebirth_dsl.runtime.game import static

    rs = load_ruleset(*rules_and_board("ireland", None))[0]
    kid = 0
    hexes = tuple(next(hs for hs in static(rs).free.values() if hs))
    e = Emitter({})
    with pytest.raises(UndeclaredLocal):
        public_source(rs, "RULE", kid, hexes, e.ref, Locals().declare("g", "p", "v", "h"))
    loop = Locals().declare("g", "p", "v", "h", "n", "groot", "gsize", "lm_owner", "touched_by",
                            *assigned(PUBLIC_LOCALS))
    lines = public_source(rs, "RULE", kid, hexes, e.ref, loop)
    # the check runs only where the game keeps its face-up state (ps), and first records the tile's holder
    assert lines is not None and lines[0].startswith("if ps") and lines[1].strip() == "so[h] = p"


def test_run_source_names_the_code_as_compile_does() -> None:
    """run_source runs generated text as exec(compile(text, name, "exec")) does, without compile(): the
    functions it defines, and every function, lambda and comprehension inside them, carry the name, and a
    failure inside them is reported at that name and line."""
    from types import CodeType

    from rebirth_dsl.compile.emit import run_source

    source = "\n".join(["K = 3", "def f(xs):", "    def inner(x):", "        return (lambda y: y * K)(x)",
                        "    return [inner(x) for x in xs]", "def fail():", "    return 1 // 0", ""])
    env: dict[str, object] = {"__builtins__": {}}
    run_source(source, "<generated test>", env)
    reference: dict[str, object] = {"__builtins__": {}}
    exec(compile(source, "<generated test>", "exec"), reference)  # noqa: S102 - the text above

    def codes(code: CodeType) -> list[CodeType]:
        return [code, *(c for k in code.co_consts if isinstance(k, CodeType) for c in codes(k))]

    for name in ("f", "fail"):
        ours, theirs = codes(env[name].__code__), codes(reference[name].__code__)  # type: ignore[attr-defined]
        assert [c.co_filename for c in ours] == ["<generated test>"] * len(ours) and len(ours) == len(theirs)
        assert [c.co_code for c in ours] == [c.co_code for c in theirs]
    assert env["f"]([1, 2]) == [3, 6]  # type: ignore[operator]
    with pytest.raises(ZeroDivisionError) as failed:
        env["fail"]()  # type: ignore[operator]
    last = failed.tb
    while last.tb_next is not None:
        last = last.tb_next
    assert (last.tb_frame.f_code.co_filename, last.tb_lineno) == ("<generated test>", 7)

"""One module per rule kind: everything about a rule in one place.

Each module holds the rule's pure kernel (the decision over plain values, for example who holds a
landmark after a challenge), the reaction that applies it to a game and says what happened, its
English, and the Python and C templates the generated engines are emitted from, side by side. The
reference engine (runtime/), the generated Python engine, the immediate-points reader and the native
engine all call or are emitted from these; none decides a rule on its own.

This layer sits above compile/ (it reads compiled rules) and below runtime/ (which calls it), so a
reaction sees the game through `rules.view.GameView`, the fields and methods it needs, not the class.
"""

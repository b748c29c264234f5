"""Games written in Python, explored by the engine."""

import numpy as np
import pytest

import retrograde
from retrograde import Outcome, Value


class Pebbles:
    def __init__(self, count=10, take=(1, 2)):
        self.count, self.take = count, take

    def start(self):
        return self.count

    def moves(self, n):
        return {f"take {t}": n - t for t in self.take if t <= n}

    def primitive(self, n):
        return None  # no moves: a loss for the player to move


class TicTacToe:
    """Tic-tac-toe with the built-in game's notation (a1 bottom left)."""

    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def start(self):
        return "." * 9

    def turn(self, b):
        return "x" if b.count("x") == b.count("o") else "o"

    def moves(self, b):
        out = {}
        for i, c in enumerate(b):
            if c == ".":
                row, col = divmod(i, 3)
                out["abc"[col] + str(3 - row)] = b[:i] + self.turn(b) + b[i + 1 :]
        return out

    def primitive(self, b):
        for x, y, z in self.LINES:
            if b[x] != "." and b[x] == b[y] == b[z]:
                return "loss"  # the player to move faces a line of the opponent
        return "tie" if "." not in b else None


def test_pebbles_written_in_python():
    g = retrograde.solve_game(Pebbles())
    assert g.positions == 11
    assert g.start_value == Value.win(7)
    assert g.moves() == [("take 1", Value.win(7)), ("take 2", Value.loss(6))]
    assert g.value(["take 1"]) == Value.loss(6)
    assert g.value("take 2,take 2,take 2,take 2,take 2") == Value.loss(0)
    assert g.moves(["take 2"] * 5) == []
    with pytest.raises(ValueError, match="take 3"):
        g.value(["take 3"])
    builtin = retrograde.games.pebbles(count=10)
    assert builtin.start_value == g.start_value and builtin.positions == g.positions


def test_tictactoe_written_in_python_agrees_with_the_built_in_game():
    mine = retrograde.solve_game(TicTacToe())
    ours = retrograde.games.tictactoe()
    assert mine.positions == ours.positions == 5478
    assert mine.start_value == ours.start_value == Value.tie(9)
    for line in [[], ["b2"], ["b2", "a1"], ["a1", "b2", "c3"], ["a1", "a2", "b1", "b2"]]:
        assert mine.value(line) == ours.value(line)
        assert dict(mine.moves(line)) == dict(ours.moves(line))
        assert [v for _, v in mine.moves(line)] == [v for _, v in ours.moves(line)]


def test_a_list_of_positions_names_moves_by_str():
    class Count:
        def start(self):
            return 0

        def moves(self, p):
            return [p + 1, p + 2] if p < 5 else []

        def primitive(self, p):
            return "win" if p == 6 else None

    g = retrograde.solve_game(Count())
    s = retrograde.solve([(p, p + d) for p in range(5) for d in (1, 2)], terminal={6: "win"})
    assert g.value([]) == s.value(0)
    assert dict(g.moves()) == {"1": s.value(1).through(), "2": s.value(2).through()}


def test_keeps_turn_is_a_go_again_move():
    class Again:
        def start(self):
            return 0

        def moves(self, p):
            return [p + 1] if p < 4 else []

        def primitive(self, p):
            return None

        def keeps_turn(self, p, q):
            return p == 1

    g = retrograde.solve_game(Again())
    s = retrograde.solve([(p, p + 1) for p in range(4)], go_again=[p == 1 for p in range(4)])
    for v in range(5):
        assert g.solution.value(v) == s.value(v)
    assert g.start_value == s.value(0) == Value.win(4)


def test_loops_are_draws():
    class Loop:
        def start(self):
            return "a"

        def moves(self, p):
            return {"a": ["b"], "b": ["a", "c"], "c": []}[p]

        def primitive(self, p):
            return Outcome.TIE if p == "c" else None

    g = retrograde.solve_game(Loop())
    assert g.value_of("c") == Value.tie(0)
    assert g.value_of("b") == Value.tie(1)
    assert g.start_value == Value.tie(2)


def test_exceptions_from_the_game_reach_python_unchanged():
    class Boom(Pebbles):
        def moves(self, n):
            if n == 4:
                raise KeyError("no moves at 4")
            return super().moves(n)

    with pytest.raises(KeyError, match="no moves at 4"):
        retrograde.solve_game(Boom())

    class BadPrimitive(Pebbles):
        def primitive(self, n):
            return "maybe"

    with pytest.raises(ValueError, match="maybe"):
        retrograde.solve_game(BadPrimitive())

    class Unhashable(Pebbles):
        def start(self):
            return [10]

    with pytest.raises(TypeError):
        retrograde.solve_game(Unhashable())

    class NotIterable(Pebbles):
        def moves(self, n):
            return 3

    with pytest.raises(TypeError, match="iterable"):
        retrograde.solve_game(NotIterable())

    class Interrupted(Pebbles):
        def moves(self, n):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        retrograde.solve_game(Interrupted())

    with pytest.raises(MemoryError, match="max_positions"):
        retrograde.solve_game(Pebbles(1000), max_positions=100)
    # The interpreter is still fine.
    assert retrograde.solve_game(Pebbles()).start_value == Value.win(7)


def test_solution_arrays_of_a_python_game():
    g = retrograde.solve_game(Pebbles(30, (1, 3, 4)))
    sol = g.solution
    assert sol.outcome.dtype == np.uint8 and len(sol) == g.positions
    losses = sorted(g.positions_list[i] for i in np.flatnonzero(sol.outcome == Outcome.LOSS))
    assert losses == [n for n in range(31) if n % 7 in (0, 2)]

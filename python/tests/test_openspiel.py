"""OpenSpiel games: our values against OpenSpiel's own value_iteration."""

import pytest

import retrograde

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install open-spiel)")


def value_iteration(game):
    try:
        from open_spiel.python.algorithms import value_iteration as vi
    except ImportError as e:  # it needs cvxpy
        pytest.skip(f"OpenSpiel's value_iteration cannot be imported ({e}): pip install cvxpy")
    return vi.value_iteration(game, depth_limit=-1, threshold=1e-6)


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four(rows=3,columns=4)"])
def test_values_equal_openspiels_value_iteration(name):
    game = pyspiel.load_game(name)
    ours = retrograde.openspiel.solve(game)
    theirs = value_iteration(game)
    mine = ours.state_values()
    assert len(mine) == len(theirs) == ours.positions
    assert {k: round(v) for k, v in theirs.items()} == {k: int(v) for k, v in mine.items()}
    start = str(game.new_initial_state())
    assert ours.returns() == [round(theirs[start]), -round(theirs[start]) + 0]


def test_tictactoe_matches_the_built_in_game():
    g = retrograde.openspiel.solve("tic_tac_toe")
    assert g.positions == 5478
    assert str(g.start_value) == "tie in 9"
    assert g.returns() == [0.0, 0.0]
    moves = g.moves()
    assert len(moves) == 9 and all(str(v) == "tie in 9" for _, v in moves)
    assert moves[0][0] == "x(0,0)"
    # x in a corner, o on an edge next to it: x wins.
    assert g.value(["x(0,0)", "o(0,1)"]).outcome == retrograde.Outcome.WIN
    assert g.returns(["x(0,0)", "o(0,1)"]) == [1.0, -1.0]
    with pytest.raises(ValueError, match="x\\(9,9\\)"):
        g.value(["x(9,9)"])


def test_games_outside_the_class_are_refused():
    for name, why in [
        ("kuhn_poker", "deterministic"),
        ("matrix_rps", "sequential"),
        ("tiny_hanabi", "zero-sum"),
    ]:
        with pytest.raises(ValueError, match=why):
            retrograde.openspiel.solve(pyspiel.load_game(name))

import enum

import pytest

import retrograde
from retrograde import Outcome, Value


def test_outcome_is_an_int_enum_with_the_solvers_codes():
    assert issubclass(Outcome, enum.IntEnum)
    assert [o.name for o in Outcome] == ["WIN", "LOSS", "TIE", "DRAW"]
    assert [int(o) for o in Outcome] == [0, 1, 2, 3]


def test_values_print_like_the_cli_and_parse_back():
    assert str(Value.win(7)) == "win in 7"
    assert str(Value(Outcome.TIE, 0)) == "tie in 0"
    assert str(Value.draw()) == "draw"
    assert Value.draw().remoteness is None
    assert isinstance(Value.loss(3).remoteness, int)
    for text in ["win in 3", "loss in 0", "tie in 12", "draw"]:
        assert str(Value.parse(text)) == text


def test_values_order_by_the_movers_preference():
    order = [Value.win(1), Value.win(5), Value.tie(0), Value.tie(4), Value.draw(), Value.loss(7), Value.loss(0)]
    assert sorted(order, reverse=True) == order
    assert Value.loss(2).through() == Value.win(3)
    assert Value.loss(2).through(True) == Value.loss(3)
    assert Value.draw().through() == Value.draw()


def test_bad_values_are_refused():
    with pytest.raises(ValueError):
        Value(Outcome.WIN)
    with pytest.raises(ValueError):
        Value("victory", 1)
    with pytest.raises(AttributeError):
        Value.win(1).remoteness = 2


def test_the_docstrings_reach_help():
    assert "Solves a game graph" in retrograde.solve.__doc__
    assert "player to move" in retrograde.Value.__doc__
    assert retrograde.games.connect4.__doc__
    assert retrograde.openspiel.solve.__doc__


def test_help_shows_the_docstrings():
    import pydoc

    text = pydoc.render_doc(retrograde.solve, renderer=pydoc.plaintext)
    assert "n_vertices" in text and "GIL is released" in text
    text = pydoc.render_doc(retrograde.Solution, renderer=pydoc.plaintext)
    assert "best_move" in text


def test_the_stubs_name_every_public_function_and_class():
    import ast
    import pathlib

    pkg = pathlib.Path(retrograde.__file__).parent
    for module, stub in [(retrograde, "__init__.pyi"), (retrograde.games, "games.pyi"), (retrograde.openspiel, "openspiel.pyi")]:
        tree = ast.parse((pkg / stub).read_text())
        declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        declared |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        if "__getattr__" in declared:
            # The games' functions are made from the registry at import; the stub's
            # module-level __getattr__ types them.
            declared |= {n.replace("-", "_") for n in retrograde.games.names()}
        missing = [n for n in module.__all__ if n not in declared]
        assert not missing, f"{stub} lacks {missing}"
    assert (pkg / "py.typed").exists()

"""Scores (issue 24) in Python: `Value.score`, `Solution.score` for scored graph files, and
the scored games and databases, against the command line."""

import json
import pathlib

import numpy as np
import pytest

import retrograde
from retrograde import Outcome, Value

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SCORED = EXAMPLES / "scored.rg"


def test_values_with_scores():
    v = Value.scored(3, 11)
    assert (v.outcome, v.remoteness, v.score) == (Outcome.WIN, 11, 3)
    assert str(v) == "win by 3 in 11"
    assert Value.parse(str(v)) == v
    assert repr(v) == "Value.scored(3, 11)"
    for text in ["loss by 2 in 4", "tie in 2", "win by 9223372036854775807 in 1", "loss by 3, never ends"]:
        assert str(Value.parse(text)) == text
    assert Value.scored(0, 4) .outcome is Outcome.TIE and Value.scored(0, None).outcome is Outcome.DRAW
    # A child worth -3 in 10 to its mover is worth 3 in 11 to us if the move passes the turn.
    assert Value.scored(-3, 10).through() == v
    assert Value.scored(3, 10).through(keeps_turn=True) == v
    # The mover's order: the higher score, then faster when positive, slower when negative.
    order = [
        Value.scored(2, 9),
        Value.scored(1, 1),
        Value.scored(1, 5),
        Value.scored(0, 3),
        Value.scored(0, None),
        Value.scored(-1, None),
        Value.scored(-1, 9),
        Value.scored(-1, 1),
        Value.scored(-4, 2),
    ]
    assert sorted(order, reverse=True) == order
    # Unscored values have no score, and count as +1, -1 and 0 when compared with scores.
    assert Value.win(3).score is None and str(Value.win(3)) == "win in 3"
    assert Value.win(3) != Value.scored(1, 3)
    assert Value.win(1) > Value.scored(1, 2) and Value.scored(2, 9) > Value.win(1)
    with pytest.raises(ValueError):
        Value(Outcome.WIN, 3, score=-1)
    with pytest.raises(ValueError):
        Value(Outcome.TIE, None, score=0)


def test_a_scored_graph_file_has_scores_as_the_cli_says(cli):
    sol = retrograde.solve(SCORED)
    assert isinstance(sol.score, np.ndarray) and sol.score.dtype == np.int64
    rows = [line.split(",") for line in cli("solve", SCORED, "-o", "csv").splitlines()[1:]]
    assert len(rows) == len(sol)
    text = cli("solve", SCORED).splitlines()
    for v, outcome, remoteness, best, score in rows:
        i = int(v)
        # The CSV leaves a draw's score empty; the array has 0 there.
        assert sol.score[i] == (int(score) if score else 0), v
        assert sol.value(i).score == sol.score[i]
        assert sol.value(i).outcome.name.lower() == outcome
        assert text[i].startswith(f"{v}: {sol.value(i)}"), (text[i], str(sol.value(i)))


def test_unscored_graphs_have_no_scores():
    sol = retrograde.solve(EXAMPLES / "loopy.rg")
    assert sol.score is None
    assert all(sol.value(v).score is None for v in range(len(sol)))
    assert retrograde.solve([(0, 1)]).score is None


def test_a_scored_graph_database_answers_with_scores(cli, tmp_path):
    db = tmp_path / "db"
    cli("solve", SCORED, "--db", db, "-q")
    g = retrograde.open(db)
    sol = retrograde.solve(SCORED)
    for v in range(len(sol)):
        want = json.loads(cli("query", db, "--position", v, "--output", "json"))
        assert g.value(position=str(v)) == sol.value(v)
        assert g.value(position=str(v)).score == want["score"]
        assert [(m, x.score) for m, x in g.moves(position=str(v))] == [
            (m["move"], m["score"]) for m in want["moves"]
        ]
        assert g.query(position=str(v)) == want


def test_scored_tier_games_have_scores(cli, tmp_path):
    for name, flags, params in [
        ("dots-and-boxes", ["--rows", "1", "--cols", "2"], {"rows": 1, "cols": 2}),
        ("kalah", ["--pits", "2", "--seeds", "2"], {"pits": 2, "seeds": 2}),
    ]:
        want = json.loads(cli("game", name, *flags, "--output", "json"))
        g = retrograde.games.game(name, **params)
        assert g.start_value.score == want["start"]["score"], name
        assert g.start_value.outcome.name.lower() == want["start"]["outcome"], name
        answer = g.query([])
        assert g.value([]).score == answer["score"]
        assert [x.score for _, x in g.moves([])] == [m["score"] for m in answer["moves"]]

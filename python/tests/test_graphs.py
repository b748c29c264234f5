"""retrograde.solve and retrograde.grundy on graphs: arrays, lists, networkx, files; against
the command line on random graphs; errors."""

import csv

import numpy as np
import pytest

import retrograde
from retrograde import Outcome, Value

PEBBLES = [(v, v - t) for v in range(1, 11) for t in (1, 2) if t <= v]
CODE = {"win": 0, "loss": 1, "tie": 2, "draw": 3}


def parse_csv(text):
    lines = text.strip().splitlines()
    assert lines[0].startswith("vertex,outcome,remoteness,best_move")
    o, r, b = [], [], []
    for line in lines[1:]:
        f = line.split(",")
        o.append(CODE[f[1]])
        r.append(int(f[2]) if f[2] else -1)
        b.append(int(f[3]) if f[3] else -1)
    return np.array(o), np.array(r), np.array(b)


def random_edges(rng, n, m):
    return rng.integers(0, n, size=(m, 2))


def test_the_pebble_game():
    s = retrograde.solve(PEBBLES)
    assert s.value(10) == Value.win(7)
    assert str(s.value(9)) == "loss in 6"
    assert s.best_move[10] == 9 and s.best_move[0] == -1
    assert [v for v in range(11) if s.outcome[v] == Outcome.LOSS] == [0, 3, 6, 9]
    assert s.line(10) == [10, 9, 7, 6, 4, 3, 1, 0]
    assert s.summary() == {
        "vertices": 11, "edges": 19, "win": 7, "loss": 4, "tie": 0, "draw": 0,
        "max_remoteness": 7, "longest_win": 7, "longest_loss": 6,
    }


def test_arrays_have_the_documented_types():
    s = retrograde.solve(np.array([[0, 1], [1, 2], [3, 4], [4, 3]]))
    assert s.outcome.dtype == np.uint8
    assert s.remoteness.dtype == np.int64 and s.best_move.dtype == np.int64
    assert list(s.outcome) == [Outcome.LOSS, Outcome.WIN, Outcome.LOSS, Outcome.DRAW, Outcome.DRAW]
    assert s.remoteness[3] == -1 and s.value(3) == Value.draw()
    assert s.best_move[3] == 4 and s.best_move[2] == -1
    assert s.line(3) == [3, 4]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64])
def test_any_integer_dtype_gives_the_same_solution(dtype):
    rng = np.random.default_rng(1)
    e = random_edges(rng, 100, 300)
    want = retrograde.solve(e)
    got = retrograde.solve(e.astype(dtype))
    assert np.array_equal(want.outcome, got.outcome)
    assert np.array_equal(want.remoteness, got.remoteness)
    assert np.array_equal(want.best_move, got.best_move)
    # A Fortran-ordered or strided view is taken as well.
    got = retrograde.solve(np.asfortranarray(e)[:, :])
    assert np.array_equal(want.remoteness, got.remoteness)


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_agree_with_the_cli(cli, tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    e = random_edges(rng, n, int(rng.integers(0, 4 * n)))
    f = tmp_path / "g.txt"
    f.write_text("".join(f"{u} {v}\n" for u, v in e))
    no_move = ["loss", "win", "tie"][seed % 3]
    want = parse_csv(cli("solve", f, "--output", "csv", "--vertices", n, "--no-move", no_move))
    for s in [
        retrograde.solve(e, n, no_move=no_move),
        retrograde.solve(str(f), n, no_move=no_move),
        retrograde.solve(e, n, no_move=no_move, threads=1),
    ]:
        assert len(s) == n
        assert np.array_equal(s.outcome, want[0])
        assert np.array_equal(s.remoteness, want[1])
        assert np.array_equal(s.best_move, want[2])


def test_terminal_owners_and_go_again_agree_with_an_rg_file(cli, tmp_path):
    rng = np.random.default_rng(7)
    n, m = 60, 150
    e = random_edges(rng, n, m)
    again = rng.random(m) < 0.3
    terminal = {int(v): ["win", "loss", "tie"][i % 3] for i, v in enumerate(rng.choice(n, 8, replace=False))}
    rg = [f"vertices {n}"]
    rg += [f"{u} {v}{' again' if a else ''}" for (u, v), a in zip(e, again)]
    rg += [f"terminal {v} {o}" for v, o in terminal.items()]
    f = tmp_path / "g.rg"
    f.write_text("\n".join(rg) + "\n")
    want = parse_csv(cli("solve", f, "--output", "csv"))
    s = retrograde.solve(e, n, terminal=terminal, go_again=again)
    assert np.array_equal(s.outcome, want[0]) and np.array_equal(s.remoteness, want[1])
    assert np.array_equal(s.best_move, want[2])
    assert np.array_equal(retrograde.solve(f).remoteness, want[1])

    owners = rng.integers(0, 2, n)
    rg = [f"vertices {n}"] + [f"{u} {v}" for u, v in e] + [f"owner {v} {o}" for v, o in enumerate(owners)]
    f.write_text("\n".join(rg) + "\n")
    want = parse_csv(cli("solve", f, "--output", "csv"))
    s = retrograde.solve(e, n, owners=owners)
    assert np.array_equal(s.outcome, want[0]) and np.array_equal(s.remoteness, want[1])


def test_every_file_format_the_cli_reads(tmp_path):
    files = {
        "g.txt": "% a comment\n0 1\n1 2\n",
        "g.rg": "vertices 3\n0 1\nname 0 start\n1 2\nstart 0\n",
        "g.json": '{"edges": [[0,1],[1,2]], "start": 0}',
        "g.grf": "3\n0 u 1 1\n1 u 1 2\n2 l 0\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        s = retrograde.solve(tmp_path / name)
        assert [str(s.value(v)) for v in range(3)] == ["loss in 2", "win in 1", "loss in 0"], name
    s = retrograde.solve(tmp_path / "g.rg")
    assert s.start == 0 and s.names[0] == "start"
    # A vertex by the name the file gives it, as `--line start` reads it; digits are an id.
    assert s.value("start") == s.value(0) == s.value("0") == Value.loss(2)
    assert s.line("start") == [0, 1, 2]
    with pytest.raises(KeyError, match="no vertex is named 'nowhere'"):
        s.value("nowhere")
    with pytest.raises(KeyError):
        s.value("")
    with pytest.raises(TypeError, match="the file names no vertex"):
        retrograde.solve(tmp_path / "g.txt").value("start")


def test_networkx_digraphs_use_their_nodes():
    nx = pytest.importorskip("networkx", reason="networkx is not installed (pip install networkx)")
    g = nx.DiGraph()
    g.add_edges_from([("a", "b"), ("b", "c"), ("x", "y"), ("y", "x")])
    s = retrograde.solve(g)
    assert s.value("a") == Value.loss(2)
    assert s.value("b") == Value.win(1)
    assert s.value("x") == Value.draw()
    assert s.line("a") == ["a", "b", "c"]
    assert s.nodes == list(g.nodes)
    rng = np.random.default_rng(3)
    e = random_edges(rng, 50, 120)
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(50))
    g.add_edges_from(map(tuple, e))
    assert np.array_equal(retrograde.solve(g).remoteness, retrograde.solve(e, 50).remoteness)
    with pytest.raises(ValueError, match="directed"):
        retrograde.solve(nx.Graph([(0, 1)]))


def test_bad_input_raises_python_exceptions(tmp_path):
    with pytest.raises(ValueError, match="shape"):
        retrograde.solve(np.zeros((3, 3), dtype=int))
    with pytest.raises(ValueError, match="negative"):
        retrograde.solve([(0, 1), (1, -2)])
    with pytest.raises(ValueError, match="too large"):
        retrograde.solve(np.array([[0, 2**32]], dtype=np.int64))
    with pytest.raises(ValueError, match="too large"):
        retrograde.solve(np.array([[0, 2**32 - 1]], dtype=np.uint32))
    with pytest.raises(TypeError, match="integers"):
        retrograde.solve(np.array([[0.0, 1.0]]))
    with pytest.raises(TypeError):
        retrograde.solve([(0, "a")])
    with pytest.raises(ValueError, match="out of range"):
        retrograde.solve([(0, 5)], n_vertices=3)
    # The words the command line takes (`--no-move loss|win|tie`), and no other.
    for word in ["maybe", "lose", "Loss", " loss"]:
        with pytest.raises(ValueError, match="no_move"):
            retrograde.solve([(0, 1)], no_move=word)
    with pytest.raises(ValueError, match="per edge"):
        retrograde.solve([(0, 1)], go_again=[True, False])
    with pytest.raises(ValueError, match="per vertex"):
        retrograde.solve([(0, 1)], owners=[0])
    with pytest.raises(ValueError, match="owners"):
        retrograde.solve([(0, 1)], owners=[0, 2])
    with pytest.raises(ValueError, match="threads"):
        retrograde.solve([(0, 1)], threads=0)
    with pytest.raises(IndexError):
        retrograde.solve([(0, 1)]).value(2)
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 2\nx y\n")
    with pytest.raises(ValueError, match=r"bad.txt:3: "):
        retrograde.solve(bad)
    with pytest.raises(FileNotFoundError):
        retrograde.solve(tmp_path / "missing.txt")
    with pytest.raises(OSError):
        retrograde.solve(tmp_path)


def test_empty_graphs():
    s = retrograde.solve(np.zeros((0, 2), dtype=np.int64))
    assert len(s) == 0 and s.summary()["max_remoteness"] is None
    s = retrograde.solve([], n_vertices=3)
    assert [str(s.value(v)) for v in range(3)] == ["loss in 0"] * 3


def test_grundy_values_agree_with_the_cli(cli, tmp_path):
    rng = np.random.default_rng(11)
    for _ in range(4):
        n = 80
        e = random_edges(rng, n, 160)
        f = tmp_path / "g.txt"
        f.write_text("".join(f"{u} {v}\n" for u, v in e))
        rows = cli("grundy", f, "--output", "csv", "--vertices", n).strip().splitlines()
        assert rows[0] == "vertex,grundy"
        want = [row[1] for row in csv.reader(rows[1:])]  # inf{0,1} is quoted
        g = retrograde.grundy(e, n)
        assert [str(g.value(v)) for v in range(n)] == want
        assert [str(retrograde.grundy(f, n).value(v)) for v in range(n)] == want
    g = retrograde.grundy(PEBBLES)
    assert list(g.values) == [v % 3 for v in range(11)]
    assert g.kset(4) is None
    g = retrograde.grundy([(0, 1), (1, 0), (1, 2), (3, 3), (3, 2)])
    assert g.value(3) == "inf{0}" and g.kset(3) == (0,) and g.values[3] == -1
    assert g.outcome[3] == Outcome.WIN
    with pytest.raises(ValueError, match="normal play"):
        retrograde.grundy([(0, 1)], terminal={1: "win"})

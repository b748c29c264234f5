"""retrograde.parity, ParityGame, read_pg, verify_parity: games from arrays and files (plain,
gzip, bzip2), every algorithm, Oink's solutions of SYNTCOMP games, the command line, errors."""

import numpy as np
import pytest

import retrograde
from conftest import ROOT

DATA = ROOT / "testdata" / "parity"
SMALL = ROOT / "crates" / "parity" / "tests" / "data" / "small.pg"
GAMES = ["starve", "ltl2dba_E", "robot_grid", "ltl2dpa22", "full_arbiter_unreal1", "KitchenTimerV4"]


def oink_winners(name):
    lines = (DATA / f"{name}.oink.sol").read_text().splitlines()[1:]
    w = {}
    for line in lines:
        v, x = line.rstrip(";").split()[:2]
        w[int(v)] = int(x)
    return [w[v] for v in range(len(w))]


def test_a_game_from_arrays():
    g = retrograde.ParityGame(priorities=[3, 1, 4], owners=[0, 1, 0], edges=[(0, 1), (1, 0), (1, 2), (2, 2)])
    assert len(g) == 3 and g.edge_count == 4
    assert g.priorities.dtype == np.uint32 and g.owners.dtype == np.uint8
    assert g.edges.tolist() == [[0, 1], [1, 0], [1, 2], [2, 2]]
    s = retrograde.parity(g)
    assert s.winner.dtype == np.uint8 and s.strategy.dtype == np.int64
    assert s.winner.tolist() == [1, 1, 0]
    assert s.strategy.tolist() == [-1, 0, 2]
    assert s.won_by("odd").tolist() == [0, 1] and s.won_by(0).tolist() == [2]
    assert s.verify() is None
    assert s.to_pgsolver() == "paritysol 2;\n0 1;\n1 1 0;\n2 0 2;\n"
    assert s.phases["algorithm"] == "zielonka"
    assert repr(s) == "<retrograde.ParitySolution: Even wins 1, Odd wins 2>"


@pytest.mark.parametrize("name", GAMES)
def test_syntcomp_games_match_oink(name):
    g = retrograde.read_pg(DATA / f"{name}.pg")
    want = oink_winners(name)
    for algorithm in ("zielonka", "pp", "qpz"):
        for scc in (False, True):
            s = retrograde.parity(g, algorithm=algorithm, scc=scc)
            assert s.winner.tolist() == want, (algorithm, scc)
            assert s.verify() is None
    # Oink's own solution file passes the verifier.
    assert retrograde.verify_parity(g, DATA / f"{name}.oink.sol") is None


def test_compressed_files_and_paths():
    a = retrograde.parity(str(SMALL) + ".gz")
    b = retrograde.parity(retrograde.read_pg(str(SMALL) + ".bz2"))
    assert a.winner.tolist() == b.winner.tolist() == [0, 0]


def test_write_and_read_back(tmp_path):
    g = retrograde.ParityGame([2, 5, 0], [1, 0, 1], [(0, 1), (1, 2), (2, 0), (2, 2)], names=["a", "", "c c"], start=2)
    text = g.to_pg()
    assert text == 'parity 2;\nstart 2;\n0 2 1 1 "a";\n1 5 0 2;\n2 0 1 0,2 "c c";\n'
    g.write_pg(tmp_path / "g.pg")
    h = retrograde.read_pg(tmp_path / "g.pg")
    assert h.names == ["a", "", "c c"] and h.start == 2
    assert h.priorities.tolist() == [2, 5, 0] and h.owners.tolist() == [1, 0, 1]
    assert h.edges.tolist() == g.edges.tolist()
    assert retrograde.parse_pg(text).edges.tolist() == g.edges.tolist()


def test_algorithms_agree_on_random_games():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 200))
        m = int(rng.integers(n, 4 * n))
        edges = np.concatenate([np.stack([np.arange(n), rng.integers(0, n, n)], 1), rng.integers(0, n, (m, 2))])
        g = retrograde.ParityGame(rng.integers(0, 9, n), rng.integers(0, 2, n), edges)
        sols = [retrograde.parity(g, algorithm=a) for a in ("zielonka", "pp", "qpz")]
        for s in sols:
            assert s.winner.tolist() == sols[0].winner.tolist()
            assert s.verify() is None


def test_verify_parity_names_the_fault(tmp_path):
    g = retrograde.ParityGame([3, 1, 4], [0, 1, 0], [(0, 1), (1, 0), (1, 2), (2, 2)])
    s = retrograde.parity(g)
    assert retrograde.verify_parity(g, s) is None
    assert retrograde.verify_parity(g, (s.winner, s.strategy)) is None
    w = s.winner.copy()
    w[2] = 1
    assert retrograde.verify_parity(g, (w, s.strategy)) == (
        "Odd's moves let the play go round the cycle 2 -> 2 forever, whose largest priority 4 is Even's"
    )
    (tmp_path / "bad.sol").write_text("0 1;\n1 1 2;\n2 0 2;\n")
    assert retrograde.verify_parity(g, tmp_path / "bad.sol") == "vertex 1 is won by Odd with the move to 2, but 2 is won by Even"
    (tmp_path / "broken.sol").write_text("0 1;\n1 7;\n")
    with pytest.raises(ValueError, match=r"broken.sol:2: the winner of vertex 1 must be 0 \(Even\) or 1 \(Odd\), found 7"):
        retrograde.verify_parity(g, tmp_path / "broken.sol")


def test_errors():
    with pytest.raises(ValueError, match="owners are 0"):
        retrograde.ParityGame([1], [2], [(0, 0)])
    with pytest.raises(ValueError, match="edges name vertices from 0 to 0"):
        retrograde.ParityGame([1], [0], [(0, 1)])
    with pytest.raises(ValueError, match="unknown algorithm 'tl'"):
        retrograde.parity(retrograde.ParityGame([1], [0], [(0, 0)]), algorithm="tl")
    with pytest.raises(ValueError, match=r"<text>:2: vertex 0 is given twice \(first on line 1\)"):
        retrograde.parse_pg("0 1 0 0;\n0 1 0 0;\n")
    with pytest.raises(MemoryError, match="needs about"):
        retrograde.parity(retrograde.ParityGame([1], [0], [(0, 0)]), memory=10)
    with pytest.raises(FileNotFoundError):
        retrograde.read_pg("no-such-file.pg")


def test_same_as_the_command_line(cli, tmp_path):
    name = "KitchenTimerV4"
    out = cli("parity", DATA / f"{name}.pg", "--output", "csv")
    rows = [line.split(",") for line in out.strip().splitlines()[1:]]
    s = retrograde.parity(DATA / f"{name}.pg")
    assert [int(r[3]) for r in rows] == s.winner.tolist()
    assert [int(r[4]) if r[4] else -1 for r in rows] == s.strategy.tolist()
    (tmp_path / "ours.sol").write_text(s.to_pgsolver())
    assert cli("verify-parity", DATA / f"{name}.pg", tmp_path / "ours.sol").startswith("ok: ")


def test_the_docs_python_runs(tmp_path, monkeypatch):
    """The Python of docs/parity.md (its shell commands are run by .ci/doc-commands)."""
    import re

    doc = ROOT / "docs" / "parity.md"
    found = re.findall(r"^```python\n(.*?)^```", doc.read_text(), flags=re.M | re.S)
    assert found
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    for k, code in enumerate(found):
        exec(compile(code, f"{doc}:python{k}", "exec"), {"__name__": "parity_doc"})

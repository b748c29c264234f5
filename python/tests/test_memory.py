"""The interpreter never goes down (issue 26): the command line's memory plan refuses what
will not fit before anything is allocated, with the command line's message, and an
allocation that fails all the same is a MemoryError."""

import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import retrograde


def quick(f, *args, **kwargs):
    """Runs `f` and checks that it took under a few seconds (nothing big was allocated)."""
    t = time.perf_counter()
    try:
        return f(*args, **kwargs)
    finally:
        assert time.perf_counter() - t < 5, "the plan must refuse at once"


def test_a_huge_vertex_id_is_a_memory_error_not_an_abort():
    with pytest.raises(MemoryError) as e:
        quick(retrograde.solve, np.array([[0, 4_000_000_000]]))
    m = str(e.value)
    assert "4000000001 vertices and 1 edges" in m, m
    assert "needs about 171.8 GiB of memory, limit" in m, m
    # The same for Grundy values.
    with pytest.raises(MemoryError, match="needs about"):
        quick(retrograde.grundy, [(0, 4_000_000_000)])


def test_a_huge_vertex_count_is_a_memory_error():
    with pytest.raises(MemoryError, match="3000000000 vertices and 1 edges") as e:
        quick(retrograde.solve, [(0, 1)], n_vertices=3_000_000_000)
    assert "needs about 128.9 GiB of memory, limit" in str(e.value)
    # Past what a vertex id can be: a ValueError, as from the command line.
    with pytest.raises(ValueError, match="5000000000 vertices is too many"):
        quick(retrograde.solve, [(0, 1)], n_vertices=5_000_000_000)


def test_memory_is_the_command_lines_memory_flag(cli, tmp_path):
    s = retrograde.solve([(0, 1), (1, 2)], memory="1G")
    assert len(s) == 3
    with pytest.raises(MemoryError, match=r"limit 1\.0 KiB \(from --memory\)"):
        retrograde.solve([(0, 1), (1, 2)] * 100, memory="1K")
    with pytest.raises(ValueError, match="20G"):
        retrograde.solve([(0, 1)], memory="lots")
    with pytest.raises(TypeError):
        retrograde.solve([(0, 1)], memory=1.5)
    # A graph file: the very message of `retrograde solve FILE --memory 1K`.
    g = tmp_path / "g.txt"
    g.write_text("0 1\n1 2\n2 3\n3 0\n" * 20)
    with pytest.raises(MemoryError) as e:
        retrograde.solve(g, memory="1K")
    r = subprocess.run(
        [cli.path, "solve", g, "--memory", "1K"], capture_output=True, text=True
    )
    assert r.returncode == 2
    assert r.stderr == f"retrograde: {e.value}\n"


def test_a_game_too_big_is_refused_as_the_command_line_refuses_it(cli):
    # `retrograde game quixo --size 5` refuses at once; so does Python (it used to start
    # solving, 6.3 GB after 53 s).
    with pytest.raises(MemoryError) as e:
        quick(retrograde.games.quixo, size=5, memory="1G")
    r = subprocess.run(
        [cli.path, "game", "quixo", "--size", "5", "--memory", "1G"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr == f"retrograde: {e.value}\n"
    assert str(e.value).startswith("quixo 5x5: needs about 2.3 TiB of memory, limit 1.0 GiB")
    with pytest.raises(MemoryError, match="quixo 5x5: needs about 2.3 TiB"):
        quick(retrograde.games.quixo, size=5)
    # Sizes no game supports are ValueErrors.
    with pytest.raises(ValueError, match="far too many positions"):
        quick(retrograde.games.connect4, width=7, height=6)
    with pytest.raises(ValueError, match="3, 4 or 5"):
        quick(retrograde.games.quixo, size=6)
    # Explored games stop at the limit as they find positions.
    with pytest.raises(MemoryError, match="exploring the positions"):
        quick(retrograde.games.pebbles, count=100_000, memory="1K")


def test_a_failed_allocation_on_a_worker_is_a_memory_error():
    # Under `ulimit -v` 3 GiB, allocating 16 GiB fails: the allocator stops the worker and
    # the call raises, where the standard library would abort the interpreter. The
    # interpreter goes on (another solve works). In a child process: the stopped worker
    # keeps what it had.
    code = textwrap.dedent(
        """
        import resource, retrograde
        from retrograde import _retrograde
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        try:
            _retrograde._allocate(16 << 30)
        except MemoryError as e:
            print("MemoryError:", e)
        print(retrograde.solve([(0, 1), (1, 2)]).value(0))
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "MemoryError: out of memory: an allocation of 16 GiB failed" in r.stdout, r.stdout
    assert r.stdout.strip().endswith("loss in 2"), r.stdout


def test_import_exports_only_its_names():
    public = {n for n in dir(retrograde) if not n.startswith("_")}
    assert public == set(retrograde.__all__), public ^ set(retrograde.__all__)
    for name in ["np", "os", "json", "Any", "enum", "annotations"]:
        assert not hasattr(retrograde, name), name
    for module in [retrograde.games, retrograde.openspiel]:
        public = {n for n in dir(module) if not n.startswith("_")}
        assert public == set(module.__all__), (module.__name__, public ^ set(module.__all__))


def test_every_registry_game_has_a_function():
    # One function per entry of the registry, chess included: nothing written by hand.
    names = retrograde.games.names()
    assert "chess" in names and "connect4" in names
    for n in names:
        f = getattr(retrograde.games, n.replace("-", "_"))
        assert callable(f) and f.__doc__, n
    import inspect

    sig = inspect.signature(retrograde.games.connect4)
    assert [(p.name, p.default) for p in list(sig.parameters.values())[:2]] == [
        ("width", 5),
        ("height", 4),
    ]
    assert "db" in sig.parameters and "memory" in sig.parameters
    assert "db" not in inspect.signature(retrograde.games.pebbles).parameters
    assert "Connect-4" in retrograde.games.connect4.__doc__
    # chess takes an ending or up_to (every ending of up to N pieces): one of the two.
    assert [p.default for p in inspect.signature(retrograde.games.chess).parameters.values()][:2] == [None, None]
    with pytest.raises(ValueError, match="MATERIAL"):
        retrograde.games.chess()
    with pytest.raises(ValueError, match="not both"):
        retrograde.games.chess("KQvK", up_to=3)

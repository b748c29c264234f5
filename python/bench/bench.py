"""Benchmarks of the Python package (not run by CI).

1. A random graph of 1M vertices / 4M edges as a NumPy int64 array: `retrograde.solve`
   from Python (wall time: checks, conversion, build, solve, arrays), against the library's
   own build + solve time on the same edges measured inside Rust (`_retrograde.timed_solve`).
   Target: within 1.2x.
2. OpenSpiel's `value_iteration` against `retrograde.openspiel.solve` on the same games,
   side by side, checking that both give the same values.
3. Games written in Python: positions explored per second by `retrograde.solve_game`.

    python python/bench/bench.py [--quick]      (after pip install ./python)
"""

import statistics
import sys
import time

import numpy as np

import retrograde
from retrograde import _retrograde

QUICK = "--quick" in sys.argv


def best_of(f, runs):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def graph_bench(n=1_000_000, m=4_000_000, runs=5):
    rng = np.random.default_rng(2024)
    edges = rng.integers(0, n, size=(m, 2), dtype=np.int64)
    print(f"== random graph: {n:,} vertices, {m:,} edges (NumPy int64), median of {runs}")
    wall, sol = best_of(lambda: retrograde.solve(edges, n), runs)
    native = [_retrograde.timed_solve(np.ascontiguousarray(edges, dtype=np.uint32), n) for _ in range(runs)]
    build = statistics.median(b for b, _ in native)
    solve = statistics.median(s for _, s in native)
    lib = statistics.median(b + s for b, s in native)
    s = sol.summary()
    print(f"  values: win {s['win']:,}, loss {s['loss']:,}, draw {s['draw']:,}, max remoteness {s['max_remoteness']}")
    print(f"  library (Rust, no Python): build {build:.3f} s + solve {solve:.3f} s = {lib:.3f} s")
    print(f"  retrograde.solve from Python:  {wall:.3f} s  ({wall / lib:.2f}x the library's time; target 1.2x)")
    return wall / lib


class Nim:
    def __init__(self, heaps):
        self.heaps = heaps

    def start(self):
        return self.heaps

    def moves(self, heaps):
        out = []
        for i, h in enumerate(heaps):
            for take in range(1, h + 1):
                after = list(heaps)
                after[i] -= take
                out.append(tuple(after))
        return out

    def primitive(self, heaps):
        return None


def python_game_bench():
    heaps = (5, 7, 9, 11, 13) if QUICK else (7, 9, 11, 13, 15)
    print(f"== a game written in Python: Nim {heaps}, heaps kept in order (moves(p) builds a list of tuples)")
    t = time.perf_counter()
    g = retrograde.solve_game(Nim(heaps))
    total = time.perf_counter() - t
    print(
        f"  {g.positions:,} positions, {g.solution.edges:,} moves: explore {g.explore_seconds:.2f} s "
        f"({g.positions / g.explore_seconds:,.0f} positions/s, {g.solution.edges / g.explore_seconds:,.0f} moves/s), "
        f"solve {g.solve_seconds:.3f} s, total {total:.2f} s; start {g.start_value}"
    )


def openspiel_bench():
    try:
        import pyspiel
        from open_spiel.python.algorithms import value_iteration
    except ImportError as e:
        print(f"== OpenSpiel: skipped ({e})")
        return
    names = ["tic_tac_toe", "connect_four(rows=3,columns=4)"]
    if not QUICK:
        names.append("connect_four(rows=4,columns=3)")
    print("== OpenSpiel value_iteration vs retrograde.openspiel.solve (same game, same values)")
    print(f"  {'game':34} {'states':>8} {'value_iteration':>16} {'retrograde':>11} {'speed-up':>9}")
    for name in names:
        game = pyspiel.load_game(name)
        t = time.perf_counter()
        theirs = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-6)
        vi = time.perf_counter() - t
        t = time.perf_counter()
        ours = retrograde.openspiel.solve(game)
        rg = time.perf_counter() - t
        mine = ours.state_values()
        same = {k: round(v) for k, v in theirs.items()} == {k: int(v) for k, v in mine.items()}
        assert same, f"{name}: the values differ"
        print(f"  {name:34} {len(theirs):>8,} {vi:>14.2f} s {rg:>9.2f} s {vi / rg:>8.1f}x")
        print(
            f"  {'':34} retrograde: explore {ours.explore_seconds:.2f} s "
            f"({ours.positions / ours.explore_seconds:,.0f} states/s through pyspiel), solve {ours.solve_seconds:.3f} s"
        )


if __name__ == "__main__":
    ratio = graph_bench(runs=3 if QUICK else 5)
    python_game_bench()
    openspiel_bench()
    if ratio > 1.2:
        print(f"MISSED: {ratio:.2f}x > 1.2x")

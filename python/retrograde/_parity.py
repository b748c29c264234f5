"""Parity games: ``retrograde.ParityGame``, ``retrograde.parity``, ``retrograde.read_pg``,
``retrograde.verify_parity`` (exported by the package; this module is private).

A parity game is a directed graph whose every vertex has an owner (Even, 0, or Odd, 1: the
player who moves there) and a priority. Even wins a play when the largest priority seen
infinitely often is even, Odd when it is odd; a player who cannot move loses. Games are read
and written in PGSolver's format (as Oink and PGSolver read them; gzip and bzip2 files too)
and solved by the command line's algorithms (``retrograde parity``).

>>> import retrograde
>>> g = retrograde.ParityGame(priorities=[3, 1, 4], owners=[0, 1, 0], edges=[(0, 1), (1, 0), (1, 2), (2, 2)])
>>> s = retrograde.parity(g)
>>> s.winner.tolist(), s.strategy.tolist()
([1, 1, 0], [-1, 0, 2])
"""

from __future__ import annotations

import os as _os
import typing as _typing

import numpy as _np

from . import _retrograde

if _typing.TYPE_CHECKING:
    from typing import Any, Sequence

    import numpy as np

EVEN = 0
ODD = 1
_ALGORITHMS = ("zielonka", "pp", "qpz")


def _player(p: Any) -> int:
    if isinstance(p, str):
        key = p.lower()
        if key in ("even", "0"):
            return EVEN
        if key in ("odd", "1"):
            return ODD
    elif p in (0, 1) and not isinstance(p, float):
        return int(p)
    raise ValueError(f"a player is 0 or 'even', 1 or 'odd', got {p!r}")


class ParityGame:
    """A parity game.

    Made from arrays (``ParityGame(priorities, owners, edges, names=None, start=None)``: a
    priority and an owner, 0 for Even or 1 for Odd, per vertex; the moves as an (m, 2)
    array or a list of pairs), or read with :func:`read_pg`.

    Attributes (read-only): ``priorities`` (``uint32`` array), ``owners`` (``uint8``: 0 Even,
    1 Odd), ``edges`` ((m, 2) ``uint32``, by source then target), ``names`` (a list of str,
    "" for a vertex without one, or None), ``start`` (the start vertex a file names, or
    None). ``len(game)`` is the number of vertices.
    """

    def __init__(
        self,
        priorities: Any,
        owners: Any,
        edges: Any,
        names: Sequence[str] | None = None,
        start: int | None = None,
    ):
        p = _np.asarray(priorities)
        o = _np.asarray(owners)
        if p.ndim != 1 or o.ndim != 1:
            raise ValueError("priorities and owners are one number per vertex")
        if p.size and (p.dtype.kind not in "iu" or p.min() < 0 or p.max() > 2**32 - 1):
            raise ValueError("priorities are integers from 0 to 4294967295")
        if o.size and (o.dtype.kind not in "iub" or o.min() < 0 or o.max() > 1):
            raise ValueError("owners are 0 (Even) or 1 (Odd)")
        e = _np.asarray(edges)
        if e.size == 0:
            e = e.reshape(0, 2)
        if e.ndim != 2 or e.shape[1] != 2 or (e.size and e.dtype.kind not in "iu"):
            raise ValueError(f"edges must be an (m, 2) array of vertex ids, got shape {e.shape}")
        if e.size and (e.min() < 0 or e.max() >= len(p)):
            raise ValueError(f"edges name vertices from 0 to {len(p) - 1} only")
        self._native = _retrograde.parity_game(
            _np.ascontiguousarray(p, dtype=_np.uint32),
            _np.ascontiguousarray(o, dtype=_np.uint8),
            _np.ascontiguousarray(e, dtype=_np.uint32),
            None if names is None else [str(x) for x in names],
            start,
        )

    @classmethod
    def _wrap(cls, native: Any) -> "ParityGame":
        g = cls.__new__(cls)
        g._native = native
        return g

    def __len__(self) -> int:
        return self._native.vertex_count

    def __repr__(self) -> str:
        return f"<retrograde.ParityGame of {len(self)} vertices, {self.edge_count} edges>"

    @property
    def edge_count(self) -> int:
        return self._native.edge_count

    @property
    def priorities(self) -> np.ndarray:
        return self._native.priorities()

    @property
    def owners(self) -> np.ndarray:
        return self._native.owners()

    @property
    def edges(self) -> np.ndarray:
        return self._native.edges()

    @property
    def names(self) -> list[str] | None:
        return self._native.names()

    @property
    def start(self) -> int | None:
        return self._native.start

    def to_pg(self) -> str:
        """The game in PGSolver's format (``parse_pg`` and ``retrograde parity`` read it)."""
        return self._native.to_pg()

    def write_pg(self, path: str | os.PathLike) -> None:
        """Writes the game to ``path`` in PGSolver's format (plain text)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_pg())


def read_pg(path: str | os.PathLike) -> ParityGame:
    """Reads a game in PGSolver's format from a file: plain, gzip or bzip2 (told by its
    bytes). A malformed file raises ``ValueError`` naming the file and the line."""
    with open(path, "rb") as f:
        data = f.read()
    return ParityGame._wrap(_retrograde.parity_parse(data, _os.fspath(path)))


def parse_pg(text: str | bytes) -> ParityGame:
    """Reads a game in PGSolver's format from its text (``ValueError`` names the line)."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    return ParityGame._wrap(_retrograde.parity_parse(data, "<text>"))


class ParitySolution:
    """The winner of every vertex of a parity game and a winning strategy.

    Attributes:
        game: the :class:`ParityGame`.
        winner: ``uint8`` array, 0 where Even wins, 1 where Odd wins.
        strategy: ``int64`` array: for a vertex its winner owns, the winning move (the same
            every time: a positional strategy); -1 elsewhere.
        phases: what the solve did: ``preprocess_seconds``, ``solve_seconds``,
            ``preprocessed`` (vertices solved by preprocessing), ``levels`` (priorities after
            compression), ``components``, ``iterations``, ``algorithm``.
    """

    def __init__(self, game: ParityGame, winner: np.ndarray, strategy: np.ndarray, phases: dict):
        self.game = game
        self.winner = winner
        self.strategy = strategy
        self.phases = phases

    def __len__(self) -> int:
        return len(self.winner)

    def __repr__(self) -> str:
        even = int((self.winner == EVEN).sum())
        return f"<retrograde.ParitySolution: Even wins {even}, Odd wins {len(self) - even}>"

    def won_by(self, player: int | str) -> np.ndarray:
        """The vertices ``player`` (0 or "even", 1 or "odd") wins, in increasing order."""
        return _np.flatnonzero(self.winner == _player(player))

    def to_pgsolver(self) -> str:
        """PGSolver's solution format, as ``retrograde parity --output pgsolver`` writes it."""
        lines = [f"paritysol {max(len(self) - 1, 0)};"]
        for v in range(len(self)):
            m = int(self.strategy[v])
            lines.append(f"{v} {int(self.winner[v])} {m};" if m >= 0 else f"{v} {int(self.winner[v])};")
        return "\n".join(lines) + "\n"

    def verify(self) -> str | None:
        """Checks this solution with the independent verifier: None when right, else the
        first fault."""
        return self.game._native.verify(
            _np.ascontiguousarray(self.winner, dtype=_np.uint8),
            _np.ascontiguousarray(self.strategy, dtype=_np.int64),
        )


def parity(
    game: ParityGame | str | os.PathLike,
    *,
    algorithm: str = "zielonka",
    preprocess: bool = True,
    scc: bool = False,
    memory: int | str | None = None,
) -> ParitySolution:
    """Solves a parity game (a :class:`ParityGame`, or the path of a file for
    :func:`read_pg`), as ``retrograde parity`` does.

    ``algorithm`` is ``"zielonka"`` (the default), ``"pp"`` (priority promotion) or
    ``"qpz"`` (quasi-polynomial); every one gives the same winners. ``preprocess`` solves
    self-loops and one-parity games first; ``scc`` solves one strongly connected component at
    a time. ``memory`` is ``--memory`` (a game too big is a ``MemoryError`` before solving).
    The GIL is released while solving.
    """
    if not isinstance(game, ParityGame):
        game = read_pg(game)
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r} (expected zielonka, pp or qpz)")
    mem = None if memory is None else str(memory)
    w, s, phases = game._native.solve(algorithm, bool(preprocess), bool(scc), mem)
    return ParitySolution(game, w, s, phases)


def verify_parity(game: ParityGame | str | os.PathLike, solution: Any) -> str | None:
    """Checks a claimed solution of ``game`` with the verifier that shares no code with the
    solvers. ``solution`` is a :class:`ParitySolution`, a pair ``(winner, strategy)`` of
    arrays (0/1 per vertex; a move or -1), or the path of a solution file (PGSolver's format,
    or ``retrograde parity --output csv``; gzip or bzip2 too). Returns None when the solution
    is right, else the first fault as text; a malformed file raises ``ValueError``."""
    if not isinstance(game, ParityGame):
        game = read_pg(game)
    if isinstance(solution, ParitySolution):
        winner, strategy = solution.winner, solution.strategy
    elif isinstance(solution, (str, _os.PathLike)):
        with open(solution, "rb") as f:
            return game._native.verify_text(f.read(), _os.fspath(solution))
    else:
        winner, strategy = solution
    return game._native.verify(
        _np.ascontiguousarray(winner, dtype=_np.uint8),
        _np.ascontiguousarray(strategy, dtype=_np.int64),
    )

"""retrograde: exact values of two-player games, from Python.

Strongly solves games given as directed graphs (NumPy edge arrays, lists of pairs,
networkx digraphs, graph files), the built-in games (``retrograde.games``), databases made
by the command line (``retrograde.open``), games written in Python (``retrograde.solve_game``)
and OpenSpiel games (``retrograde.openspiel``): every position gets its outcome for the
player to move (win, loss, tie or draw), its remoteness (plies to the end when the winner
hurries and the loser stalls) and a best move.

>>> import retrograde
>>> s = retrograde.solve([(v, v - t) for v in range(1, 11) for t in (1, 2) if t <= v])
>>> str(s.value(10))
'win in 7'
"""

from __future__ import annotations

# Imported under private names: `import retrograde` exports what `__all__` lists and its
# submodules, nothing else (no `np`, `os`, `json`).
import collections.abc as _abc
import enum as _enum
import json as _json
import os as _os
import re as _re
import typing as _typing

import numpy as _np

from . import _retrograde

if _typing.TYPE_CHECKING:  # annotations only (they are never evaluated at run time)
    from typing import Any, Iterable, Mapping, Sequence

    import numpy as np

__all__ = [
    "Outcome",
    "Value",
    "Solution",
    "Grundy",
    "Game",
    "PythonGame",
    "solve",
    "grundy",
    "open",
    "solve_game",
    "games",
    "openspiel",
    "chess",
    "ParityGame",
    "ParitySolution",
    "parity",
    "read_pg",
    "parse_pg",
    "verify_parity",
]

_MAX_ID = 2**32 - 2


class Outcome(_enum.IntEnum):
    """The result of a position under perfect play, for the player to move.

    The integer codes are those of ``Solution.outcome``: WIN 0, LOSS 1, TIE 2, DRAW 3.
    """

    WIN = 0
    LOSS = 1
    TIE = 2
    DRAW = 3

    def __str__(self) -> str:
        return self.name.lower()


class Value:
    """An outcome with its remoteness, for the player to move, and for games with scores
    (scored graph files, Dots and Boxes, Kalah) by how much.

    ``outcome`` is an :class:`Outcome`; ``remoteness`` the plies to the end under perfect
    play (an ``int``), or ``None`` for a draw (a game that never ends). ``score`` is the
    points the player to move gets from here (an ``int``: positive for a win, negative for
    a loss, 0 for a tie or a draw) for a game with scores, and ``None`` for a game without
    them: a plain win is not "a win by 1". (In a tier game with scores a game that never
    ends after points were collected is a win or loss by them with remoteness ``None``.)
    ``str(value)`` reads like the command line: ``win in 7``, ``tie in 9``, ``draw``, and
    with a score ``win by 3 in 11``. Values compare by the mover's preference: a greater
    value is better (``Value.win(1) > Value.win(5) > Value.tie(0) > Value.draw() >
    Value.loss(9) > Value.loss(0)``); with scores the higher score first, then as before (a
    value without a score counts as +1, -1 or 0 there); ``==`` compares outcome,
    remoteness and score.
    """

    __slots__ = ("outcome", "remoteness", "score")

    outcome: Outcome
    remoteness: int | None
    score: int | None

    def __init__(
        self,
        outcome: Outcome | int | str,
        remoteness: int | None = None,
        score: int | None = None,
    ):
        if isinstance(outcome, str):
            try:
                outcome = Outcome[outcome.upper()]
            except KeyError:
                raise ValueError(
                    f"expected win, loss, tie or draw, got {outcome!r}"
                ) from None
        outcome = Outcome(outcome)
        if score is not None:
            score = int(score)
            sign = {Outcome.WIN: 1, Outcome.LOSS: -1}.get(outcome, 0)
            if (score > 0) - (score < 0) != sign:
                raise ValueError(f"a {outcome} cannot have the score {score}")
        never_ends = score is not None and outcome in (Outcome.WIN, Outcome.LOSS)
        if outcome is Outcome.DRAW:
            remoteness = None
        elif remoteness is None and never_ends:
            pass
        elif remoteness is None or int(remoteness) < 0:
            raise ValueError(f"a {outcome} needs a remoteness >= 0, got {remoteness!r}")
        else:
            remoteness = int(remoteness)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "remoteness", remoteness)
        object.__setattr__(self, "score", score)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Value is immutable")

    @classmethod
    def win(cls, r: int) -> "Value":
        """Won in ``r`` plies."""
        return cls(Outcome.WIN, r)

    @classmethod
    def loss(cls, r: int) -> "Value":
        """Lost in ``r`` plies."""
        return cls(Outcome.LOSS, r)

    @classmethod
    def tie(cls, r: int) -> "Value":
        """Tied in ``r`` plies."""
        return cls(Outcome.TIE, r)

    @classmethod
    def draw(cls) -> "Value":
        """Never ends."""
        return cls(Outcome.DRAW)

    @classmethod
    def scored(cls, score: int, r: int | None) -> "Value":
        """A value with a score: the outcome is its sign (at 0 a tie with a remoteness, a
        draw without)."""
        score = int(score)
        if score > 0:
            return cls(Outcome.WIN, r, score)
        if score < 0:
            return cls(Outcome.LOSS, r, score)
        return cls(Outcome.DRAW if r is None else Outcome.TIE, r, 0)

    @classmethod
    def parse(cls, text: str) -> "Value":
        """Reads what ``str`` writes: ``win in 3``, ``draw``, ``win by 3 in 11``, ``loss by
        2, never ends``."""
        text = text.strip()
        if text == "draw":
            return cls.draw()
        o, sep, rest = text.partition(" by ")
        if sep:
            if o not in ("win", "loss"):
                raise ValueError(f'expected a value like "win by 3 in 11", got {text!r}')
            sign = 1 if o == "win" else -1
            if rest.endswith(", never ends"):
                return cls.scored(sign * int(rest[: -len(", never ends")]), None)
            points, sep, r = rest.partition(" in ")
            if not sep:
                raise ValueError(f'expected a value like "win by 3 in 11", got {text!r}')
            return cls.scored(sign * int(points), int(r))
        o, sep, r = text.partition(" in ")
        if not sep:
            raise ValueError(f'expected a value like "win in 3" or "draw", got {text!r}')
        return cls(o, int(r))

    @classmethod
    def _from_codes(cls, outcome: int, remoteness: int, score: int | None = None) -> "Value":
        r = None if remoteness < 0 else int(remoteness)
        if score is not None:
            return cls.scored(int(score), r)
        return cls(Outcome(int(outcome)), r)

    def _key(self) -> tuple[int, tuple[int, int]]:
        # The order of retrograde_solve::Scored: the score, then (at an equal score) the
        # sooner end when it is positive or 0, the later end (or none) when negative.
        s = self.score
        if s is None:
            s = {Outcome.WIN: 1, Outcome.LOSS: -1}.get(self.outcome, 0)
        r = self.remoteness
        if s >= 0:
            return (s, (0, 0) if r is None else (1, -r))
        return (s, (2, 0) if r is None else (0, r))

    def through(self, keeps_turn: bool = False) -> "Value":
        """This value of a child as seen from its parent one move earlier: the perspective
        flips unless the move keeps the turn (a score is negated), and one ply is added."""
        r = None if self.remoteness is None else self.remoteness + 1
        if self.score is not None:
            return Value.scored(self.score if keeps_turn else -self.score, r)
        o = self.outcome
        if not keeps_turn:
            o = {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN}.get(o, o)
        return Value(o, r)

    def __str__(self) -> str:
        if self.outcome is Outcome.DRAW:
            return "draw"
        if self.score is None or self.outcome is Outcome.TIE:
            return f"{self.outcome} in {self.remoteness}"
        if self.remoteness is None:
            return f"{self.outcome} by {abs(self.score)}, never ends"
        return f"{self.outcome} by {abs(self.score)} in {self.remoteness}"

    def __repr__(self) -> str:
        if self.score is not None:
            return f"Value.scored({self.score}, {self.remoteness!r})"
        if self.remoteness is None:
            return "Value.draw()"
        return f"Value.{self.outcome}({self.remoteness})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return (self.outcome, self.remoteness, self.score) == (
            other.outcome,
            other.remoteness,
            other.score,
        )

    def __hash__(self) -> int:
        return hash((self.outcome, self.remoteness, self.score))

    def __lt__(self, other: "Value") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Value") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Value") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Value") -> bool:
        return self._key() >= other._key()


# ---------------------------------------------------------------------------------------
# Graphs.


def _memory(memory: int | str | None) -> str | None:
    """``memory=`` as the native module takes it: the text of ``--memory``."""
    if memory is None:
        return None
    if isinstance(memory, bool) or not isinstance(memory, (int, str)):
        raise TypeError(f"memory is a number of bytes or a size such as \"20G\", got {memory!r}")
    return str(memory)


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, _os.PathLike))


def _is_networkx(x: Any) -> bool:
    return hasattr(x, "is_directed") and hasattr(x, "nodes") and hasattr(x, "edges")


def _edge_array(edges: Any) -> np.ndarray:
    """Edges as a C-contiguous (m, 2) uint32 array, checked."""
    a = _np.asarray(edges)
    if a.size == 0:
        a = a.reshape(0, 2).astype(_np.uint32)
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"edges must have shape (m, 2) (one row per move u -> v), got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise TypeError(f"edges must be integers (vertex ids), got dtype {a.dtype}")
    if a.size:
        lo = a.min()
        if lo < 0:
            row = int(_np.argmin(a) // 2)
            raise ValueError(f"edge {row}: vertex id {int(lo)} is negative")
        hi = a.max()
        if hi > _MAX_ID:
            row = int(_np.argmax(a) // 2)
            raise ValueError(f"edge {row}: vertex id {int(hi)} is too large (ids must be at most {_MAX_ID})")
    return _np.ascontiguousarray(a, dtype=_np.uint32)


_PRIMITIVE = {"win": 0, "loss": 1, "lose": 1, "tie": 2}


def _terminal_arrays(terminal: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    if terminal is None:
        return None, None
    items = terminal.items() if isinstance(terminal, _abc.Mapping) else terminal
    vs, cs = [], []
    for v, o in items:
        if isinstance(o, str):
            if o not in _PRIMITIVE:
                raise ValueError(f"terminal {v}: expected win, loss or tie, got {o!r}")
            c = _PRIMITIVE[o]
        else:
            c = int(Outcome(o))
            if c == Outcome.DRAW:
                raise ValueError(f"terminal {v}: a terminal value is win, loss or tie, not draw")
        if int(v) < 0 or int(v) > _MAX_ID:
            raise ValueError(f"terminal: vertex {v} is out of range")
        vs.append(int(v))
        cs.append(c)
    return _np.asarray(vs, dtype=_np.uint32), _np.asarray(cs, dtype=_np.uint8)


class Solution:
    """The value of every vertex of a solved graph.

    Attributes:
        outcome: ``uint8`` array of :class:`Outcome` codes, one per vertex.
        remoteness: ``int64`` array, -1 for draws.
        best_move: ``int64`` array, a successor realizing the value, -1 at terminals.
        nodes: for a graph given as a networkx digraph, the node of each vertex id (and
            ``value``, ``line`` accept and return nodes); else None.
        names: vertex names given by a graph file, else None.
        start: the start vertex a graph file names, else None.
        score: for a scored graph (a graph file with ``score`` lines), an ``int64`` array of
            each vertex's score for the player to move (0 for ties and draws, which have
            none other); ``None`` for a graph without scores, whose values have none.
        edges: the number of edges (moves) of the graph.
    """

    def __init__(
        self, outcome, remoteness, best_move, edges, nodes=None, names=None, start=None, score=None
    ):
        self.outcome: np.ndarray = outcome
        self.remoteness: np.ndarray = remoteness
        self.best_move: np.ndarray = best_move
        self.edges: int = int(edges)
        self.nodes: list | None = nodes
        self.names: list[str] | None = names
        self.start: int | None = start
        self.score: np.ndarray | None = score
        self._index = None if nodes is None else {n: i for i, n in enumerate(nodes)}

    def __len__(self) -> int:
        return len(self.outcome)

    def __repr__(self) -> str:
        return f"<retrograde.Solution of {len(self)} vertices>"

    def _vertex(self, v: Any) -> int:
        if self._index is not None:
            try:
                return self._index[v]
            except (KeyError, TypeError):
                raise KeyError(f"{v!r} is not a node of the graph") from None
        # As the command line reads a vertex (`--line start`): text of digits is an id, other
        # text the name the file gives a vertex (the smallest id of that name).
        if isinstance(v, str) and not _re.fullmatch(r"\+?[0-9]+", v):
            if self.names is None:
                raise TypeError(f"a vertex is an id or a name from the file, got {v!r} (the file names no vertex)")
            if v and v in self.names:
                return self.names.index(v)
            raise KeyError(f"no vertex is named {v!r} (expected a vertex id or a name from the file)")
        try:
            i = int(v)
        except (TypeError, ValueError):
            raise TypeError(f"a vertex id is an int, got {v!r}") from None
        if not 0 <= i < len(self):
            raise IndexError(f"vertex {i} is out of range (the graph has {len(self)} vertices)")
        return i

    def value(self, v: Any) -> Value:
        """The :class:`Value` of vertex ``v``, with its score in a scored graph: a vertex id,
        or for a graph file a name it gives a vertex (``"start"``, as ``--line start`` reads
        it), or a node for a networkx graph."""
        i = self._vertex(v)
        score = None if self.score is None else int(self.score[i])
        return Value._from_codes(self.outcome[i], self.remoteness[i], score)

    def line(self, v: Any) -> list:
        """The optimal line of play from ``v``: ``v``, its best move, that one's best move,
        ... until a terminal, or until a vertex repeats (a draw: the repeated vertex is not
        listed again). Nodes for a networkx graph, else vertex ids."""
        i = self._vertex(v)
        line, seen = [i], {i}
        while True:
            nxt = int(self.best_move[i])
            if nxt < 0 or nxt in seen:
                break
            line.append(nxt)
            seen.add(nxt)
            i = nxt
        if self.nodes is not None:
            return [self.nodes[x] for x in line]
        return line

    def summary(self) -> dict:
        """Totals like ``retrograde solve --summary --output json``: ``vertices``, ``edges``,
        ``win``, ``loss``, ``tie``, ``draw``, ``max_remoteness`` (None when no vertex has
        one), ``longest_win``, ``longest_loss``."""
        counts = _np.bincount(self.outcome, minlength=4)

        def longest(mask):
            return int(self.remoteness[mask].max()) if mask.any() else None

        return {
            "vertices": len(self),
            "edges": self.edges,
            "win": int(counts[0]),
            "loss": int(counts[1]),
            "tie": int(counts[2]),
            "draw": int(counts[3]),
            "max_remoteness": longest(self.outcome != Outcome.DRAW),
            "longest_win": longest(self.outcome == Outcome.WIN),
            "longest_loss": longest(self.outcome == Outcome.LOSS),
        }


def _networkx_edges(g: Any) -> tuple[np.ndarray, list]:
    if not g.is_directed():
        raise ValueError(
            "a networkx graph must be directed (a DiGraph): moves go one way; "
            "use g.to_directed() for moves both ways"
        )
    nodes = list(g.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    edges = _np.fromiter(
        (index[x] for e in g.edges() for x in e[:2]), dtype=_np.int64, count=2 * g.number_of_edges()
    ).reshape(-1, 2)
    return edges, nodes


def solve(
    edges: Any,
    n_vertices: int | None = None,
    *,
    no_move: str = "loss",
    terminal: Mapping[int, str | Outcome] | Iterable[tuple[int, str | Outcome]] | None = None,
    owners: Sequence[int] | np.ndarray | None = None,
    go_again: Sequence[bool] | np.ndarray | None = None,
    threads: int | None = None,
    format: str = "auto",
    memory: int | str | None = None,
) -> Solution:
    """Solves a game graph: every vertex's outcome, remoteness and best move.

    Args:
        edges: the moves: a NumPy array of shape (m, 2) of any integer dtype (row ``u v`` is
            a move from ``u`` to ``v``), a list of pairs, a ``networkx.DiGraph`` (vertex ``i``
            is ``list(g.nodes)[i]``; the solution's ``value`` and ``line`` take nodes), or
            the path of a graph file in any format the CLI reads (edges, rg, grf, json;
            ``format`` picks one, default from the extension and contents).
        n_vertices: at least this many vertices (ids ``0 .. n_vertices - 1``); an edge with
            an id at or beyond it is an error. Default: the largest id + 1.
        no_move: the value of a vertex without moves, for the player to move there:
            ``"loss"`` (normal play), ``"win"`` (misère) or ``"tie"``.
        terminal: values fixed by the rules, ``{vertex: "win" | "loss" | "tie"}``; such a
            vertex's moves are ignored.
        owners: an arena: the player (0 or 1) who moves at each vertex; a move passes the
            turn exactly when the owners differ.
        go_again: one flag per edge: after a flagged move the same player moves again.
        threads: worker threads (default: all cores). The answer is the same for every
            number.
        memory: refuse to use more than this much memory: bytes, or a size such as
            ``"20G"`` (as ``--memory``; default and upper bound: what the system allows,
            the smallest of MemAvailable, ``ulimit -v`` and the cgroup's limit).

    Returns:
        A :class:`Solution`.

    Raises:
        MemoryError: the graph would need more memory than the limit (the vertex count is
            the largest id + 1, or ``n_vertices``): the command line's message, raised
            before anything is allocated.
        ValueError: a bad array (shape, negative or too large ids, ids at or beyond
            ``n_vertices``), bad options, or a graph file that does not parse (the message
            names the file and line).
        TypeError: edges that are not integers.
        FileNotFoundError, OSError: a graph file that cannot be read.

    Complexity: O(n + m) time. The GIL is released while solving, and Ctrl-C interrupts
    (the call returns at once with KeyboardInterrupt; the solver, which has no cancel
    point, finishes its work on its worker thread and the result is dropped).
    """
    if _is_path(edges):
        if terminal is not None or owners is not None or go_again is not None:
            raise ValueError("terminal, owners and go_again come from the file itself when solving a graph file")
        (o, r, b, score), (m, start, names) = _retrograde.solve_file(
            _os.fspath(edges), format, n_vertices, no_move, threads, _memory(memory)
        )
        return Solution(o, r, b, m, names=names, start=start, score=score)
    nodes = None
    if _is_networkx(edges):
        edges, nodes = _networkx_edges(edges)
        if n_vertices is None:
            n_vertices = len(nodes)
    a = _edge_array(edges)
    tv, tc = _terminal_arrays(terminal)
    own = None
    if owners is not None:
        own = _np.asarray(owners)
        if own.ndim != 1 or (own.size and (own.min() < 0 or own.max() > 1)):
            raise ValueError("owners must be a one-dimensional sequence of 0 and 1")
        own = _np.ascontiguousarray(own, dtype=_np.uint8)
    again = None
    if go_again is not None:
        again = _np.ascontiguousarray(_np.asarray(go_again, dtype=bool))
        if again.ndim != 1:
            raise ValueError("go_again must be one flag per edge")
    if n_vertices is not None and int(n_vertices) < 0:
        raise ValueError(f"n_vertices must be >= 0, got {n_vertices}")
    (o, r, b, _score), m = _retrograde.solve_edges(
        a,
        None if n_vertices is None else int(n_vertices),
        no_move,
        tv,
        tc,
        own,
        again,
        threads,
        _memory(memory),
    )
    return Solution(o, r, b, m, nodes=nodes)


class Grundy:
    """Sprague-Grundy values of every vertex of a graph (normal play; loopy graphs too).

    Attributes:
        values: ``int64`` array: the finite value, or -1 for an infinite value ``inf{K}``.
        outcome: ``uint8`` array of :class:`Outcome` codes (an infinite value is a win when
            0 is in K, else a draw).
    """

    def __init__(self, values, outcome, kindex, ksets, nodes=None):
        self.values: np.ndarray = values
        self.outcome: np.ndarray = outcome
        self._kindex = kindex
        self._ksets = [tuple(k) for k in ksets]
        self.nodes = nodes
        self._index = None if nodes is None else {n: i for i, n in enumerate(nodes)}

    def __len__(self) -> int:
        return len(self.values)

    def _vertex(self, v: Any) -> int:
        if self._index is not None:
            return self._index[v]
        i = int(v)
        if not 0 <= i < len(self):
            raise IndexError(f"vertex {i} is out of range (the graph has {len(self)} vertices)")
        return i

    def kset(self, v: Any) -> tuple[int, ...] | None:
        """``K`` of an infinite value ``inf{K}`` at ``v`` (the finite values among its
        moves), or None for a finite value."""
        k = int(self._kindex[self._vertex(v)])
        return None if k < 0 else self._ksets[k]

    def value(self, v: Any) -> int | str:
        """The value at ``v``: an ``int``, or ``"inf{0,2}"`` as the CLI writes it."""
        i = self._vertex(v)
        x = int(self.values[i])
        if x >= 0:
            return x
        return "inf{" + ",".join(map(str, self.kset(v))) + "}"


def grundy(
    edges: Any,
    n_vertices: int | None = None,
    *,
    terminal: Mapping[int, str] | None = None,
    format: str = "auto",
    memory: int | str | None = None,
) -> Grundy:
    """Sprague-Grundy values of an impartial game graph (who cannot move loses), with the
    generalized values of Smith and of Fraenkel and Yesha on graphs with cycles.

    ``edges`` and ``memory`` are taken as by :func:`solve`. Only ``terminal`` labels
    ``"loss"`` are allowed (go-again moves, owners and win/tie terminals are not impartial
    normal play: ValueError).
    """
    if _is_path(edges):
        return Grundy(
            *_retrograde.grundy_file(_os.fspath(edges), format, n_vertices, _memory(memory))
        )
    nodes = None
    if _is_networkx(edges):
        edges, nodes = _networkx_edges(edges)
        if n_vertices is None:
            n_vertices = len(nodes)
    tv, tc = _terminal_arrays(terminal)
    return Grundy(
        *_retrograde.grundy_edges(_edge_array(edges), n_vertices, tv, tc, _memory(memory)),
        nodes=nodes,
    )


# ---------------------------------------------------------------------------------------
# Games: built-in, databases, Python-defined.


def _move_list(moves: Any) -> list[str]:
    if moves is None:
        return []
    if isinstance(moves, str):
        return [m.strip() for m in moves.split(",") if m.strip()]
    return [str(m) for m in moves]


class Game:
    """A solved game: a built-in game (``retrograde.games``) or a database opened with
    :func:`open`, answering as ``retrograde query`` does.

    Moves are written as ``retrograde play`` writes them (connect4 a column number ``"3"``,
    tic-tac-toe a cell ``"b2"``, quixo ``"a1 a4"``, teeko ``"c3"`` then ``"c3-d4"``), given
    as a list of strings or one comma-separated string.
    """

    def __init__(self, native: Any):
        self._native = native
        start, stats, lines = native.report()
        self._start = None if start is None else Value._from_codes(*start)
        self.stats: dict = {
            k: (_json.loads(v) if isinstance(v, str) else v) for k, v in stats.items()
        }
        self.report_lines: list[str] = lines

    @property
    def name(self) -> str:
        """The game and its parameters, as a database records them (``connect4 5x4``)."""
        return self._native.name

    @property
    def start_value(self) -> Value | None:
        """The value of the start position for the player to move there."""
        return self._start

    @property
    def positions(self) -> int | None:
        """The number of positions, as the CLI reports it (reachable from the start)."""
        p = self.stats.get("positions")
        return None if p is None else int(p)

    def _query(self, moves: Any = None, position: str | None = None):
        return self._native.query(_move_list(moves), position)

    def value(self, moves: Any = None, *, position: str | None = None) -> Value:
        """The value, for the player to move, of the position after ``moves`` from the start
        (or from ``position``, in the game's own notation, when it is given).

        Raises ValueError for an illegal move (naming it and why)."""
        return Value._from_codes(*self._query(moves, position)[3])

    def moves(self, moves: Any = None, *, position: str | None = None) -> list[tuple[str, Value]]:
        """Every legal move of that position with its value for the player who makes it,
        best first, as ``(move, Value)`` pairs."""
        return [(m, Value._from_codes(o, r, s)) for m, o, r, s in self._query(moves, position)[4]]

    def position(self, moves: Any = None) -> str:
        """The position after ``moves``, in the game's notation."""
        return self._query(moves)[0]

    def query(self, moves: Any = None, *, position: str | None = None) -> dict:
        """The whole answer, as ``retrograde query --output json`` prints it (a dict)."""
        return _json.loads(self._query(moves, position)[5])

    def show(self, moves: Any = None) -> str:
        """A picture of the position after ``moves``, as ``retrograde play`` draws it."""
        return self._query(moves)[2]

    def __repr__(self) -> str:
        return f"<retrograde.Game {self.name}: {self.start_value}>"


def open(db: str | os.PathLike) -> Game:
    """Opens a database directory made by ``retrograde game NAME ... --db DIR`` (or
    ``retrograde solve ... --db DIR``): it says which game it holds. Nothing is solved.

    Raises FileNotFoundError when there is no finished database there, OSError for a
    damaged one, ValueError for a foreign one."""
    return Game(_retrograde.open_db(_os.fspath(db)))


class PythonGame:
    """A game written in Python, solved by :func:`solve_game`.

    Has the same queries as :class:`Game`: ``start_value``, ``positions``, ``value(moves)``,
    ``moves(moves)``; moves are named as the game's ``moves`` method names them (the keys of
    the dict it returns, else ``str(position)``). Also: ``value_of(position)``,
    ``solution`` (the :class:`Solution` of the explored graph, vertex ``i`` being
    ``positions_list[i]``) and ``explore_seconds`` / ``solve_seconds``.
    """

    def __init__(self, game, positions, index, solution, keeps, explore_seconds, solve_seconds):
        self.game = game
        self.positions_list: list = positions
        self._index: dict = index
        self.solution: Solution = solution
        self._keeps = keeps
        self.explore_seconds = explore_seconds
        self.solve_seconds = solve_seconds

    @property
    def name(self) -> str:
        return type(self.game).__name__

    @property
    def positions(self) -> int:
        """Positions reachable from the start."""
        return len(self.positions_list)

    @property
    def start_value(self) -> Value:
        return self.solution.value(0)

    @property
    def stats(self) -> dict:
        s = self.solution.summary()
        s["positions"] = s.pop("vertices")
        s["moves"] = s.pop("edges")
        return s

    def value_of(self, position: Any) -> Value:
        """The value of a position (one reachable from the start)."""
        try:
            return self.solution.value(self._index[position])
        except KeyError:
            raise KeyError(f"{position!r} is not reachable from the start") from None

    def _named(self, p: Any) -> list[tuple[str, Any]]:
        ms = self.game.moves(p)
        if hasattr(ms, "keys") and hasattr(ms, "values"):
            return [(str(k), c) for k, c in ms.items()]
        return [(str(c), c) for c in ms]

    def _walk(self, moves: Any) -> Any:
        p = self.positions_list[0]
        for i, m in enumerate(_move_list(moves)):
            # Terminals (no best move) have no moves: a primitive position's are not explored.
            named = [] if self.solution.best_move[self._index[p]] < 0 else self._named(p)
            for name, c in named:
                if name == m:
                    p = c
                    break
            else:
                legal = ", ".join(n for n, _ in named) or "none: the game is over"
                raise ValueError(f"move {i + 1} ({m!r}) is not legal at {p!r} (legal moves: {legal})")
        return p

    def position(self, moves: Any = None) -> Any:
        """The position after ``moves`` from the start."""
        return self._walk(moves)

    def value(self, moves: Any = None) -> Value:
        return self.value_of(self._walk(moves))

    def moves(self, moves: Any = None) -> list[tuple[str, Value]]:
        p = self._walk(moves)
        if self.solution.best_move[self._index[p]] < 0:
            return []
        out = []
        for name, c in self._named(p):
            keeps = bool(self.game.keeps_turn(p, c)) if self._keeps else False
            out.append((name, self.value_of(c).through(keeps)))
        out.sort(key=lambda mv: mv[1], reverse=True)
        return out

    def __repr__(self) -> str:
        return f"<retrograde.{type(self).__name__} {self.name}: {self.positions} positions, {self.start_value}>"


def solve_game(
    game: Any,
    *,
    no_move: str = "loss",
    threads: int | None = None,
    progress: bool | None = None,
    max_positions: int | None = None,
) -> PythonGame:
    """Explores and solves a game written in Python.

    ``game`` is any object with these methods (positions may be anything hashable):

    - ``start()``: the start position;
    - ``moves(p)``: the positions after each legal move, as an iterable, or as a dict
      ``{move name: position}`` (names are then used by ``value(moves=...)``; otherwise a
      move is named ``str(position)``);
    - ``primitive(p)``: ``None`` while the game goes on, else the value fixed by the rules
      for the player to move at ``p``: ``"win"``, ``"loss"`` or ``"tie"`` (or an
      :class:`Outcome`). A position with no moves and no primitive value is a ``no_move``;
    - optional ``keeps_turn(p, q)``: True when after the move from ``p`` to ``q`` the same
      player moves again (default: every move passes the turn).

    Every position reachable from the start is visited once, breadth first, by the engine
    calling your methods (that is the cost: about a million positions in tens of seconds for
    small games), then the graph is solved exactly by the same engine as :func:`solve`.
    Exceptions raised by your methods propagate unchanged; Ctrl-C interrupts.
    """
    import time

    t0 = time.perf_counter()
    edges, again, tv, tc, positions, index = _retrograde.explore(game, progress, max_positions)
    t1 = time.perf_counter()
    (o, r, b, _score), m = _retrograde.solve_edges(
        edges, len(positions), no_move, tv, tc, None, again, threads
    )
    t2 = time.perf_counter()
    sol = Solution(o, r, b, m)
    return PythonGame(game, positions, index, sol, again is not None, t1 - t0, t2 - t1)


from . import chess, games, openspiel  # noqa: E402  (they use the classes above)
from ._parity import ParityGame, ParitySolution, parity, parse_pg, read_pg, verify_parity  # noqa: E402

del annotations  # the __future__ feature, which the import above made a module attribute

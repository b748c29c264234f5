"""The built-in games, solved by the engine (the same code as ``retrograde game NAME``).

Each function solves its game and returns a :class:`retrograde.Game`. With ``db=DIR`` the
solved tiers are kept in ``DIR`` (a database that ``retrograde.open``, ``retrograde query``
and ``retrograde serve`` read): a finished database there is opened instead of solved
again, an unfinished one is resumed. ``threads`` sets the worker threads (default: all
cores; the values are the same for every number). ``progress``: ``None`` (default) shows a
progress line on ``sys.stderr`` once a solve has taken more than a second, ``True`` from the
start, ``False`` never. The GIL is released while solving, and Ctrl-C interrupts (a
database keeps the tiers already finished).
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from . import Game, _retrograde

__all__ = [
    "connect4",
    "tictactoe",
    "quixo",
    "teeko",
    "chess",
    "pebbles",
    "police_thief",
    "game",
    "names",
]


def names() -> list[str]:
    """The names of every built-in game (as ``retrograde game --help`` lists them); those
    with parameters in :func:`game`."""
    return [e[0] for e in _retrograde.game_entries()]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple, set, frozenset)):
        return ",".join(str(x) for x in v)
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    return str(v)


def game(
    name: str,
    *,
    db: str | os.PathLike | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    **params: Any,
) -> Game:
    """Solves the built-in game ``name`` with its parameters as keyword arguments, named as
    on the command line (``game("connect4", width=5, height=4)``; a file parameter takes
    a path). Unknown parameters are a TypeError; values out of range a ValueError."""
    args = [(k, _text(v)) for k, v in params.items() if v is not None]
    return Game(
        _retrograde.game(name, args, None if db is None else os.fspath(db), threads, progress)
    )


def connect4(width: int = 5, height: int = 4, **kw: Any) -> Game:
    """Connect-4 on a ``width`` x ``height`` board; moves are column numbers ``"1"`` ..
    (1 = left). 5x4 solves in under a second, 5x5 and 6x4 in seconds."""
    return game("connect4", width=width, height=height, **kw)


def tictactoe(rows: int = 3, cols: int = 3, k: int = 3, **kw: Any) -> Game:
    """Tic-tac-toe and other m,n,k-games (``k`` in a row wins); moves are cells ``"b2"``
    (``a1`` bottom left)."""
    return game("tictactoe", rows=rows, cols=cols, k=k, **kw)


def quixo(size: int = 4, **kw: Any) -> Game:
    """Quixo (official rules) on a ``size`` x ``size`` board (3 or 4); a move is the cube
    taken and where it goes back in: ``"a1 a4"``."""
    return game("quixo", size=size, **kw)


def teeko(size: int = 5, pieces: int = 4, **kw: Any) -> Game:
    """Teeko (drop four pieces, then step them); drops are cells ``"c3"``, steps ``"c3-d4"``.
    The full game (size 5, 4 pieces) takes about a minute on 2 cores; ``teeko(4, 3)``
    seconds."""
    return game("teeko", size=size, pieces=pieces, **kw)


def chess(material: str, **kw: Any) -> Game:
    """A chess ending, ``material`` written white first (``"KQvK"``, ``"KRvKB"``, up to 5
    pieces), with every ending it converts into; values are depth to mate in plies for the
    side to move (stalemate and insufficient material tie; no castling, no 50-move rule).
    An ending has no start: ask by ``position=`` (a FEN), with ``moves`` (UCI) played from
    it, e.g. ``g.value(["b1f1"], position="8/8/8/4k3/8/8/8/KQ6 w - - 0 1")``."""
    return game("chess", material=material, **kw)


def pebbles(count: int = 10, take: Iterable[int] = (1, 2), misere: bool = False, **kw: Any) -> Game:
    """The pebble game: take ``take`` pebbles from a bag of ``count``; who cannot move loses
    (wins, ``misere``). Moves are named as ``retrograde play`` names them (``"take 2"``, or
    just ``"2"``); the game has no position notation (ask by moves)."""
    return game("pebbles", count=count, take=take, misere=misere, **kw)


def police_thief(map: str | os.PathLike, **kw: Any) -> Game:
    """The policeman and the thief on a map file (see ``retrograde game police-thief
    --help``). Moves are the policeman's and the thief's steps as ``retrograde play`` names
    them (``n ne e se s sw w nw stay``); ask by moves (no position notation)."""
    return game("police-thief", map=map, **kw)

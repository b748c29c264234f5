"""Chess tablebases: depth to mate for every position of the endings a database holds.

In the spirit of python-chess's ``chess.syzygy`` (which this module does not need: a board
is anything with a ``.fen()`` method, or a FEN string). Make a tablebase with the command
line, then probe it::

    $ retrograde game chess --up-to 4 --db tb4

>>> import retrograde.chess
>>> tb = retrograde.chess.open_tablebase("tb4")        # doctest: +SKIP
>>> tb.probe_wdl("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1")     # doctest: +SKIP
2
>>> tb.probe_dtm("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1")     # doctest: +SKIP
15

Values are for the side to move, without the 50-move rule: ``probe_wdl`` gives 2 (win), 0
(draw: stalemate, insufficient material or neither side can mate) or -2 (loss), as
Syzygy's WDL does when no cursed win or blessed loss is in play; ``probe_dtm`` the plies
to mate, positive when the side to move mates, negative when it is mated (0: checkmate,
or a draw: ``probe_wdl`` tells them apart). A position of an ending the tablebase does not
hold raises ``KeyError`` (``get_wdl`` and ``get_dtm`` return a default instead); one that
is no position (a bad FEN, castling rights, more than five pieces) ``ValueError``.
"""

from __future__ import annotations

import os as _os
import typing as _typing

from . import _retrograde

__all__ = ["Tablebase", "Probe", "open_tablebase"]


def _fen(board: _typing.Any) -> str:
    """A FEN from a string or from anything with a ``.fen()`` method (a python-chess
    board, say)."""
    if isinstance(board, str):
        return board
    fen = getattr(board, "fen", None)
    if fen is None or not callable(fen):
        raise TypeError(
            f"expected a FEN string or a board with a .fen() method, got {type(board).__name__}"
        )
    text = fen()
    if not isinstance(text, str):
        raise TypeError(f"{type(board).__name__}.fen() returned {type(text).__name__}, not str")
    return text


class Probe(_typing.NamedTuple):
    """Everything a tablebase knows of a position.

    ``value`` is a :class:`retrograde.Value` for the side to move (win, loss or tie in N
    plies, or draw); ``wdl`` and ``dtm`` as :meth:`Tablebase.probe_wdl` and
    :meth:`Tablebase.probe_dtm`; ``best`` the moves (UCI) that keep the value; ``moves``
    every legal move with its value for the mover, best first.
    """

    fen: str
    value: _typing.Any
    wdl: int
    dtm: int
    best: list
    moves: list


class Tablebase:
    """An open chess tablebase (see :func:`open_tablebase`)."""

    def __init__(self, native: _typing.Any, directory: str) -> None:
        self._native = native
        self.directory = directory

    @property
    def name(self) -> str:
        """What it was solved for: ``chess up to 4 pieces``, ``chess KQvK``."""
        return self._native.name

    def __repr__(self) -> str:
        return f"<retrograde.chess.Tablebase {self.directory!r}: {self.name}>"

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release early (blocks are read as asked); for ``with`` blocks."""

    def probe_wdl(self, board: _typing.Any) -> int:
        """2 when the side to move wins, 0 for a draw, -2 when it loses."""
        return self._native.wdl_dtm(_fen(board))[0]

    def probe_dtm(self, board: _typing.Any) -> int:
        """Plies to mate: positive when the side to move mates, negative when it is mated,
        0 for checkmate or a draw."""
        dtm = self._native.wdl_dtm(_fen(board))[1]
        return 0 if dtm is None else dtm

    def get_wdl(self, board: _typing.Any, default: _typing.Any = None) -> _typing.Any:
        """:meth:`probe_wdl`, or ``default`` outside the tablebase."""
        try:
            return self.probe_wdl(board)
        except KeyError:
            return default

    def get_dtm(self, board: _typing.Any, default: _typing.Any = None) -> _typing.Any:
        """:meth:`probe_dtm`, or ``default`` outside the tablebase."""
        try:
            return self.probe_dtm(board)
        except KeyError:
            return default

    def probe(self, board: _typing.Any) -> Probe:
        """The value, WDL, DTM and best moves of a position (see :class:`Probe`)."""
        from . import Value

        r = self._native.probe(_fen(board))
        fen, (code, rem), wdl, dtm, best, moves = r
        return Probe(
            fen=fen,
            value=Value._from_codes(code, rem),
            wdl=wdl,
            dtm=0 if dtm is None else dtm,
            best=list(best),
            moves=[(m, Value._from_codes(c, x)) for m, c, x in moves],
        )


def open_tablebase(directory: str | _os.PathLike) -> Tablebase:
    """Opens the tablebase that ``retrograde game chess ... --db DIRECTORY`` wrote (one
    ending with what it converts into, or ``--up-to N``: every ending of up to N pieces).

    Raises ``FileNotFoundError`` when there is no finished tablebase there, ``OSError``
    when one of its files is damaged.
    """
    path = _os.fspath(directory)
    return Tablebase(_retrograde.open_chess_tablebase(path), str(path))

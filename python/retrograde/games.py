"""The built-in games, solved by the engine (the same code as ``retrograde game NAME``).

There is one function per game of the registry (the list ``retrograde game --help``
prints), made when this module is imported: ``connect4``, ``tictactoe``, ``quixo``,
``teeko``, ``chess``, ``pebbles``, ``police_thief`` and the others (a ``-`` in a game's name
is a ``_`` here; ``names()`` lists them as the command line names them). A function takes
the game's parameters as the command line does (``connect4(width=5, height=4)``,
``chess("KQvK")``, ``tictactoe(3, 3, 3)``; a file parameter takes a path), and returns a
:class:`retrograde.Game`; ``help(retrograde.games.quixo)`` tells the rules, the notation and
the cost. A game added to the registry appears here with nothing written in Python.

Every function also takes, by keyword:

- ``db=DIR`` (tier games): keep the solved tiers in ``DIR``, a database that
  ``retrograde.open``, ``retrograde query`` and ``retrograde serve`` read; a finished
  database there is opened instead of solved again, an unfinished one is resumed;
- ``threads``: the worker threads (default: all cores; the values are the same for every
  number);
- ``progress``: ``None`` (default) shows a progress line on ``sys.stderr`` once a solve has
  taken more than a second, ``True`` from the start, ``False`` never;
- ``memory``: refuse to use more than this (bytes, or ``"20G"``), as ``--memory``;
- ``compact=True`` (tier games, with ``db``): as ``--compact``, keep one side to move of
  each table that has two (chess), about half the disk; every lookup answers as before.

Before anything big is allocated, the command line's memory plan refuses a game that would
not fit (``MemoryError``, with its message: ``quixo(size=5)`` needs about 2.3 TiB), and a
size no game supports is a ``ValueError``. The GIL is released while solving, and Ctrl-C
interrupts (a database keeps the tiers already finished).
"""

from __future__ import annotations

import inspect as _inspect
import os as _os
import typing as _typing

from . import Game as _Game
from . import _memory, _retrograde

if _typing.TYPE_CHECKING:
    from typing import Any, Callable


def names() -> list[str]:
    """The names of every built-in game, as the command line names them (``retrograde game
    --help`` lists them); each has a function here (``police-thief``: ``police_thief``)."""
    return [e["name"] for e in _retrograde.game_entries()]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple, set, frozenset)):
        return ",".join(str(x) for x in v)
    if isinstance(v, _os.PathLike):
        return _os.fspath(v)
    return str(v)


def game(
    name: str,
    *,
    db: str | _os.PathLike | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    memory: int | str | None = None,
    compact: bool = False,
    **params: Any,
) -> _Game:
    """Solves the built-in game ``name`` (as the command line names it) with its parameters
    as keyword arguments, named as on the command line (``game("connect4", width=5,
    height=4)``; a file parameter takes a path). Unknown parameters are a TypeError; values
    out of range a ValueError; a game too big for the memory a MemoryError."""
    args = [(k, _text(v)) for k, v in params.items() if v is not None]
    return _Game(
        _retrograde.game(
            name,
            args,
            None if db is None else _os.fspath(db),
            threads,
            progress,
            _memory(memory),
            bool(compact),
        )
    )


def _default(text: str | None, kind: str) -> Any:
    """A parameter's default as Python shows it in the signature."""
    if kind == "flag":
        return False
    if text is None:
        return _inspect.Parameter.empty
    if text == "":
        # Optional: absent unless given.
        return None
    if kind == "number":
        return int(text)
    if kind == "numbers":
        return tuple(int(x) for x in text.split(","))
    return text


def _function(entry: dict) -> Callable[..., _Game]:
    """The function of one registry entry: its parameters (positional or keyword, in the
    registry's order, required ones first), then ``db`` (tier games), ``threads``,
    ``progress`` and ``memory`` by keyword."""
    name = entry["name"]
    P = _inspect.Parameter
    params = [
        P(p.replace("-", "_"), P.POSITIONAL_OR_KEYWORD, default=_default(d, kind))
        for p, _help, d, kind in entry["params"]
    ]
    params.sort(key=lambda p: p.default is not P.empty)
    extra = ["threads", "progress", "memory"]
    if entry["tiered"]:
        extra[:0] = ["db", "compact"]
    params += [P(k, P.KEYWORD_ONLY, default=None) for k in extra]
    signature = _inspect.Signature(params, return_annotation="retrograde.Game")

    def solve(*args: Any, **kwargs: Any) -> _Game:
        # Only what was given goes to the engine, which applies the registry's defaults.
        # (None leaves an optional parameter out.)
        bound = signature.bind(*args, **kwargs).arguments
        given = {k: v for k, v in bound.items() if v is not None}
        options = {k: given.pop(k) for k in extra if k in given}
        return game(name, **options, **given)

    lines = [entry["about"][:1].upper() + entry["about"][1:] + ".", "", entry["help"], ""]
    lines.append("Parameters (as on the command line, `retrograde game %s --help`):" % name)
    for p, help_text, d, kind in entry["params"]:
        shown = "" if not d else f" (default {d})"
        lines.append(f"    {p.replace('-', '_')}: {help_text}{shown}")
    if entry["tiered"]:
        lines.append("    db: keep the solved tiers in this directory (a database).")
        lines.append("    compact: with db, keep one side to move of each table that has two.")
    lines.append("    threads, progress, memory: see the module's help.")
    if entry["moves"]:
        lines += ["", f"Moves (``Game.value``, ``Game.moves``): {entry['moves']}."]
    solve.__name__ = solve.__qualname__ = name.replace("-", "_")
    solve.__doc__ = "\n".join(lines)
    solve.__signature__ = signature  # type: ignore[attr-defined]
    solve.__module__ = __name__
    return solve


__all__ = ["game", "names"]
for _entry in _retrograde.game_entries():
    _f = _function(_entry)
    globals()[_f.__name__] = _f
    __all__.append(_f.__name__)
del _entry, _f, annotations

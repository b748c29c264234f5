"""OpenSpiel games solved by the engine.

``retrograde.openspiel.solve(game)`` takes a ``pyspiel`` game (or its name, such as
``"connect_four(rows=4,columns=4)"``) that is two-player, zero-sum, deterministic,
perfect-information and sequential, explores every state reachable from the initial state
and solves it exactly, with remoteness. ``pyspiel`` itself is only imported when a name is
given; ``pip install open-spiel`` provides it.
"""

from __future__ import annotations

import typing as _typing

from . import Outcome as _Outcome
from . import PythonGame as _PythonGame
from . import Value as _Value
from . import solve_game as _solve_game

if _typing.TYPE_CHECKING:
    from typing import Any

__all__ = ["solve", "SpielGame"]


def _check(game: Any) -> None:
    t = game.get_type()
    problems = []
    if game.num_players() != 2:
        problems.append(f"it has {game.num_players()} players (2 needed)")
    for attr, want, say in [
        ("utility", "ZERO_SUM", "zero-sum"),
        ("chance_mode", "DETERMINISTIC", "deterministic (no chance nodes)"),
        ("information", "PERFECT_INFORMATION", "of perfect information"),
        ("dynamics", "SEQUENTIAL", "sequential (one player moves at a time)"),
    ]:
        got = getattr(t, attr)
        if getattr(got, "name", str(got)).split(".")[-1] != want:
            problems.append(f"it is not {say}: {attr} is {getattr(got, 'name', got)}")
    if problems:
        raise ValueError(
            f"retrograde.openspiel.solve needs a two-player zero-sum deterministic perfect-information "
            f"sequential game; {t.short_name}: " + "; ".join(problems)
        )


class _Adapter:
    """An OpenSpiel game as a game of ``solve_game``: positions are keys ``(str(state),
    player to move)`` (as OpenSpiel's own exact solvers key states by their string), and a
    dict keeps one state per key. A terminal state's value is stated for player 0, so a move
    into it keeps the turn exactly when player 0 made it."""

    def __init__(self, game: Any):
        self.game = game
        self.states: dict = {}

    def _key(self, state: Any) -> tuple[str, int]:
        k = (str(state), state.current_player())
        self.states.setdefault(k, state)
        return k

    def start(self):
        return self._key(self.game.new_initial_state())

    def moves(self, k):
        s = self.states[k]
        p = s.current_player()
        return {s.action_to_string(p, a): self._key(s.child(a)) for a in s.legal_actions()}

    def primitive(self, k):
        s = self.states[k]
        if not s.is_terminal():
            return None
        r = s.returns()[0]
        return "win" if r > 0 else "loss" if r < 0 else "tie"

    def _perspective(self, k) -> int:
        return 0 if self.states[k].is_terminal() else k[1]

    def keeps_turn(self, p, q) -> bool:
        return self._perspective(p) == self._perspective(q)


class SpielGame(_PythonGame):
    """A solved OpenSpiel game: :class:`retrograde.PythonGame`'s queries, with moves named
    by ``state.action_to_string``; a value is for the player to move (for player 0 at a
    terminal state). Also ``returns(moves)`` and ``state_values()`` in OpenSpiel's terms."""

    @property
    def name(self) -> str:
        """OpenSpiel's name of the game, with its parameters."""
        return str(self.game.game)

    def _player(self, k) -> int:
        return self.game._perspective(k)

    def returns(self, moves: Any = None) -> list[float]:
        """Each player's return under perfect play from the position after ``moves``:
        ``[1.0, -1.0]`` when player 0 wins, ``[-1.0, 1.0]`` when player 1 does, ``[0.0, 0.0]``
        for a tie (or a game that never ends)."""
        k = self.position(moves)
        v0 = _value_for(self.value_of(k), self._player(k), 0)
        return [v0, -v0 + 0.0]

    def state_values(self) -> dict[str, float]:
        """Player 0's value of every state, keyed by ``str(state)``: the shape of OpenSpiel's
        ``value_iteration`` result (+1 / -1 / 0)."""
        sol = self.solution
        out = {}
        for i, k in enumerate(self.positions_list):
            v = _Value._from_codes(sol.outcome[i], sol.remoteness[i])
            out[k[0]] = _value_for(v, self._player(k), 0)
        return out


def _value_for(v: _Value, mover: int, player: int) -> float:
    if v.outcome == _Outcome.WIN:
        return 1.0 if mover == player else -1.0
    if v.outcome == _Outcome.LOSS:
        return -1.0 if mover == player else 1.0
    return 0.0


def solve(game: Any, *, threads: int | None = None, progress: bool | None = None) -> SpielGame:
    """Explores every state of an OpenSpiel game reachable from its initial state and solves
    it exactly.

    Args:
        game: a ``pyspiel.Game``, or a name for ``pyspiel.load_game``.

    Returns:
        A :class:`SpielGame`: ``start_value``, ``positions``, ``value(moves=[...])`` and
        ``moves(moves=[...])`` with OpenSpiel's action strings (``"x(1,1)"`` in tic-tac-toe,
        ``"x0"`` in connect four), ``returns``, ``state_values``.

    Raises:
        ValueError: a game that is not two-player, zero-sum, deterministic, of perfect
            information and sequential (the message says which).
    """
    if isinstance(game, str):
        import pyspiel

        game = pyspiel.load_game(game)
    _check(game)
    g = _solve_game(_Adapter(game), threads=threads, progress=progress)
    g.__class__ = SpielGame
    return g  # type: ignore[return-value]

del annotations  # the __future__ feature, a module attribute otherwise

"""Type stubs of the `retrograde` package (the docstrings live in the modules)."""

import enum
import os
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

__all__: list[str]

from . import games as games
from . import chess as chess
from . import openspiel as openspiel

_Edges = npt.ArrayLike | str | os.PathLike[str] | Any  # an (m, 2) array, pairs, a networkx DiGraph, a path
_Moves = Sequence[str] | str | None

class Outcome(enum.IntEnum):
    WIN = 0
    LOSS = 1
    TIE = 2
    DRAW = 3

class Value:
    outcome: Outcome
    remoteness: int | None
    score: int | None
    def __init__(
        self, outcome: Outcome | int | str, remoteness: int | None = ..., score: int | None = ...
    ) -> None: ...
    @classmethod
    def win(cls, r: int) -> Value: ...
    @classmethod
    def loss(cls, r: int) -> Value: ...
    @classmethod
    def tie(cls, r: int) -> Value: ...
    @classmethod
    def draw(cls) -> Value: ...
    @classmethod
    def scored(cls, score: int, r: int | None) -> Value: ...
    @classmethod
    def parse(cls, text: str) -> Value: ...
    def through(self, keeps_turn: bool = ...) -> Value: ...
    def __lt__(self, other: Value) -> bool: ...
    def __le__(self, other: Value) -> bool: ...
    def __gt__(self, other: Value) -> bool: ...
    def __ge__(self, other: Value) -> bool: ...
    def __hash__(self) -> int: ...

class Solution:
    outcome: npt.NDArray[np.uint8]
    remoteness: npt.NDArray[np.int64]
    best_move: npt.NDArray[np.int64]
    edges: int
    nodes: list[Any] | None
    names: list[str] | None
    start: int | None
    score: npt.NDArray[np.int64] | None
    def __len__(self) -> int: ...
    def value(self, v: Any) -> Value: ...
    def line(self, v: Any) -> list[Any]: ...
    def summary(self) -> dict[str, int | None]: ...

class Grundy:
    values: npt.NDArray[np.int64]
    outcome: npt.NDArray[np.uint8]
    nodes: list[Any] | None
    def __len__(self) -> int: ...
    def value(self, v: Any) -> int | str: ...
    def kset(self, v: Any) -> tuple[int, ...] | None: ...

class Game:
    stats: dict[str, Any]
    report_lines: list[str]
    @property
    def name(self) -> str: ...
    @property
    def start_value(self) -> Value | None: ...
    @property
    def positions(self) -> int | None: ...
    def value(self, moves: _Moves = ..., *, position: str | None = ...) -> Value: ...
    def moves(self, moves: _Moves = ..., *, position: str | None = ...) -> list[tuple[str, Value]]: ...
    def position(self, moves: _Moves = ...) -> str: ...
    def query(self, moves: _Moves = ..., *, position: str | None = ...) -> dict[str, Any]: ...
    def show(self, moves: _Moves = ...) -> str: ...

class PythonGame:
    game: Any
    positions_list: list[Any]
    solution: Solution
    explore_seconds: float
    solve_seconds: float
    @property
    def name(self) -> str: ...
    @property
    def positions(self) -> int: ...
    @property
    def start_value(self) -> Value: ...
    @property
    def stats(self) -> dict[str, int | None]: ...
    def value_of(self, position: Any) -> Value: ...
    def position(self, moves: _Moves = ...) -> Any: ...
    def value(self, moves: _Moves = ...) -> Value: ...
    def moves(self, moves: _Moves = ...) -> list[tuple[str, Value]]: ...

def solve(
    edges: _Edges,
    n_vertices: int | None = ...,
    *,
    no_move: str = ...,
    terminal: Mapping[int, str | Outcome] | Iterable[tuple[int, str | Outcome]] | None = ...,
    owners: Sequence[int] | npt.NDArray[Any] | None = ...,
    go_again: Sequence[bool] | npt.NDArray[Any] | None = ...,
    threads: int | None = ...,
    format: str = ...,
    memory: int | str | None = ...,
) -> Solution: ...
def grundy(
    edges: _Edges,
    n_vertices: int | None = ...,
    *,
    terminal: Mapping[int, str] | None = ...,
    format: str = ...,
    memory: int | str | None = ...,
) -> Grundy: ...
def open(db: str | os.PathLike[str]) -> Game: ...
def solve_game(
    game: Any,
    *,
    no_move: str = ...,
    threads: int | None = ...,
    progress: bool | None = ...,
    max_positions: int | None = ...,
) -> PythonGame: ...

from ._parity import ParityGame as ParityGame
from ._parity import ParitySolution as ParitySolution
from ._parity import parity as parity
from ._parity import parse_pg as parse_pg
from ._parity import read_pg as read_pg
from ._parity import verify_parity as verify_parity

import os
from typing import Any, Callable

from . import Game

__all__: list[str]

def names() -> list[str]: ...
def game(
    name: str,
    *,
    db: str | os.PathLike[str] | None = ...,
    threads: int | None = ...,
    progress: bool | None = ...,
    memory: int | str | None = ...,
    compact: bool = ...,
    **params: Any,
) -> Game: ...

# One function per game of the registry (connect4, tictactoe, quixo, teeko, chess, pebbles,
# police_thief, ...), made at import: their parameters are the game's (`help()` shows them).
def __getattr__(name: str) -> Callable[..., Game]: ...

"""autoplay: a Minesweeper bot that proves which cells are safe with Z3.

The public API is re-exported here; each concern lives in its own module. The modules load
when a name is first used, so that the ``autoplay`` command starts (and takes Ctrl-C) before
Z3, OpenCV and NumPy are imported.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

# NumPy's BLAS on one thread unless told otherwise, set before NumPy loads: autoplay's
# matrix products are small (a cell's area means, cells against templates), and OpenBLAS's
# threads, spinning between them, contend with a second process (a test worker, the game).
# Two locates of GNOME Mines' 30x16 at 1440x868 side by side took 51 s each with its
# threads, 15 to 16 s without; one alone about the same either way.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from autoplay.board import Board, Cell
    from autoplay.deduction import Deduction, deduce, find_layout
    from autoplay.errors import AutoplayError, BoardFormatError, InconsistentBoard
    from autoplay.locate import locate_board, read_screenshot
    from autoplay.odds import count_layouts, mine_probabilities
    from autoplay.player import Game, GameResult, play
    from autoplay.sim import KaboomGame, SimGame
    from autoplay.stats import StatsStore
    from autoplay.vision import Geometry, Reading, Skin, read_board

_HOMES = {
    "board": ("Board", "Cell"),
    "deduction": ("Deduction", "deduce", "find_layout"),
    "errors": ("AutoplayError", "BoardFormatError", "InconsistentBoard"),
    "locate": ("locate_board", "read_screenshot"),
    "odds": ("count_layouts", "mine_probabilities"),
    "player": ("Game", "GameResult", "play"),
    "sim": ("KaboomGame", "SimGame"),
    "stats": ("StatsStore",),
    "vision": ("Geometry", "Reading", "Skin", "read_board"),
}
"""The module each public name lives in (the imports above say the same to type checkers,
and ``__all__`` below lists the names: a test holds the three together)."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AutoplayError",
    "Board",
    "BoardFormatError",
    "Cell",
    "Deduction",
    "Game",
    "GameResult",
    "Geometry",
    "InconsistentBoard",
    "KaboomGame",
    "Reading",
    "SimGame",
    "Skin",
    "StatsStore",
    "count_layouts",
    "deduce",
    "find_layout",
    "locate_board",
    "mine_probabilities",
    "play",
    "read_board",
    "read_screenshot",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'autoplay' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"autoplay.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

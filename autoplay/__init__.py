"""autoplay: a Minesweeper bot that proves which cells are safe with Z3.

The public API is re-exported here; each concern lives in its own module.
"""

from autoplay.board import Board, Cell
from autoplay.deduce import Deduction, count_layouts, deduce, find_layout
from autoplay.errors import AutoplayError, BoardFormatError, InconsistentBoard

__all__ = [
    "AutoplayError",
    "Board",
    "BoardFormatError",
    "Cell",
    "Deduction",
    "InconsistentBoard",
    "count_layouts",
    "deduce",
    "find_layout",
]

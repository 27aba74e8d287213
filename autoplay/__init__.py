"""autoplay: a Minesweeper bot that proves which cells are safe with Z3.

The public API is re-exported here; each concern lives in its own module.
"""

from autoplay.board import Board, Cell
from autoplay.deduce import Deduction, deduce, find_layout
from autoplay.errors import AutoplayError, BoardFormatError, InconsistentBoard
from autoplay.locate import locate_board, read_screenshot
from autoplay.odds import count_layouts, mine_probabilities
from autoplay.player import Game, GameResult, play
from autoplay.sim import KaboomGame, SimGame
from autoplay.stats import StatsStore
from autoplay.vision import Geometry, Reading, Skin, read_board

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

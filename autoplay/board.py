"""The board: a plain, immutable grid of cell states, its text format, and the 3BV of a
layout (:func:`three_bv`), the measure of how much clicking a board takes.

Everything else in autoplay either produces a :class:`Board` (the text parser, the simulator,
the screen reader) or consumes one (the deducer, the player), so it knows nothing of pixels,
solvers or games.

The text format, one row per line::

    mines: 10        optional first line: the total number of mines
    0-8              an opened cell showing its count
    .  _  ?          an unopened cell
    F                a flag (taken as a mine)
    *                a known mine
    X                an exploded mine (the one that ended a lost game)
    W                a wrongly placed flag (shown by some games after a loss: not a mine)

Blank lines and spaces are ignored, so ``. . 1`` and ``..1`` are the same row.

>>> board = Board.parse('''
... mines: 2
... 1?
... ?F
... ''')
>>> board.width, board.height, board.mines
(2, 2, 2)
>>> board[Cell(1, 1)] == FLAG
True
>>> print(board)
mines: 2
1.
.F
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from autoplay.errors import BoardFormatError, ImpossibleCount, numbered_lines, plural

UNKNOWN = -1
"""An unopened cell with nothing known about it."""
FLAG = -2
"""A flagged cell: taken as a mine, though a player's flag can be wrong."""
MINE = -3
"""A cell known to hold a mine (shown by the game, or given in a puzzle)."""
EXPLODED = -4
"""The mine that was clicked and ended the game."""
WRONG_FLAG = -5
"""A flag the game shows as wrong after a loss: the cell holds no mine."""

_CHAR_OF_STATE = {UNKNOWN: ".", FLAG: "F", MINE: "*", EXPLODED: "X", WRONG_FLAG: "W"}
_STATE_OF_CHAR = {".": UNKNOWN, "_": UNKNOWN, "?": UNKNOWN, "F": FLAG, "*": MINE,
                  "X": EXPLODED, "W": WRONG_FLAG}
_STATE_OF_CHAR.update({str(n): n for n in range(10)})
_CELLS = ("a cell is 0-8, '.', '_' or '?' unopened, 'F' a flag, '*' a mine, 'X' a mine gone "
          "off or 'W' a wrong flag")
"""The cells of a text board, for an error about one."""
_MINES_LINE = re.compile(r"mines\s*[:=]\s*(.*?)\s*$", re.IGNORECASE)
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")
"""A mine count as written: ASCII digits (``str.isdigit`` takes '²' too, which ``int``
refuses), few enough for any board, and for ``int``'s bound on the digits it converts."""


def _shortened(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for an error line, marked where it was cut."""
    return text if len(text) <= limit else text[:limit] + "..."


class Cell(NamedTuple):
    """A cell's position, zero-based, row first (as a text board is read)."""

    row: int
    col: int


@lru_cache(maxsize=64)
def neighbour_table(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """For each flat index of a ``width`` x ``height`` grid, the flat indices of its neighbours.

    Cached per shape: the deducer and the simulator look neighbours up millions of times.
    """
    def offsets(row: int, col: int) -> tuple[int, ...]:
        """How far the neighbours of the cell at ``row``, ``col`` lie, in flat indices."""
        return tuple(dr * width + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                     if (dr, dc) != (0, 0) and 0 <= row + dr < height and 0 <= col + dc < width)

    table = []
    for row in range(height):
        # A row's cells but its first and last all have their neighbours at the same offsets.
        first, last = offsets(row, 0), offsets(row, width - 1)
        inner = offsets(row, min(1, width - 1))
        start = row * width
        for col in range(width):
            around = first if col == 0 else last if col == width - 1 else inner
            table.append(tuple(map((start + col).__add__, around)))
    return tuple(table)


def is_mine_like(state: int) -> bool:
    """True for the states the deducer takes as a mine: flags, known and exploded mines."""
    return state in (FLAG, MINE, EXPLODED)


@dataclass(frozen=True, slots=True)
class Board:
    """A Minesweeper position: a grid of cell states and, when known, the total mine count.

    ``states`` is row-major; each state is a count 0-8 or one of the constants
    :data:`UNKNOWN`, :data:`FLAG`, :data:`MINE`, :data:`EXPLODED`, :data:`WRONG_FLAG`.
    ``mines`` counts every mine of the board, flagged or not.
    """

    width: int
    height: int
    states: tuple[int, ...]
    mines: int | None = None
    _neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise BoardFormatError(f"a board needs at least one row and one column, "
                                   f"got {self.width}x{self.height}")
        if len(self.states) != self.width * self.height:
            raise BoardFormatError(f"{self.width}x{self.height} board needs "
                                   f"{self.width * self.height} states, got {len(self.states)}")
        if self.mines is not None and self.mines < 0:
            raise BoardFormatError(f"the mine count cannot be negative, got {self.mines}")
        object.__setattr__(self, "_neighbours", neighbour_table(self.width, self.height))

    @classmethod
    def empty(cls, width: int, height: int, mines: int | None = None) -> Board:
        """A board with every cell unopened, as at the start of a game."""
        return cls(width, height, (UNKNOWN,) * (width * height), mines)

    @classmethod
    def parse(cls, text: str, *, mines: int | None = None) -> Board:
        """Parse the text format (see the module docstring).

        ``mines``, when given, overrides a ``mines: N`` line.

        :raises BoardFormatError: naming the line and column of the first fault; a count
            larger than its cell's neighbourhood raises :class:`ImpossibleCount`, which is
            also an :class:`InconsistentBoard`.

        >>> Board.parse("1?")
        Board.parse('1.')
        >>> Board.parse("1.\\n.")
        Traceback (most recent call last):
        ...
        autoplay.errors.BoardFormatError: line 2: row has 1 cell, expected 2 (as in line 1): '.'
        """
        rows: list[list[int]] = []
        first_line: int | None = None
        header_mines: int | None = None
        positions: list[tuple[int, list[int]]] = []  # (line number, column of each cell)
        for number, line in numbered_lines(text):
            if not line.strip():
                continue
            header = _MINES_LINE.match(line.strip())
            if header:
                if header_mines is not None:
                    raise BoardFormatError(f"line {number}: a second 'mines:' line (a board "
                                           f"has one, before its rows)")
                if rows:
                    raise BoardFormatError(f"line {number}: 'mines:' must be the first line")
                if not _WHOLE_NUMBER.fullmatch(header.group(1)):
                    raise BoardFormatError(f"line {number}: the mine count must be a whole "
                                           f"number of at most 18 digits: "
                                           f"{_shortened(line.strip())!r}")
                header_mines = int(header.group(1))
                continue
            row: list[int] = []
            columns: list[int] = []
            for column, char in enumerate(line, start=1):
                if char.isspace():
                    continue
                state = _STATE_OF_CHAR.get(char)
                if state is None:
                    raise BoardFormatError(f"line {number}, column {column}: unknown cell "
                                           f"character {char!r} in "
                                           f"{_shortened(line.strip())!r} ({_CELLS})")
                row.append(state)
                columns.append(column)
            if rows and len(row) != len(rows[0]):
                raise BoardFormatError(
                    f"line {number}: row has {plural(len(row), 'cell')}, expected {len(rows[0])} "
                    f"(as in line {first_line}): {_shortened(line.strip())!r}")
            if not rows:
                first_line = number
            rows.append(row)
            positions.append((number, columns))
        if not rows:
            raise BoardFormatError("empty board: no rows")
        states = tuple(state for row in rows for state in row)
        board = cls(len(rows[0]), len(rows), states, header_mines if mines is None else mines)
        for r, (row, (number, columns)) in enumerate(zip(rows, positions)):
            for c, state in enumerate(row):
                room = len(board.neighbour_indices(r * board.width + c))
                if state > room:
                    raise ImpossibleCount(
                        f"line {number}, column {columns[c]}: count {state} is larger than the "
                        f"cell's {plural(room, 'neighbour')}, so no mine layout fits", board)
        return board

    def __str__(self) -> str:
        lines = [] if self.mines is None else [f"mines: {self.mines}"]
        for r in range(self.height):
            row = self.states[r * self.width:(r + 1) * self.width]
            lines.append("".join(state_char(state) for state in row))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board.parse({str(self)!r})"

    def __getitem__(self, cell: Cell) -> int:
        return self.states[self.index(cell)]

    def index(self, cell: Cell) -> int:
        """The flat, row-major index of ``cell``."""
        row, col = cell
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise IndexError(f"{cell} is outside the {self.width}x{self.height} board")
        return row * self.width + col

    def cell(self, index: int) -> Cell:
        """The cell at a flat, row-major index."""
        return Cell(*divmod(index, self.width))

    def cells(self) -> Iterator[Cell]:
        """Every cell, row by row."""
        return (Cell(r, c) for r in range(self.height) for c in range(self.width))

    def neighbours(self, cell: Cell) -> list[Cell]:
        """The up to eight cells around ``cell``."""
        return [self.cell(i) for i in self._neighbours[self.index(cell)]]

    def neighbour_indices(self, index: int) -> tuple[int, ...]:
        """The flat indices of the neighbours of the cell at flat ``index``."""
        return self._neighbours[index]

    def unknown_cells(self) -> list[Cell]:
        """The unopened cells that are neither flagged nor known to be mines or safe."""
        return [self.cell(i) for i, s in enumerate(self.states) if s == UNKNOWN]

    def is_new(self) -> bool:
        """True when no cell shows a count: a game whose first click is still to come (a
        flag may be set already).

        >>> Board.parse("F.\\n..").is_new(), Board.parse("1.\\n..").is_new()
        (True, False)
        """
        return all(s < 0 for s in self.states)

    def flags(self) -> list[Cell]:
        """The flagged cells."""
        return [self.cell(i) for i, s in enumerate(self.states) if s == FLAG]

    def without_flags(self) -> Board:
        """A copy with every flag taken off: flags are a player's opinion, not a proof.

        >>> Board.parse("F1\\n..").without_flags()
        Board.parse('.1\\n..')
        """
        return self.with_states({cell: UNKNOWN for cell in self.flags()})

    def with_states(self, changes: Mapping[Cell, int]) -> Board:
        """A copy with the given cells set to new states."""
        states = list(self.states)
        for cell, state in changes.items():
            states[self.index(cell)] = state
        return Board(self.width, self.height, tuple(states), self.mines)

    def with_mines(self, mines: int | None) -> Board:
        """A copy with another total mine count (or none)."""
        return Board(self.width, self.height, self.states, mines)


def state_char(state: int) -> str:
    """The text-format character of a cell state."""
    return str(state) if state >= 0 else _CHAR_OF_STATE[state]


def three_bv(width: int, height: int, mines: Collection[Cell]) -> int:
    """The 3BV of a layout: the fewest clicks that clear it, the community's difficulty.

    Every opening (a connected region of zeros, with the counts around it) takes one click,
    and every safe cell no opening reaches takes one more.

    >>> three_bv(3, 3, {Cell(0, 0)}), three_bv(3, 1, {Cell(0, 1)}), three_bv(3, 1, set())
    (1, 2, 1)
    """
    table = neighbour_table(width, height)
    mine_at = [False] * (width * height)
    for row, col in mines:
        mine_at[row * width + col] = True
    zero = [not mine and not any(mine_at[j] for j in around)
            for mine, around in zip(mine_at, table)]
    reached = [False] * (width * height)
    clicks = 0
    for i, is_zero in enumerate(zero):
        if not is_zero or reached[i]:
            continue
        clicks += 1
        reached[i] = True
        stack = [i]
        while stack:
            for j in table[stack.pop()]:
                if not reached[j]:
                    reached[j] = True
                    if zero[j]:
                        stack.append(j)
    return clicks + sum(1 for i, mine in enumerate(mine_at) if not mine and not reached[i])

"""A brute-force oracle: every assignment of mines to the unknown cells, checked one by one.

Deliberately naive (nothing shared with autoplay.deduction but the Board), so agreement means
something. Vectorised with numpy to test thousands of small positions in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from autoplay.board import EXPLODED, FLAG, MINE, UNKNOWN, WRONG_FLAG, Board, Cell

MINE_LIKE = frozenset({FLAG, MINE, EXPLODED})
"""The states that hold a mine: flags, mines shown and the one gone off (a wrong flag holds
none). Written here, not taken from the Board's module, so that a fault there shows."""

MAX_UNKNOWN = 14


@dataclass(frozen=True)
class Truth:
    """What holds in every layout that fits, found by enumerating them all."""

    layouts: int
    safe: frozenset[Cell]
    mines: frozenset[Cell]
    mined_in: dict[Cell, int]
    """For each unknown cell, how many of the layouts put a mine on it."""
    fitting: frozenset[frozenset[Cell]] = frozenset()
    """Every layout: its mined unknown cells."""


def enumerate_layouts(board: Board) -> Truth:
    """Count the layouts that fit and find the cells fixed in all of them."""
    unknown = [i for i, s in enumerate(board.states) if s == UNKNOWN]
    if len(unknown) > MAX_UNKNOWN:
        raise ValueError(f"{len(unknown)} unknown cells is too many to enumerate")
    column = {cell: k for k, cell in enumerate(unknown)}
    n = len(unknown)
    assignments = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    fits = np.ones(2 ** n, dtype=bool)
    fixed_mines = sum(1 for s in board.states if s in MINE_LIKE)
    for i, state in enumerate(board.states):
        if state < 0:
            continue
        around = board.neighbour_indices(i)
        known = sum(1 for j in around if board.states[j] in MINE_LIKE)
        columns = [column[j] for j in around if j in column]
        fits &= assignments[:, columns].sum(axis=1) + known == state
    if board.mines is not None:
        fits &= assignments.sum(axis=1) + fixed_mines == board.mines
    fitting = assignments[fits]
    if len(fitting) == 0:
        return Truth(0, frozenset(), frozenset(), {})
    always_safe = ~fitting.any(axis=0)
    always_mine = fitting.all(axis=0)
    return Truth(
        len(fitting),
        frozenset(board.cell(unknown[k]) for k in range(n) if always_safe[k]),
        frozenset(board.cell(unknown[k]) for k in range(n) if always_mine[k]),
        {board.cell(unknown[k]): int(mined) for k, mined in enumerate(fitting.sum(axis=0))},
        frozenset(frozenset(board.cell(unknown[k]) for k in range(n) if row[k])
                  for row in fitting),
    )


@st.composite
def strips(draw: st.DrawFn) -> Board:
    """A board one or two rows tall cut from a random layout, its total count given: cut
    into several components by the opened cells, with cells between them that touch no
    count, so that the counting of components against the total is what decides."""
    width, height = draw(st.integers(3, MAX_UNKNOWN)), draw(st.integers(1, 2))
    cells = [Cell(r, c) for r in range(height) for c in range(width)]
    at_least = max(1, len(cells) - MAX_UNKNOWN)  # opened, to keep the enumeration small
    mines = set(draw(st.lists(st.sampled_from(cells), unique=True,
                              max_size=len(cells) - at_least)))
    safe = [cell for cell in cells if cell not in mines]
    opened = draw(st.lists(st.sampled_from(safe), unique=True, min_size=at_least,
                           max_size=len(safe)))
    empty = Board.empty(width, height, mines=len(mines))
    return empty.with_states({cell: sum(n in mines for n in empty.neighbours(cell))
                              for cell in opened})


def assert_layout_fits(board: Board, layout: frozenset[Cell]) -> None:
    """Check a layout against every shown state of the board, and its total when known."""
    for cell in board.cells():
        state = board[cell]
        if state >= 0:
            assert cell not in layout
            assert sum(n in layout for n in board.neighbours(cell)) == state
        elif state in MINE_LIKE:
            assert cell in layout
        elif state == WRONG_FLAG:
            assert cell not in layout
    if board.mines is not None:
        assert len(layout) == board.mines

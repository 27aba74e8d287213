"""The additions the player and Kaboom need from the deducer: ``quick`` and random layouts."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.board import MINE, Board, Cell
from autoplay.deduce import deduce, find_layout
from autoplay.sim import SimGame


def _position(width: int, height: int, mines: int, seed: int, opened: int) -> Board:
    """A position from a real game: a few safe cells of a random layout opened."""
    rng = random.Random(seed)
    game = SimGame(width, height, mines, rng=rng)
    game.reveal(Cell(0, 0))
    layout = game.layout
    assert layout is not None
    safe = sorted(set(game.observe().cells()) - layout)
    for cell in rng.sample(safe, min(opened, len(safe))):
        if game.outcome == "playing":
            game.reveal(cell)
    return game.observe()


def _fits(board: Board, layout: frozenset[Cell]) -> bool:
    """Every count equals the mines around it, and the total is the board's."""
    return (board.mines is None or len(layout) == board.mines) and all(
        board[cell] == sum(n in layout for n in board.neighbours(cell))
        for cell in board.cells() if board[cell] >= 0)


positions = st.builds(_position, st.integers(3, 7), st.integers(3, 7), st.integers(1, 8),
                      st.integers(0, 10**6), st.integers(0, 4))


@settings(max_examples=60, deadline=None)
@given(positions, st.booleans())
def test_quick_proves_a_subset_and_stops_only_with_a_safe_cell(board: Board,
                                                               count_known: bool) -> None:
    board = board if count_known else board.with_mines(None)
    quick, full = deduce(board, quick=True), deduce(board)
    assert quick.safe <= full.safe and quick.mines <= full.mines
    if quick.is_complete():
        assert quick == full
    else:
        assert quick.has_safe()
        assert quick.safe | quick.mines | quick.undecided == frozenset(board.unknown_cells())


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_a_random_layout_fits_and_honours_the_required_cells(board: Board, seed: int) -> None:
    rng = random.Random(seed)
    cell = rng.choice(board.unknown_cells())
    full = deduce(board)
    if cell not in full.mines:
        layout = find_layout(board, safe=[cell], rng=rng)
        assert layout is not None and cell not in layout and _fits(board, layout)
    if cell not in full.safe:
        layout = find_layout(board, mines=[cell], rng=rng)
        assert layout is not None and cell in layout
        assert _fits(board.with_states({cell: MINE}), layout)


def test_an_impossible_requirement_has_no_layout() -> None:
    board = Board.parse("mines: 1\n?1?")
    assert find_layout(board, safe=[Cell(0, 0), Cell(0, 2)]) is None
    assert find_layout(board, mines=[Cell(0, 0), Cell(0, 2)]) is None


def test_a_random_layout_depends_on_the_seed_alone() -> None:
    board = _position(8, 8, 10, seed=5, opened=2)
    first = [find_layout(board, rng=random.Random(seed)) for seed in range(12)]
    # Other Z3 work in between changes Z3's internal state, but not what is possible.
    deduce(_position(7, 7, 9, seed=6, opened=3))
    again = [find_layout(board, rng=random.Random(seed)) for seed in range(12)]
    assert first == again
    assert len(set(first)) > 6

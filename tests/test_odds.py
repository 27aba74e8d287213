"""Exact mine probabilities, checked against brute-force enumeration of every layout."""

from __future__ import annotations

import logging
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from autoplay.bench import expert_positions
from autoplay.board import FLAG, Board, Cell, is_mine_like
from autoplay.deduction import Problem
from autoplay.errors import InconsistentBoard
from autoplay.odds import (
    ASSUMED_DENSITY,
    CLASSIC_MINES,
    LayoutCounter,
    assume_mines,
    lowest_probability_guess,
    mine_probabilities,
)
from tests.brute import enumerate_layouts, strips
from tests.test_interrupts import large_board


def _brute_force(board: Board) -> dict[Cell, Fraction]:
    """Each unknown cell's share of the layouts that put a mine on it, by enumerating all."""
    truth = enumerate_layouts(board)
    assert truth.layouts, "the strategy only builds boards some layout fits"
    return {cell: Fraction(mined, truth.layouts) for cell, mined in truth.mined_in.items()}


@st.composite
def small_boards(draw: st.DrawFn) -> Board:
    """A board cut from a random layout: some safe cells opened, maybe some mines flagged,
    at most 12 cells left unknown (so the brute force stays small)."""
    width, height = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    cells = [Cell(r, c) for r in range(height) for c in range(width)]
    mines = set(draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells))))
    flagged = draw(st.lists(st.sampled_from(sorted(mines)), unique=True)) if mines else []
    safe = [cell for cell in cells if cell not in mines]
    at_least = min(len(safe), max(0, len(cells) - len(flagged) - 12))
    opened = draw(st.lists(st.sampled_from(safe), unique=True, min_size=at_least,
                           max_size=len(safe))) if safe else []
    assume(len(cells) - len(opened) - len(flagged) <= 12)
    empty = Board.empty(width, height)
    states = {cell: sum(n in mines for n in empty.neighbours(cell)) for cell in opened}
    states.update({cell: FLAG for cell in flagged})
    return empty.with_states(states).with_mines(len(mines) if draw(st.booleans()) else None)


@settings(max_examples=300, deadline=None)
@given(small_boards())
def test_probabilities_are_exactly_those_of_brute_force(board: Board) -> None:
    odds = mine_probabilities(board)
    assert odds.exact
    assert dict(odds.probabilities) == _brute_force(board)


@settings(max_examples=300, deadline=None)
@given(strips())
def test_probabilities_weigh_components_against_the_total_as_brute_force(board: Board
                                                                         ) -> None:
    # Strips split into several components with cells between them that touch no count.
    odds = mine_probabilities(board)
    assert odds.exact
    assert dict(odds.probabilities) == _brute_force(board)


@settings(max_examples=100, deadline=None)
@given(small_boards(), st.integers(0, 2**32))
def test_the_guess_has_the_lowest_probability(board: Board, seed: int) -> None:
    reference = _brute_force(board)
    if min(reference.values(), default=1) == 1:  # no cell left that can be safe
        with pytest.raises(ValueError, match="no unknown cell can be safe"):
            lowest_probability_guess(board, random.Random(seed))
        return
    guess = lowest_probability_guess(board, random.Random(seed))
    assert guess.probability == reference[guess.cell] == min(reference.values())


def test_a_tie_goes_to_the_cell_with_fewest_unopened_neighbours() -> None:
    board = Board.empty(6, 5, mines=7)
    corners = {Cell(0, 0), Cell(0, 5), Cell(4, 0), Cell(4, 5)}
    chosen = {lowest_probability_guess(board, random.Random(seed)).cell for seed in range(40)}
    assert chosen == corners


def test_a_lower_probability_beats_a_better_tie_break() -> None:
    # The corner (0, 3) is likelier a mine (1 of the 2 cells beside the 1) than a cell
    # of the open middle of the board.
    board = Board.parse("mines: 2\n??1?\n??1?\n????\n????")
    odds = mine_probabilities(board).probabilities
    guess = lowest_probability_guess(board, random.Random(0))
    assert guess.probability == min(odds.values()) < odds[Cell(0, 3)]


def test_past_the_work_bound_an_estimate_is_logged_and_marked(
        caplog: pytest.LogCaptureFixture) -> None:
    board = Board.parse("mines: 3\n1?1?\n????\n????")
    with caplog.at_level(logging.WARNING, logger="autoplay.odds"):
        odds = mine_probabilities(board, budget=2)
        guess = lowest_probability_guess(board, random.Random(0), budget=2)
    assert not odds.exact and not guess.exact
    assert set(odds.probabilities) == set(board.unknown_cells())
    assert all(0 <= p <= 1 for p in odds.probabilities.values())
    assert "ESTIMATE, NOT EXACT" in caplog.text
    assert mine_probabilities(board).exact


@settings(max_examples=300, deadline=None)
@given(small_boards(), st.integers(0, 2**32 - 1))
def test_past_the_work_bound_the_estimate_keeps_every_proof(board: Board, seed: int) -> None:
    # A proven-safe cell estimated at 80%, an unproven one at 0%, or a guess on a proven
    # mine, would contradict the deducer that decides the same game.
    with pytest.MonkeyPatch.context() as patch:  # every count past the work bound
        patch.setattr(LayoutCounter, "count", lambda self, problem: None)
        odds = mine_probabilities(board)
        guess = (lowest_probability_guess(board, random.Random(seed))
                 if min(odds.probabilities.values(), default=1) < 1 else None)
    assert not odds.exact
    truth = enumerate_layouts(board)
    for cell, mined in truth.mined_in.items():
        if mined in (0, truth.layouts):
            assert odds.probabilities[cell] == Fraction(mined, truth.layouts), cell
        else:
            assert 0 < odds.probabilities[cell] < 1, cell
    safe = {cell for cell, mined in truth.mined_in.items() if mined == 0}
    if guess is not None:
        assert guess.cell in safe if safe else truth.mined_in[guess.cell] < truth.layouts


def test_an_estimate_keeps_a_cell_not_proven_off_0() -> None:
    # The densities leave no mine for the cells touching no count, though each is a mine in
    # 1 of the 11 layouts: at 0% one read as proven safe, and was guessed before two that are.
    board = Board.parse("mines: 5\n...0\n3F3.\n....\n.F..")
    odds = mine_probabilities(board, budget=1)
    assert not odds.exact
    assert all(0 < odds.probabilities[Cell(3, col)] < 1 for col in (0, 2, 3))
    safe = {cell for cell, p in odds.probabilities.items() if p == 0}
    assert safe and lowest_probability_guess(board, random.Random(0), budget=1).cell in safe


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_estimate_places_the_mine_count(seed: int) -> None:
    # Taking each cell's highest density among its counts put more mines on the frontier
    # than the board holds (on large boards, hundreds more) and left 1% for the cells
    # touching no count, a fifth of which were mines.
    board = Board.parse(large_board(60, seed))
    odds = mine_probabilities(board, budget=1)
    assert not odds.exact
    assert sum(odds.probabilities.values()) == pytest.approx(board.mines, abs=0.5)


def test_an_estimate_is_near_the_exact_odds() -> None:
    # Twenty expert positions where nothing is safe: every cell's estimate against its
    # exact odds, and the odds of a cell touching no count (one for all of them).
    for board in expert_positions(20):
        exact = mine_probabilities(board).probabilities
        estimate = mine_probabilities(board, budget=1).probabilities
        errors = [abs(float(estimate[cell] - p)) for cell, p in exact.items()]
        assert sum(errors) / len(errors) < 0.04
        outside = next(board.cell(j) for j in Problem(board).outside)
        assert estimate[outside] == pytest.approx(float(exact[outside]), abs=0.02)


@pytest.mark.parametrize("text", ["mines: 3\n1?\n??", "mines: 1\n1???\n????\n???1",
                                  "mines: 0\n1?"])
def test_a_board_no_layout_fits_is_inconsistent(text: str) -> None:
    with pytest.raises(InconsistentBoard):
        mine_probabilities(Board.parse(text))


@settings(max_examples=100, deadline=None)
@given(small_boards(), st.integers(0, 2**32))
def test_a_drawn_layout_fits_the_board(board: Board, seed: int) -> None:
    assume(board.mines is not None)
    truth = enumerate_layouts(board)
    draw = LayoutCounter().sampler(Problem(board))
    assert draw is not None
    assert frozenset(map(board.cell, draw(random.Random(seed)))) in truth.fitting


@pytest.mark.parametrize("text", [
    # The cells touching no count weigh the totals: 2 mines or 3 on the frontier.
    "mines: 3\n?1??\n????\n?1??\n????",
    # Two box assignments with two mines each, one in 2 layouts, the other in 6.
    "mines: 2\n?1?1?1\n??????"])
def test_every_layout_is_drawn_equally_often(text: str) -> None:
    board = Board.parse(text)
    truth = enumerate_layouts(board)
    rng, draw = random.Random(7), LayoutCounter().sampler(Problem(board))
    assert draw is not None
    draws = 300 * truth.layouts
    seen = Counter(frozenset(map(board.cell, draw(rng))) for _ in range(draws))
    assert set(seen) == set(truth.fitting)
    expected = draws / truth.layouts
    chi_square = sum((seen[layout] - expected) ** 2 / expected for layout in truth.fitting)
    degrees = truth.layouts - 1
    assert chi_square < degrees + 4 * (2 * degrees) ** 0.5


def test_a_layout_is_drawn_only_with_the_mine_count_and_within_the_work_bound() -> None:
    board = Board.parse("mines: 3\n1?1?\n????\n????")
    assert LayoutCounter(budget=2).sampler(Problem(board)) is None
    with pytest.raises(ValueError, match="mine count is known"):
        LayoutCounter().sampler(Problem(board.with_mines(None)))
    with pytest.raises(ValueError, match="mine count is known"):  # the count is asked first
        LayoutCounter().sampler(Problem(Board.parse("1??\n0??\n???")))
    with pytest.raises(InconsistentBoard):
        LayoutCounter().sampler(Problem(Board.parse("mines: 1\n1???\n????\n???1")))


def test_a_board_without_a_mine_count_is_guessed_on_its_sizes_usual_count() -> None:
    corner = "1........\n" + ".........\n" * 8
    assert assume_mines(Board.parse(corner)).mines == 10  # 9x9: Windows' beginner
    assert assume_mines(Board.parse("1...\n" * 3 + "....\n" * 4)).mines == 4  # 28 cells / 7
    counted = Board.parse("mines: 3\n" + corner)
    assert assume_mines(counted) is counted


def test_an_assumed_mine_count_is_one_the_board_allows() -> None:
    # 28 cells would be 4 mines, but the counts need 6: all four on top, two below the 1s.
    needy = Board.parse("....\n2332\n0000\n1111\n....\n....\n....\n")
    assert assume_mines(needy).mines == 6
    # Three mines proven around the 2s, and (0, 0) touching no count: 3 or 4 mines, not the
    # 10 of a 9x9 board. With 4 every unopened cell would be a mine, and the game over.
    corner = Board.parse("..2000000\n..2000000\n221000000\n" + "000000000\n" * 6)
    assert assume_mines(corner).mines == 3


@settings(max_examples=200, deadline=None)
@given(small_boards())
def test_the_assumed_mine_count_is_the_nearest_one_a_layout_fits(board: Board) -> None:
    board = board.with_mines(None)
    shown = sum(1 for state in board.states if is_mine_like(state))
    unknown = len(board.unknown_cells())
    totals = [m for m in range(shown, shown + unknown + 1)
              if enumerate_layouts(board.with_mines(m)).layouts]
    going_on = [m for m in totals if m < shown + unknown] or totals
    wanted = CLASSIC_MINES.get((board.width, board.height),
                               ASSUMED_DENSITY * board.width * board.height)
    assert assume_mines(board).mines == min(going_on, key=lambda m: (abs(m - wanted), m))


def test_an_inconsistent_board_has_no_assumed_mine_count() -> None:
    with pytest.raises(InconsistentBoard):
        assume_mines(Board.parse("010\n..."))  # the 0s leave the 1 no mine


@settings(max_examples=200, deadline=None)
@given(small_boards())
def test_past_the_work_bound_the_assumed_mine_count_is_one_a_layout_fits(board: Board) -> None:
    # Past the bound the board kept no count, and its odds gave every cell touching no
    # count 50%. An assumed count no layout fits would make the board inconsistent.
    board = board.with_mines(None)
    assume(enumerate_layouts(board).layouts)
    assumed = assume_mines(board, budget=1).mines
    assert assumed is not None and enumerate_layouts(board.with_mines(assumed)).layouts


def test_past_the_work_bound_a_large_board_is_given_a_count_near_its_density() -> None:
    board = Board.parse(large_board(60, 2).split("\n", 1)[1])  # 511 mines, the count dropped
    assumed = assume_mines(board, budget=1)
    assert assumed.mines == 514  # 3,600 cells / 7: a count some layout fits
    odds = mine_probabilities(assumed, budget=1).probabilities
    assert sum(odds.values()) == pytest.approx(514, abs=0.5)

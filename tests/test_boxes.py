"""Counting a component's layouts box by box: the sweep against backtracking, brute force
and an independent solver."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from autoplay import boxes
from autoplay.board import Board
from autoplay.deduction import Problem
from autoplay.errors import InconsistentBoard
from autoplay.odds import mine_probabilities
from tests.brute import strips
from tests.test_cli import wide_board
from tests.test_deduce import ms_toollib_odds, positions
from tests.test_interrupts import large_board
from tests.test_odds import _brute_force, small_boards


def _components(board: Board) -> list[boxes.Component]:
    problem = Problem(board)
    return boxes.components(problem.residue(problem.propagate()), problem.unknown)


@st.composite
def wider_boards(draw: st.DrawFn) -> Board:
    """A position of up to 12x12, too many unknown cells for brute force: components of
    dozens of boxes, which backtracking can still count to check the sweep."""
    size = draw(st.integers(4, 12))
    return Board.parse(large_board(size, draw(st.integers(0, 2**16))))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(positions() | strips() | wider_boards(), st.none() | st.integers(0, 30))
def test_the_sweep_counts_as_backtracking_does(board: Board, cap: int | None) -> None:
    try:
        components = _components(board)
    except InconsistentBoard:  # some positions have wrong flags, and so no components
        assume(False)
    for component in components:
        assert boxes._sweep(component, cap, 10**7) == boxes._enumerate(component, cap, 10**7)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(positions() | strips() | wider_boards())
def test_a_placement_has_its_total_and_meets_every_constraint(board: Board) -> None:
    try:
        components = _components(board)
    except InconsistentBoard:
        assume(False)
    for component in components:
        ways = boxes.tally(component, None, 10**7).ways
        for total in range(max(ways, default=0) + 2):
            if total not in ways:
                with pytest.raises(ValueError, match=f"no layout of the component has {total}"):
                    boxes.placement(component, total, 10**7)
                continue
            mined = set(boxes.placement(component, total, 10**7))
            assert len(mined) == total
            for indices, mines in component.constraints:
                assert sum(len(mined.intersection(component.boxes[b])) for b in indices) == mines


@contextmanager
def swept() -> Iterator[None]:
    """Within, every component is counted by the sweep."""
    first = boxes.ENUMERATE_FIRST
    boxes.ENUMERATE_FIRST = 0
    try:
        yield
    finally:
        boxes.ENUMERATE_FIRST = first


@settings(max_examples=300, deadline=None)
@given(small_boards() | strips())
def test_odds_counted_by_the_sweep_are_those_of_brute_force(board: Board) -> None:
    with swept():
        odds = mine_probabilities(board)
    assert odds.exact
    assert dict(odds.probabilities) == _brute_force(board)


@pytest.mark.parametrize("seed", [2, 3])
def test_odds_of_components_too_long_to_backtrack_agree_with_ms_toollib(seed: int) -> None:
    """Random 40x40 positions, two of whose components take more than the steps of
    backtracking that :func:`boxes.tally` allows before it sweeps; an independent solver
    (Rust, enumerating by its own method) gives the same odds."""
    board = Board.parse(large_board(40, seed))
    problem = Problem(board)
    long = 0
    for component in _components(board):
        try:
            boxes._enumerate(component, problem.mines_left, boxes.ENUMERATE_FIRST)
        except boxes.OutOfBudget:
            long += 1
    assert long == 2
    odds = mine_probabilities(board)
    assert odds.exact
    probabilities = ms_toollib_odds(board)
    for cell, p in odds.probabilities.items():
        assert float(p) == pytest.approx(probabilities[cell.row][cell.col], abs=1e-9)


def test_a_component_too_long_for_either_way_is_out_of_budget() -> None:
    """The longest component of a 100x100 position: hundreds of boxes, far more
    assignments than backtracking could visit, swept in some thousands of moves."""
    board = Board.parse(large_board(100, 1))
    longest = max(_components(board), key=lambda component: len(component.boxes))
    assert len(longest.boxes) > 200
    with pytest.raises(boxes.OutOfBudget):
        boxes._enumerate(longest, None, boxes.DEFAULT_BUDGET)
    with pytest.raises(boxes.OutOfBudget):
        boxes.tally(longest, None, 1000)
    counted = boxes.tally(longest, None, boxes.DEFAULT_BUDGET)
    assert counted.ways and all(len(sums) == len(longest.boxes)
                                for sums in counted.box_mines.values())
    # Each cell of a box holds a mine in k/n of the C(n, k) ways to place k in it, a whole
    # number: counts packed too tightly would spill into each other and break this.
    for m, sums in counted.box_mines.items():
        for box, mined in zip(longest.boxes, sums):
            assert Fraction(mined, len(box)).denominator == 1
            assert 0 <= mined <= len(box) * counted.ways[m]


def test_a_move_is_charged_for_the_length_of_its_counts(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The budget bounds the sweep's arithmetic, not only its moves: on a checkerboard
    opening each state's counts run to thousands of bits, so a component whose moves alone
    fit the budget runs out of it. (Counting moves alone, the component of a 100x100 one
    took seconds to stop, and one of a 300x300 position 4.4 s to count.)"""
    board = Board.parse(wide_board(20, 1))
    widest = max(_components(board), key=lambda component: len(component.boxes))
    budget = 140_000  # its moves alone take some 116,000 steps, charged some 165,000
    with pytest.raises(boxes.OutOfBudget):
        boxes._sweep(widest, None, budget)
    monkeypatch.setattr(boxes, "_MOVE_BITS", 10**18)  # one step a move
    assert boxes._sweep(widest, None, budget).ways

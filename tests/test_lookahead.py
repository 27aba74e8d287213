"""The guess that looks ahead, checked against brute force over every layout of small,
real guessing positions: forced guesses, secondary safety, and the endgame search."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache

import pytest

from autoplay import lookahead
from autoplay.board import Board, Cell, is_mine_like
from autoplay.deduction import Problem, deduce, find_layout
from autoplay.errors import InconsistentBoard
from autoplay.lookahead import (
    ALL_OUTSIDE,
    CANDIDATES,
    _candidates,
    choose_guess,
    endgame_move,
    endgame_wins,
    forced_guess,
    secondary_safety,
)
from autoplay.odds import LayoutCounter, lowest_probability_guess, mine_probabilities
from autoplay.sim import SimGame
from tests.brute import MAX_UNKNOWN, enumerate_layouts

Layout = frozenset[Cell]


def guess_positions(width: int, height: int, mines: int, games: int, *,
                    most_unknown: int = MAX_UNKNOWN) -> Iterator[Board]:
    """Every position of some simulated games where a guess is needed, with at most
    ``most_unknown`` cells left (guessing by the lowest probability to go on)."""
    for seed in range(games):
        game = SimGame(width, height, mines, rng=random.Random(seed))
        game.reveal(Cell(0, 0))
        while game.outcome == "playing":
            board = game.observe()
            safe = deduce(board).safe
            if safe:
                game.reveal(min(safe))
                continue
            if len(board.unknown_cells()) <= most_unknown:
                yield board
            game.reveal(lowest_probability_guess(board, random.Random(seed)).cell)


POSITIONS = list(guess_positions(5, 4, 5, 60)) + list(guess_positions(6, 5, 7, 60))


def shown(board: Board, cell: Cell, layout: Layout) -> int | None:
    """The number ``cell`` shows in ``layout``, or None for a mine."""
    if cell in layout:
        return None
    return sum(1 for n in board.neighbours(cell)
               if n in layout or is_mine_like(board[n]))


def by_shown(board: Board, cell: Cell, layouts: frozenset[Layout]) -> list[frozenset[Layout]]:
    """The layouts where ``cell`` is safe, split by the number it shows."""
    parts: dict[int, set[Layout]] = {}
    for layout in layouts:
        value = shown(board, cell, layout)
        if value is not None:
            parts.setdefault(value, set()).add(layout)
    return [frozenset(part) for part in parts.values()]


def test_there_are_positions_of_every_kind() -> None:
    assert len(POSITIONS) > 40
    reasons = {choose_guess(b, random.Random(0)).reason for b in POSITIONS}
    assert reasons == {"forced guess", "endgame search"}, reasons


@pytest.mark.parametrize("board", POSITIONS, ids=str)
def test_layouts_are_those_of_brute_force(board: Board) -> None:
    truth = enumerate_layouts(board)
    listed = LayoutCounter().layouts(Problem(board), limit=truth.layouts)
    assert listed is not None and len(listed) == truth.layouts
    assert {frozenset(map(board.cell, layout)) for layout in listed} == truth.fitting
    assert LayoutCounter().layouts(Problem(board), limit=truth.layouts - 1) is None


def best_play(board: Board) -> Callable[[frozenset[Layout]], int]:
    """How many of a set of layouts of ``board`` the best play wins, by brute force."""
    unknown = board.unknown_cells()

    @cache
    def wins(layouts: frozenset[Layout]) -> int:
        undecided = [c for c in unknown if 0 < sum(c in lay for lay in layouts) < len(layouts)]
        if not undecided:
            return len(layouts)
        # Opening a cell that is safe and shows one number everywhere changes nothing.
        return max(sum(map(wins, parts)) for c in unknown
                   if (parts := by_shown(board, c, layouts)) != [layouts])

    return wins


@pytest.mark.parametrize("board", POSITIONS, ids=str)
def test_the_endgame_move_wins_the_most_layouts(board: Board) -> None:
    truth = enumerate_layouts(board)
    wins = best_play(board)
    layouts = [frozenset(map(board.index, layout)) for layout in truth.fitting]
    index = endgame_move(Problem(board), layouts)
    assert index is not None
    move = board.cell(index)
    best = wins(truth.fitting)
    assert sum(map(wins, by_shown(board, move, truth.fitting))) == best
    # Of the cells that win as many, the safest.
    winning = [cell for cell in board.unknown_cells()
               if sum(map(wins, by_shown(board, cell, truth.fitting))) == best]
    mined = mined_in(truth.fitting)
    assert mined.get(move, 0) == min(mined.get(cell, 0) for cell in winning)


@pytest.mark.parametrize("board", POSITIONS, ids=str)
def test_endgame_wins_counts_each_cell_as_brute_force_does(board: Board) -> None:
    truth = enumerate_layouts(board)
    wins = best_play(board)
    layouts = [frozenset(map(board.index, layout)) for layout in truth.fitting]
    for cell in board.unknown_cells():
        expected = sum(map(wins, by_shown(board, cell, truth.fitting)))
        assert endgame_wins(Problem(board), layouts, board.index(cell)) == expected, cell


def test_the_endgame_search_gives_up_past_its_node_bound() -> None:
    board = max(POSITIONS, key=lambda b: enumerate_layouts(b).layouts)
    layouts = LayoutCounter().layouts(Problem(board), limit=1000)
    assert layouts is not None and len(layouts) > 20
    assert endgame_move(Problem(board), layouts) is not None
    assert endgame_move(Problem(board), layouts, nodes=1) is None
    move = endgame_move(Problem(board), layouts)
    assert move is not None and endgame_wins(Problem(board), layouts, move, nodes=1) is None


def test_an_endgame_too_deep_to_search_falls_back_instead_of_failing() -> None:
    """One mine in 1,600 cells: 1,600 layouts, and chains of hundreds of proven-safe cells
    opened one after another, deeper than Python's recursion allows."""
    board = Board.parse("mines: 1\n" + ("." * 40 + "\n") * 40)
    layouts = LayoutCounter().layouts(Problem(board), limit=5000)
    assert layouts is not None and len(layouts) == 1600
    assert endgame_move(Problem(board), layouts) is None
    guess = choose_guess(board, random.Random(0))
    assert guess.reason == "secondary safety" and guess.probability == Fraction(1, 1600)


def mined_in(part: frozenset[Layout]) -> dict[Cell, int]:
    """For each cell, how many layouts of ``part`` mine it."""
    tally: dict[Cell, int] = {}
    for layout in part:
        for cell in layout:
            tally[cell] = tally.get(cell, 0) + 1
    return tally


@pytest.mark.parametrize("board", POSITIONS[::3], ids=str)
def test_secondary_safety_is_that_of_brute_force(board: Board) -> None:
    truth = enumerate_layouts(board)
    total = truth.layouts
    unknown = board.unknown_cells()
    for cell in unknown:
        if truth.mined_in[cell] == total:
            continue
        parts = by_shown(board, cell, truth.fitting)
        expected: Fraction | None = None
        if len(parts) > 1:
            score = progress = 0
            for part in parts:
                tally = mined_in(part)
                mined = sorted(tally.get(c, 0) for c in unknown if c != cell
                               and tally.get(c, 0) < len(part))
                first, second = ([*mined, 0, 0])[:2]
                score += 5 * len(part) - 4 * first - second
                progress += len(part) if first == 0 else 0
            expected = (Fraction(score, 5 * total)
                        * Fraction(1000 * total + progress, 1000 * total))
        assert secondary_safety(board, cell) == expected, cell


@pytest.mark.parametrize("board", list(guess_positions(16, 16, 40, 20, most_unknown=256))[::3],
                         ids=str)
def test_the_candidates_are_nearly_as_safe_as_the_safest(board: Board) -> None:
    problem = Problem(board)
    count = LayoutCounter().count(problem)
    assert count is not None
    mined = count.mined()
    layouts = count.layouts
    found = _candidates(problem, mined, layouts)
    safest = layouts - min(mined.values())
    assert found and len(found) <= CANDIDATES
    assert [mined[j] for j in found] == sorted(mined[j] for j in found)
    assert all(10 * (layouts - mined[j]) >= 9 * safest for j in found)
    # The safest cell comes first, unless it touches no count and is not promising.
    outside = [j for j in problem.outside if mined[j] < layouts]
    assert mined[found[0]] == min(mined.values()) or len(outside) >= ALL_OUTSIDE


def forced(board: Board) -> Cell | None:
    problem = Problem(board)
    counter = LayoutCounter()
    count = counter.count(problem)
    assert count is not None
    found = forced_guess(problem, counter, count.mined(), count.layouts)
    return None if found is None else board.cell(found)


@pytest.mark.parametrize(("text", "cell", "odds"), [
    ("mines: 1\n?1\n?1", Cell(0, 0), Fraction(1, 2)),
    # The flags below touch one cell of the pair only: they cannot tell the two apart.
    ("mines: 3\n?1\n?3\nFF", Cell(0, 0), Fraction(1, 2)),
    # The same, with mines the counts prove rather than flags.
    ("mines: 3\n?1\n?3\n??", Cell(0, 0), Fraction(1, 2)),
    # The 2 says one mine lies below, and the two cells there touch the same counts.
    ("mines: 2\n?1\n?2\n??", Cell(2, 0), Fraction(1, 2)),
    # One mine among four cells: two pairs of twins, each with the mine or none.
    ("mines: 1\n?1?\n?1?", Cell(0, 0), Fraction(1, 4)),
    # Twins that may both be safe: the one mine left may lie in the column on the right.
    ("mines: 6\n??*.\n??*.\n***.", Cell(0, 0), Fraction(1, 7)),
    # (0, 1) and (0, 2) are twins, but both may hold a mine: opening one of them at once
    # loses a layout that best play wins.
    ("mines: 4\n*..\n...", None, None),
])
def test_forced_guesses_on_hand_made_positions(text: str, cell: Cell | None,
                                               odds: Fraction | None) -> None:
    board = Board.parse(text)
    assert forced(board) == cell
    if cell is not None:
        assert mine_probabilities(board).probabilities[cell] == odds
    truth = enumerate_layouts(board)
    wins = best_play(board)
    twin = Cell(0, 1) if cell is None else cell
    loses = sum(map(wins, by_shown(board, twin, truth.fitting))) < wins(truth.fitting)
    assert loses == (cell is None)


FORCED = [board for board in POSITIONS + list(guess_positions(5, 5, 6, 200))
          if forced(board) is not None]


def test_there_are_forced_guesses_of_every_kind() -> None:
    odds = {mine_probabilities(board).probabilities[forced(board)] for board in FORCED}
    assert len(FORCED) > 20
    assert Fraction(1, 2) in odds and min(odds) < Fraction(1, 2)


@pytest.mark.parametrize("board", FORCED, ids=str)
def test_a_forced_guess_loses_nothing_best_play_would_win(board: Board) -> None:
    truth = enumerate_layouts(board)
    wins = best_play(board)
    cell = forced(board)
    assert cell is not None
    assert sum(map(wins, by_shown(board, cell, truth.fitting))) == wins(truth.fitting)


def test_a_forced_guess_is_played_before_a_safer_cell() -> None:
    # (0, 0)/(1, 0) share a mine and every neighbour; the area on the right is safer.
    board = Board.parse("mines: 9\n?3*.......\n?6*.......\n***.......")
    odds = mine_probabilities(board).probabilities
    guess = choose_guess(board, random.Random(1))
    assert guess.reason == "forced guess" and guess.cell in {Cell(0, 0), Cell(1, 0)}
    assert min(odds.values()) < guess.probability == Fraction(1, 2)


def test_a_dead_cell_is_left_while_a_living_one_remains() -> None:
    # (4, 1) is boxed in by known mines: when safe it can only show 7, so opening it tells
    # nothing. It is as safe as the best, and the lowest probability alone picks it.
    board = Board.parse("mines: 32\n" + "............\n" * 3
                        + "*5*.........\n*.*.........\n***.........")
    dead = Cell(4, 1)
    odds = mine_probabilities(board).probabilities
    assert odds[dead] == min(odds.values()) == Fraction(1, 4)
    assert lowest_probability_guess(board, random.Random(0)).cell == dead
    assert secondary_safety(board, dead) is None
    assert secondary_safety(board, Cell(2, 1)) is not None
    guess = choose_guess(board, random.Random(0))
    assert guess.cell != dead and guess.reason == "secondary safety"


def test_a_safer_cell_safe_wherever_the_pick_is_goes_first() -> None:
    # Whatever (5, 6) shows, (5, 3) is then proven safe: so secondary safety rates (5, 6)
    # above (5, 3). But (5, 3) is safe in every layout where (5, 6) is, and safer: opened
    # first, it survives wherever (5, 6) would, and (5, 6) can still follow.
    board = Board.parse("""mines: 10
1........
.........
.........
.........
.........
.........
....112*2
...2.1111
.....1000""")
    pick, safer = Cell(5, 6), Cell(5, 3)
    odds = mine_probabilities(board).probabilities
    assert odds[safer] < odds[pick] < Fraction(1, 20)
    assert find_layout(board, safe=[pick], mines=[safer]) is None
    assert find_layout(board, safe=[safer], mines=[pick]) is not None
    pick_score, safer_score = secondary_safety(board, pick), secondary_safety(board, safer)
    assert pick_score is not None and safer_score is not None and pick_score > safer_score
    guess = choose_guess(board, random.Random(0))
    assert guess.cell == safer and guess.reason == "secondary safety"


@pytest.mark.parametrize("text", [
    "mines: 1\n1*",  # no unknown cell
    "mines: 1\n.", "mines: 2\n..", "1.",  # every unknown cell a proven mine
])
@pytest.mark.parametrize("choose", [choose_guess, lowest_probability_guess])
def test_a_guess_needs_a_cell_that_can_be_safe(
        choose: Callable[[Board, random.Random], object], text: str) -> None:
    # A proven mine is no guess: choose_guess failed an assertion in its endgame search,
    # and lowest_probability_guess named the mine at odds of 1.
    with pytest.raises(ValueError, match="no unknown cell can be safe"):
        choose(Board.parse(text), random.Random(0))


def test_a_guess_needs_a_board_some_layout_fits() -> None:
    with pytest.raises(InconsistentBoard):
        choose_guess(Board.parse("mines: 3\n1?\n??"), random.Random(0))


def test_a_cell_safe_at_the_count_given_is_the_guess() -> None:
    # Safe only because the count is 1 (an assumed count: the player proves without it).
    board = Board.parse("mines: 1\n1...")
    guess = choose_guess(board, random.Random(0))
    assert guess.cell in (Cell(0, 2), Cell(0, 3)) and guess.probability == 0


def test_past_its_combining_bound_a_guess_is_the_lowest_probability_and_logged(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # A corner showing 1: the lookahead takes a far corner, by secondary safety, in 28
    # steps of combining (the board's own count takes 1 of them).
    board = Board.parse("mines: 10\n1" + "." * 8 + ("\n" + "." * 9) * 8)
    assert choose_guess(board, random.Random(0)).reason == "secondary safety"
    assert not caplog.records
    monkeypatch.setattr(lookahead, "AHEAD_WORK", 10)
    guess = choose_guess(board, random.Random(0))
    assert guess == lowest_probability_guess(board, random.Random(0))
    assert "the lowest probability decides" in caplog.text


def test_a_counter_past_its_combining_steps_counts_no_more() -> None:
    problem = Problem(Board.parse("mines: 3\n.1..1..\n......."))
    counter = LayoutCounter(combining=10)
    assert counter.count(problem) is not None and not counter.is_spent()
    while counter.count(problem) is not None:
        pass
    assert counter.is_spent() and counter.combined > 10
    assert LayoutCounter().count(problem) is not None

"""The board model, its text format, and the 3BV of a layout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ms_toollib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.board import (
    EXPLODED,
    FLAG,
    MINE,
    UNKNOWN,
    WRONG_FLAG,
    Board,
    Cell,
    neighbour_table,
    three_bv,
)
from autoplay.errors import BoardFormatError, ImpossibleCount, InconsistentBoard

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "boards"


def test_every_cell_character(board: Callable[[str], Board]) -> None:
    parsed = board("""
        mines: 9
        012._
        ?F*XW
    """)
    assert (parsed.width, parsed.height, parsed.mines) == (5, 2, 9)
    assert parsed.states == (0, 1, 2, UNKNOWN, UNKNOWN, UNKNOWN, FLAG, MINE, EXPLODED, WRONG_FLAG)


def test_text_round_trip_normalises_unknown_cells() -> None:
    parsed = Board.parse("mines: 3\n1_?\n.F*\n")
    assert str(parsed) == "mines: 3\n1..\n.F*"
    assert Board.parse(str(parsed)) == parsed
    assert eval(repr(parsed)) == parsed


def test_spaces_and_blank_lines_are_ignored() -> None:
    assert Board.parse("\n  1 . \n\n  . 1\n\n") == Board.parse("1.\n.1")


@pytest.mark.parametrize("space", ["\f", "\v", "\x1c", "\x85", "\u2028", "\u2029"])
def test_only_a_line_break_ends_a_row(space: str) -> None:
    # str.splitlines also breaks at these, which an editor shows inside a line: the row
    # would split in two and every later line number would be off by one.
    assert Board.parse(f"1{space}.\n..") == Board.parse("1.\n..")
    with pytest.raises(BoardFormatError, match="^line 2: row has 1 cell"):
        Board.parse(f"1{space}.\n.")


def test_every_line_break_ends_a_row() -> None:
    assert Board.parse("1.\r\n..\r..") == Board.parse("1.\n..\n..")


def test_mines_option_overrides_the_header() -> None:
    assert Board.parse("mines: 3\n...", mines=1).mines == 1


@pytest.mark.parametrize("name", ["article-10x10-puzzle.txt", "article-24x20.txt"])
def test_the_seed_articles_boards_parse(name: str) -> None:
    parsed = Board.parse((SEEDS / name).read_text())
    assert (parsed.width, parsed.height) == {"article-10x10-puzzle.txt": (10, 10),
                                             "article-24x20.txt": (24, 20)}[name]


def test_the_prolog_articles_format_parses() -> None:
    # The Prolog checker's boards use '?' for unknown and '*' for mines.
    assert Board.parse("?*?\n131").states == (UNKNOWN, MINE, UNKNOWN, 1, 3, 1)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty board: no rows"),
    ("\n  \n", "empty board: no rows"),
    ("1..\n..\n", "line 2: row has 2 cells, expected 3 (as in line 1): '..'"),
    ("..\n.\n", "line 2: row has 1 cell, expected 2 (as in line 1): '.'"),
    ("." * 100 + "\n" + "." * 99 + "#", "line 2, column 100: unknown cell character '#' in '"
     + "." * 60 + "...' (a cell is 0-8, '.', '_' or '?' unopened, 'F' a flag, '*' a mine, "
     "'X' a mine gone off or 'W' a wrong flag)"),
    ("...\n.x.\n", ("line 2, column 2: unknown cell character 'x' in '.x.' (a cell is 0-8, "
                   "'.', '_' or '?' unopened, 'F' a flag, '*' a mine, 'X' a mine gone off or 'W' "
                   "a wrong flag)")),
    ("..\n9.\n", ("line 2, column 1: count 9 is larger than the cell's 3 neighbours, "
                  "so no mine layout fits")),
    ("mines: x\n..", ("line 1: the mine count must be a whole number of at most 18 digits: "
                     "'mines: x'")),
    ("mines: 1 2\n..", ("line 1: the mine count must be a whole number of at most 18 digits: "
                       "'mines: 1 2'")),
    ("mines: \u00b2\n..", ("line 1: the mine count must be a whole number of at most 18 "
                           "digits: 'mines: \u00b2'")),
    (f"mines: {'9' * 5000}\n..", ("line 1: the mine count must be a whole number of at most "
                                 f"18 digits: 'mines: {'9' * 53}...'")),
    ("..\nmines: 3", "line 2: 'mines:' must be the first line"),
    ("mines: 1\nmines: 2\n1.", ("line 2: a second 'mines:' line (a board has one, before its "
                             "rows)")),
])
def test_format_errors_name_the_line_and_column(text: str, message: str) -> None:
    with pytest.raises(BoardFormatError) as error:
        Board.parse(text)
    assert str(error.value) == message


def test_a_count_larger_than_its_neighbourhood_is_also_inconsistent() -> None:
    with pytest.raises(ImpossibleCount) as error:
        Board.parse("2?")
    assert isinstance(error.value, InconsistentBoard)
    assert str(error.value) == ("line 1, column 1: count 2 is larger than the cell's 1 "
                                "neighbour, so no mine layout fits")


def test_neighbours_at_corner_edge_and_middle() -> None:
    grid = Board.empty(3, 3)
    assert sorted(grid.neighbours(Cell(0, 0))) == [Cell(0, 1), Cell(1, 0), Cell(1, 1)]
    assert len(grid.neighbours(Cell(0, 1))) == 5
    assert len(grid.neighbours(Cell(1, 1))) == 8
    assert neighbour_table(1, 1) == ((),)


@pytest.mark.parametrize("width", range(1, 6))
@pytest.mark.parametrize("height", range(1, 6))
def test_the_neighbour_table_holds_every_cell_one_step_away_in_order(width: int,
                                                                     height: int) -> None:
    table = neighbour_table(width, height)
    assert len(table) == width * height
    for index, around in enumerate(table):
        row, col = divmod(index, width)
        assert around == tuple(r * width + c for r in range(height) for c in range(width)
                               if max(abs(r - row), abs(c - col)) == 1)


def test_with_states_returns_a_new_board() -> None:
    start = Board.empty(2, 2, mines=1)
    changed = start.with_states({Cell(0, 0): 1})
    assert start[Cell(0, 0)] == UNKNOWN and changed[Cell(0, 0)] == 1
    assert changed.mines == 1


def test_index_outside_the_board_is_refused() -> None:
    with pytest.raises(IndexError):
        Board.empty(2, 2)[Cell(2, 0)]


_STATES = st.sampled_from([UNKNOWN, FLAG, MINE, EXPLODED, WRONG_FLAG, 0, 1, 2, 3])


@st.composite
def boards(draw: st.DrawFn) -> Board:
    width, height = draw(st.integers(2, 7)), draw(st.integers(2, 7))
    states = tuple(draw(st.lists(_STATES, min_size=width * height, max_size=width * height)))
    mines = draw(st.none() | st.integers(0, 60))
    return Board(width, height, states, mines)


@given(boards())
def test_parse_inverts_str(original: Board) -> None:
    assert Board.parse(str(original)) == original


@pytest.mark.parametrize(("width", "height", "mines", "expected"), [
    (3, 3, [], 1),                                  # one opening clears all
    (3, 3, [Cell(1, 1)], 8),                        # no zero anywhere: every cell a click
    (3, 1, [Cell(0, 1)], 2),
    (4, 1, [Cell(0, 0)], 1),                        # 1 0 0: the opening takes the 1 along
    (5, 1, [Cell(0, 2)], 2),                        # 0 1 * 1 0: two openings
    (5, 5, [Cell(0, 0), Cell(4, 4)], 1),
    (7, 1, [Cell(0, 1), Cell(0, 5)], 3),            # 1 * 1 0 1 * 1: two lone 1s, an opening
])
def test_three_bv_of_known_layouts(width: int, height: int, mines: list[Cell],
                                   expected: int) -> None:
    assert three_bv(width, height, mines) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_three_bv_agrees_with_ms_toollib(width: int, height: int, data: st.DataObject) -> None:
    cells = [Cell(r, c) for r in range(height) for c in range(width)]
    mines = set(data.draw(st.lists(st.sampled_from(cells), unique=True)))
    board = Board.empty(width, height)
    matrix = [[-1 if Cell(r, c) in mines else
               sum(n in mines for n in board.neighbours(Cell(r, c)))
               for c in range(width)] for r in range(height)]
    assert three_bv(width, height, mines) == ms_toollib.cal_bbbv(matrix)

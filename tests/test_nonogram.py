"""Nonograms: the article's puzzle, random pictures, impossible and malformed clues, the CLI.

Solutions are checked against clues counted here from the grid's drawing (:func:`counted`),
not with :meth:`Grid.clues`, so a fault there cannot hide a fault in the solver.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from itertools import islice, product
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.bench import SEED_001_NONOGRAM, nonogram_suite
from autoplay.cli import cli
from autoplay.errors import NonogramFormatError, OutOfTime
from autoplay.nonogram import EMPTY, FILLED, MAX_SIDE, Clues, Grid, solutions, solve
from autoplay.pb import PbSolver
from tools.nonogram_times import random_clues

ARTICLE = Path(__file__).parent.parent / "fixtures" / "nonograms" / "article-20x20.txt"

TWO_SOLUTIONS = "rows:\n1\n1\ncolumns:\n1\n1\n"
"""A 2x2 whose clues both diagonals fit."""
NO_SOLUTION = "rows:\n2\n0\ncolumns:\n0\n2\n"
"""The top row is full, so the left column cannot be empty: clues that fit, yet no grid."""


def counted(rows: list[list[bool]]) -> Clues:
    """The clues of a grid, read off its drawing with a regular expression."""
    def runs(cells: tuple[bool, ...] | list[bool]) -> tuple[int, ...]:
        return tuple(len(group) for group in re.findall("#+", "".join(".#"[c] for c in cells)))

    return Clues(tuple(map(runs, rows)), tuple(map(runs, zip(*rows))))


def drawn(text: str) -> list[list[bool]]:
    """The grid of the command's drawing, checking that it uses only the two blocks."""
    assert set(text) <= {FILLED, EMPTY, "\n"}
    return [[char == FILLED for char in line] for line in text.splitlines()]


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["nonogram", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


grids = st.integers(1, 7).flatmap(lambda width: st.lists(
    st.tuples(*[st.booleans()] * width), min_size=1, max_size=7)).map(
    lambda rows: Grid(tuple(rows)))


def test_the_fixture_is_the_puzzle_the_benchmark_times() -> None:
    assert ARTICLE.read_text(encoding="utf-8") == SEED_001_NONOGRAM


def test_the_article_puzzle_solves_to_a_grid_that_meets_every_clue() -> None:
    clues = Clues.parse(ARTICLE.read_text(encoding="utf-8"))
    assert (clues.width, clues.height) == (20, 20)
    grid = solve(clues)
    assert grid is not None
    assert counted([list(row) for row in grid.filled]) == clues


def test_the_article_puzzle_has_exactly_one_solution() -> None:
    clues = Clues.parse(ARTICLE.read_text(encoding="utf-8"))
    assert len(list(islice(solutions(clues), 2))) == 1


@given(grids)
@settings(max_examples=60, deadline=None)
def test_the_clues_of_a_random_picture_solve_to_a_grid_with_the_same_clues(grid: Grid) -> None:
    clues = counted([list(row) for row in grid.filled])
    assert grid.clues() == clues
    assert Clues.parse(str(clues)) == clues
    found = solve(clues)
    assert found is not None
    assert counted([list(row) for row in found.filled]) == clues


@given(st.integers(1, 3), st.integers(1, 4), st.data())
@settings(max_examples=30, deadline=None)
def test_solutions_are_exactly_the_grids_a_brute_force_finds(width: int, height: int,
                                                             data: st.DataObject) -> None:
    picture = data.draw(st.lists(st.lists(st.booleans(), min_size=width, max_size=width),
                                 min_size=height, max_size=height))
    clues = counted(picture)
    every = (list(map(list, zip(*[iter(cells)] * width)))
             for cells in product([False, True], repeat=width * height))
    expected = {tuple(map(tuple, rows)) for rows in every if counted(rows) == clues}
    found = [grid.filled for grid in solutions(clues)]
    assert len(found) == len(set(found))
    assert set(found) == expected


def test_only_a_line_break_ends_a_clue_line() -> None:
    # A form feed inside a line is a space, as an editor shows it, not a new stripe.
    assert Clues.parse("rows:\n1\f1\ncolumns:\n1\n0\n1") == Clues.parse(
        "rows:\n1 1\ncolumns:\n1\n0\n1")
    assert Clues.parse("rows:\r\n1\rcolumns:\r\n1") == Clues.parse("rows:\n1\ncolumns:\n1")


def test_an_empty_line_is_an_empty_stripe_unless_it_ends_its_section() -> None:
    clues = Clues.parse("rows:\n1\n\n1\n\ncolumns:\n1 1\n\n")
    assert clues.rows == ((1,), (), (1,))
    assert clues.columns == ((1, 1),)
    assert Clues.parse("rows:\n1\n0\ncolumns:\n1\n").rows == ((1,), ())


def test_more_rows_than_the_solver_takes_are_refused() -> None:
    side = "\n".join(["1"] * (MAX_SIDE + 1))
    with pytest.raises(NonogramFormatError, match=rf"^line 1: {MAX_SIDE + 1} rows, more than "
                                                  rf"the {MAX_SIDE} this solver takes$"):
        Clues.parse(f"rows:\n{side}\ncolumns:\n{side}\n")
    side = "\n".join(["1"] * MAX_SIDE)
    assert Clues.parse(f"rows:\n{side}\ncolumns:\n{side}\n").width == MAX_SIDE


def test_clues_built_in_code_are_checked_too() -> None:
    with pytest.raises(NonogramFormatError, match=r"^row 1: group lengths must be at least 1"):
        Clues(((0,),), ((),))
    with pytest.raises(NonogramFormatError, match=r"^column 2: '1 1' needs 3 cells; the grid"):
        Clues(((1,), (1,)), ((1,), (1, 1)))


def test_a_ragged_grid_is_refused() -> None:
    with pytest.raises(ValueError, match="rows of one length"):
        Grid(((True,), (True, False)))


def test_the_command_draws_the_article_solution() -> None:
    code, out, err = run(str(ARTICLE))
    assert (code, err) == (0, "")
    assert counted(drawn(out)) == Clues.parse(SEED_001_NONOGRAM)


def test_the_command_reads_standard_input() -> None:
    assert run("-", stdin="rows:\n1\n1 1\ncolumns:\n1\n1\n1\n") == (
        0, f"{EMPTY}{FILLED}{EMPTY}\n{FILLED}{EMPTY}{FILLED}\n", "")


def test_json_gives_the_grid_as_rows_of_0_and_1() -> None:
    code, out, _ = run("--json", str(ARTICLE))
    report = json.loads(out)
    assert code == 0
    assert {key: report[key] for key in ("rows", "cols", "solved")} == {
        "rows": 20, "cols": 20, "solved": True}
    assert {cell for row in report["grid"] for cell in row} == {0, 1}
    assert counted([[cell == 1 for cell in row] for row in report["grid"]]) == Clues.parse(
        SEED_001_NONOGRAM)


@pytest.mark.parametrize(("text", "output"), [
    (SEED_001_NONOGRAM, "one solution: it is unique\n"),
    (TWO_SOLUTIONS, "several solutions: it is not unique\n"),
])
def test_count_says_whether_the_solution_is_unique(text: str, output: str) -> None:
    assert run("--count", "-", stdin=text) == (0, output, "")


def test_count_as_json() -> None:
    assert json.loads(run("--count", "--json", "-", stdin=TWO_SOLUTIONS)[1]) == {
        "rows": 2, "cols": 2, "solutions": "several"}


def test_impossible_clues_are_reported_with_exit_1() -> None:
    assert solve(Clues.parse(NO_SOLUTION)) is None
    assert run("-", stdin=NO_SOLUTION) == (1, "no solution\n", "")
    assert run("--count", "-", stdin=NO_SOLUTION) == (1, "no solution\n", "")
    code, out, _ = run("--json", "-", stdin=NO_SOLUTION)
    assert (code, json.loads(out)) == (1, {"rows": 2, "cols": 2, "solved": False, "grid": None})


@pytest.mark.parametrize(("clues", "size", "error"), [
    ("rows:\n1\n0\ncolumns:\n0\n0\n", {"rows": 2, "cols": 2},
     "the row clues fill 1 cell but the column clues fill 0, so no grid fits both"),
    ("rows:\n3\ncolumns:\n1\n1\n", {"rows": 1, "cols": 2},
     "line 2 (row 1): '3' needs 3 cells; the grid is 2 wide")])
def test_clues_no_grid_of_their_size_fits_are_no_solution_in_json(
        clues: str, size: dict[str, int], error: str) -> None:
    """Found before any search, they are told in one line, and ``--json`` reports them as
    a search that found no grid would, so that a script reads every unsolvable puzzle the
    same way."""
    assert run("-", stdin=clues) == (1, "", f"Error: {error}\n")
    code, out, _ = run("--json", "-", stdin=clues)
    assert (code, json.loads(out)) == (1, size | {"solved": False, "grid": None,
                                                  "error": error})
    code, out, _ = run("--count", "--json", "-", stdin=clues)
    assert (code, json.loads(out)) == (1, size | {"solutions": "none", "error": error})


HARD = random_clues(60, 1)
"""The clues of a random 60 x 60 picture: Z3 ran past 600 s on them."""


def searches(monkeypatch: pytest.MonkeyPatch) -> list[bool | None]:
    """The results of Z3's checks from now on (None: out of time), the checks unchanged."""
    results: list[bool | None] = []
    check = PbSolver.check

    def counted_check(self: PbSolver, *args: Any, **kwargs: Any) -> bool | None:
        results.append(check(self, *args, **kwargs))
        return results[-1]

    monkeypatch.setattr(PbSolver, "check", counted_check)
    return results


def test_a_puzzle_not_settled_in_time_is_one_error_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Half a second runs out while the model is still being built (2 to 4 s here), before
    any search."""
    tried = searches(monkeypatch)
    with pytest.raises(OutOfTime, match="^no answer within 0.5 s$"):
        solve(HARD, 0.5)
    text = f"{HARD}\n"
    assert run("--timeout", "0.5", "-", stdin=text) == (1, "", "Error: no answer within 0.5 s\n")
    code, out, _ = run("--timeout", "0.5", "--json", "-", stdin=text)
    assert (code, json.loads(out)) == (1, {"rows": 60, "cols": 60, "solved": None,
                                           "grid": None, "error": "no answer within 0.5 s"})
    assert tried == []


def test_a_search_past_its_time_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the model built, Z3's search is what runs out. The solver's clock stands still
    until the search starts: on a loaded machine, building the model once took all 8 s."""
    tried = searches(monkeypatch)
    start = time.monotonic()
    monkeypatch.setattr("autoplay.nonogram.time", SimpleNamespace(
        monotonic=lambda: start if not tried else time.monotonic()))
    with pytest.raises(OutOfTime, match="^no answer within 8 s$"):
        solve(HARD, 8)
    assert tried == [None]


def test_a_timeout_long_enough_changes_no_answer() -> None:
    assert run("--timeout", "60", "--count", str(ARTICLE)) == (
        0, "one solution: it is unique\n", "")
    assert run("--timeout", "60", str(ARTICLE)) == run(str(ARTICLE))


def test_count_out_of_time_after_one_solution_says_what_it_found(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first grid found and no answer on a second: rare enough that no small puzzle shows
    it, so the solver is replaced by one that answers so."""
    def one_then_late(clues: Clues, timeout: float | None) -> Iterator[Grid]:
        yield solve(clues)
        raise OutOfTime(f"no answer within {timeout:g} s")

    monkeypatch.setattr("autoplay.cli.solutions", one_then_late)
    assert run("--count", "--timeout", "3", "-", stdin=TWO_SOLUTIONS) == (
        1, "", "Error: one solution found, but whether it is unique: no answer within 3 s\n")
    code, out, _ = run("--count", "--json", "--timeout", "3", "-", stdin=TWO_SOLUTIONS)
    assert (code, json.loads(out)) == (1, {
        "rows": 2, "cols": 2, "solutions": "at least one",
        "error": "one solution found, but whether it is unique: no answer within 3 s"})


@pytest.mark.parametrize(("text", "message"), [
    ("rows:\n5 5\ncolumns:\n" + "1\n" * 10,
     "line 2 (row 1): '5 5' needs 11 cells; the grid is 10 wide"),
    ("rows:\n1\n1\ncolumns:\n3\n0\n",
     "line 5 (column 1): '3' needs 3 cells; the grid is 2 high"),
    ("rows:\n1\n1\ncolumns:\n1\n0\n",
     "the row clues fill 2 cells but the column clues fill 1, so no grid fits both"),
    ("rows:\n1 x\ncolumns:\n1\n", "line 2: a clue is whole numbers separated by spaces: '1 x'"),
    ("rows:\n1,1\ncolumns:\n1\n", "line 2: a clue is whole numbers separated by spaces: '1,1'"),
    ("rows:\n-1\ncolumns:\n1\n", "line 2: a clue is whole numbers separated by spaces: '-1'"),
    ("rows:\n0 1\ncolumns:\n1\n", "line 2: 0 stands alone, for an empty stripe: '0 1'"),
    ("1\nrows:\n1\ncolumns:\n1\n", "line 1: clues before any 'rows:' or 'columns:' line: '1'"),
    ("rows: 1\ncolumns: 1\n", ("line 1: clues go on the lines after 'rows:', one line a stripe: "
                             "'rows: 1'")),
    ("rows:\n1\nColumns: 1\n", ("line 3: clues go on the lines after 'Columns:', one line a "
                               "stripe: 'Columns: 1'")),
    ("rows:\n1\n", "no 'columns:' section"),
    ("", "no 'rows:' section"),
    ("rows:\n\n\ncolumns:\n1\n", "line 1: the 'rows:' section has no clue lines"),
    ("rows:\n1\ncolumns:\n1\nRows:\n1\n",
     "line 5: a second 'rows:' section (the first starts at line 1)"),
])
def test_a_malformed_file_is_one_error_line(text: str, message: str) -> None:
    assert run("-", stdin=text) == (1, "", f"Error: {message}\n")


def test_the_benchmark_times_both_models_on_the_same_puzzle() -> None:
    [measurement] = nonogram_suite(1)
    assert (measurement.suite, measurement.count) == ("nonogram", 1)
    assert measurement.reference_ms is not None
    assert measurement.detail == "the only grid that fits; the reference found the same"

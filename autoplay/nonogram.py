"""Nonograms (paint by numbers): clues in, the grids that fit them out, proven with Z3.

A nonogram gives, for every row and every column (a *stripe*), the lengths of its groups of
filled cells in order; groups are separated by at least one empty cell. The text format has
two sections, in either order, each opened by a line ``rows:`` or ``columns:``::

    rows:          rows from top to bottom, one clue line each
    1              the row holds one group of one filled cell
    1 1            two groups of one, numbers separated by spaces
    columns:       columns from left to right
    1
    0              an empty column: 0, or an empty line
    1

The number of clue lines sets the grid's size. An empty line inside a section is an empty
stripe, but empty lines at the end of a section (before the next ``rows:`` or ``columns:``,
or at the end of the file) only separate: an empty last stripe must be written ``0``, so
that the size never depends on invisible trailing lines. Messages number the lines, rows
and columns from 1, as a person reads the file.

:func:`solutions` gives every grid that fits, one by one, from a Z3 model of the article's
idea (each group has a start; groups keep their order with gaps; a cell is filled exactly
when some group holds it), in booleans rather than the article's integers: see
:func:`_encode_stripe` for why.

>>> clues = Clues.parse('''
... rows:
... 1
... 1 1
... columns:
... 1
... 1
... 1
... ''')
>>> clues.width, clues.height
(3, 2)
>>> print(solve(clues))
◻◼◻
◼◻◼
>>> Clues.parse("rows:\\n\\n1\\n\\ncolumns:\\n0\\n1\\n").rows
((), (1,))
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby, pairwise

from autoplay.errors import (
    NonogramFormatError,
    OutOfTime,
    UnfittableClues,
    numbered_lines,
    plural,
)
from autoplay.pb import PbSolver

Clue = tuple[int, ...]
"""The group lengths of one stripe, in order; ``()`` for an empty stripe."""

FILLED = "\u25fc"
"""◼, a filled cell, as the nonogram article prints it."""
EMPTY = "\u25fb"
"""◻, an empty cell."""

MAX_SIDE = 200
"""The most rows, and the most columns, a nonogram may have: the solver's memory grows with
the cells, past a gigabyte for 500 x 500 clues that allow many grids."""

_HEADER = re.compile(r"\s*(rows|columns)\s*:\s*$", re.IGNORECASE)
_HEADER_WITH_CLUES = re.compile(r"\s*(rows|columns)\s*:", re.IGNORECASE)
_NUMBERS = re.compile(r"[0-9]+(\s+[0-9]+)*")
_STRIPE = {"rows": "row", "columns": "column"}


@dataclass(frozen=True, slots=True)
class Clues:
    """The clues of a nonogram: one :data:`Clue` per row and per column.

    :raises UnfittableClues: when a clue cannot fit its stripe, or the rows and the
        columns do not ask for the same number of filled cells.
    :raises NonogramFormatError: when a group is shorter than 1, or a side is 0.
    """

    rows: tuple[Clue, ...]
    """Row clues, top to bottom."""
    columns: tuple[Clue, ...]
    """Column clues, left to right."""

    def __post_init__(self) -> None:
        _check(self.rows, self.columns, lambda stripe, index: f"{stripe} {index + 1}")

    @property
    def width(self) -> int:
        """The number of columns."""
        return len(self.columns)

    @property
    def height(self) -> int:
        """The number of rows."""
        return len(self.rows)

    @classmethod
    def parse(cls, text: str) -> Clues:
        """Parse the text format (see the module docstring).

        :raises NonogramFormatError: naming the line of the first fault (an
            :class:`~autoplay.errors.UnfittableClues` for clues no grid of their size fits).

        >>> Clues.parse("rows:\\n3\\ncolumns:\\n1\\n1")
        Traceback (most recent call last):
        ...
        autoplay.errors.UnfittableClues: line 2 (row 1): '3' needs 3 cells; the grid is 2 wide
        """
        headers: dict[str, int] = {}
        sections: dict[str, list[tuple[int, str]]] = {}
        section: list[tuple[int, str]] | None = None
        for number, line in numbered_lines(text):
            header = _HEADER.match(line)
            if header:
                kind = header.group(1).lower()
                if kind in headers:
                    raise NonogramFormatError(f"line {number}: a second '{kind}:' section "
                                              f"(the first starts at line {headers[kind]})")
                headers[kind] = number
                section = sections[kind] = []
            elif _HEADER_WITH_CLUES.match(line):
                raise NonogramFormatError(f"line {number}: clues go on the lines after "
                                          f"'{line.split(':')[0].strip()}:', one line a "
                                          f"stripe: {line.strip()!r}")
            elif section is not None:
                section.append((number, line.strip()))
            elif line.strip():
                raise NonogramFormatError(f"line {number}: clues before any 'rows:' or "
                                          f"'columns:' line: {line.strip()!r}")
        clues: dict[str, tuple[Clue, ...]] = {}
        lines: dict[str, list[int]] = {}
        for kind, stripe in _STRIPE.items():
            if kind not in sections:
                raise NonogramFormatError(f"no '{kind}:' section")
            section = sections[kind]
            while section and not section[-1][1]:
                section.pop()
            if not section:
                raise NonogramFormatError(f"line {headers[kind]}: the '{kind}:' section has "
                                          f"no clue lines")
            if len(section) > MAX_SIDE:
                raise NonogramFormatError(f"line {headers[kind]}: {len(section)} {kind}, more "
                                          f"than the {MAX_SIDE} this solver takes")
            clues[kind] = tuple(_parse_clue(number, line) for number, line in section)
            lines[stripe] = [number for number, _ in section]
        # Checked here first so that the message names the line; __post_init__ then passes.
        _check(clues["rows"], clues["columns"],
               lambda stripe, index: f"line {lines[stripe][index]} ({stripe} {index + 1})")
        return cls(clues["rows"], clues["columns"])

    def __str__(self) -> str:
        return "\n".join(["rows:", *map(_clue_text, self.rows),
                          "columns:", *map(_clue_text, self.columns)])

    def __repr__(self) -> str:
        return f"Clues.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Grid:
    """A filled-in nonogram; ``str(grid)`` draws it with :data:`FILLED` and :data:`EMPTY`."""

    filled: tuple[tuple[bool, ...], ...]
    """Rows top to bottom, each left to right: True where the cell is filled."""

    def __post_init__(self) -> None:
        if not self.filled or len({len(row) for row in self.filled}) != 1 or not self.filled[0]:
            raise ValueError("a grid needs at least one row, and rows of one length above 0")

    def clues(self) -> Clues:
        """The clues this grid gives, as a puzzle maker would write them."""
        return Clues(tuple(map(_runs, self.filled)), tuple(map(_runs, zip(*self.filled))))

    def __str__(self) -> str:
        return "\n".join("".join(FILLED if cell else EMPTY for cell in row)
                         for row in self.filled)


def solve(clues: Clues, timeout: float | None = None) -> Grid | None:
    """One grid that fits the clues, or None when none does (``timeout``: see
    :func:`solutions`)."""
    return next(solutions(clues, timeout), None)


def solutions(clues: Clues, timeout: float | None = None) -> Iterator[Grid]:
    """Every grid that fits the clues, each once, found one at a time.

    After each grid, a clause that forbids exactly that grid is added and Z3 is asked again,
    so taking two answers tells whether the solution is unique.

    :param timeout: the seconds, from this call, that building the model and every search
        for a next grid may take together (time the caller spends between grids counts
        too); large puzzles that allow many near-solutions can take minutes.
    :raises OutOfTime: when they are used up before the next answer (a grid, or the proof
        that no other grid fits).
    """
    deadline = None if timeout is None or math.isinf(timeout) else time.monotonic() + timeout

    def out_of_time() -> OutOfTime:
        return OutOfTime(f"no answer within {timeout:g} s")

    def seconds_left() -> float | None:
        """The seconds left (None: no limit); past the deadline, raises OutOfTime."""
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise out_of_time()
        return left

    solver = PbSolver()
    width, height = clues.width, clues.height
    cells = list(range(width * height))
    free = len(cells)
    stripes = [(clue, cells[row * width:(row + 1) * width]) for row, clue in enumerate(clues.rows)]
    stripes += [(clue, cells[column::width]) for column, clue in enumerate(clues.columns)]
    for clue, stripe in stripes:
        seconds_left()  # building a large model takes seconds: stop at the deadline
        free = _encode_stripe(solver, clue, stripe, free)
    while True:
        left = seconds_left()
        found = solver.check(timeout_ms=None if left is None else math.ceil(left * 1000))
        if found is None:
            raise out_of_time()
        if not found:
            return
        values = solver.values(cells)
        yield Grid(tuple(tuple(values[row * width:(row + 1) * width]) for row in range(height)))
        solver.add_clause([-(v + 1) if filled else v + 1 for v, filled in zip(cells, values)])


def _encode_stripe(solver: PbSolver, clue: Clue, cells: Sequence[int], free: int) -> int:
    """Constrain one stripe's cells to its clue; returns the next unused variable.

    The article gives each group an integer start and end, and fills a cell exactly when
    ``Or`` over the groups of ``start <= k <= end`` holds. That is integer arithmetic, which
    Z3 solves with a simplex and case splits on every disjunction, and it needs thousands of
    terms built through z3's Python API, which is most of its time. Here each group has one
    boolean per place it can start instead, and the clue alone narrows those places to a
    window of ``slack + 1`` (every group before it packed to the left, every group after it
    to the right). The article's rules then become one cardinality constraint per group and
    clauses, which Z3's SAT engine propagates directly and :class:`~autoplay.pb.PbSolver`
    builds through the C API:

    - each group starts at exactly one place;
    - a group starting at ``p`` fills its ``size`` cells, and the next group starts at
      ``p + size + 1`` or later (the gap);
    - a cell is filled only if some group's start puts it inside that group, so every other
      cell, gaps included, is empty.

    Those rules imply that the cells just before and just after a group are empty, but
    only through a chain of them that the SAT engine's propagation does not follow. Saying
    it outright, two clauses per start, cut the time of some large random puzzles from
    minutes to seconds (see the README).
    """
    slack = len(cells) - (sum(clue) + len(clue) - 1)
    covers: list[list[int]] = [[] for _ in cells]
    earliest = 0
    groups: list[tuple[int, dict[int, int]]] = []
    for size in clue:
        starts = {}
        for place in range(earliest, earliest + slack + 1):
            starts[place] = start = free
            free += 1
            for k in range(place, place + size):
                covers[k].append(start)
                solver.add_clause([-(start + 1), cells[k] + 1])
            for k in (place - 1, place + size):  # the cells that bound the group
                if 0 <= k < len(cells):
                    solver.add_clause([-(start + 1), -(cells[k] + 1)])
        solver.add_exactly(list(starts.values()), 1)
        groups.append((size, starts))
        earliest += size + 1
    for (size, starts), (_, following) in pairwise(groups):
        for place, start in starts.items():
            after_gap = [later + 1 for at, later in following.items() if at > place + size]
            solver.add_clause([-(start + 1), *after_gap])
    for cell, cover in zip(cells, covers):
        solver.add_clause([-(cell + 1), *(start + 1 for start in cover)])
    return free


def _check(rows: tuple[Clue, ...], columns: tuple[Clue, ...],
           where: Callable[[str, int], str]) -> None:
    """Raise for clues no grid of their size can fit (:class:`UnfittableClues`, but for
    an empty side or a group under 1, plain faults); ``where`` names a stripe for
    messages."""
    if not rows or not columns:
        raise NonogramFormatError("a nonogram needs at least one row and one column")
    for stripe, clues, length, unit in (("row", rows, len(columns), "wide"),
                                        ("column", columns, len(rows), "high")):
        for index, clue in enumerate(clues):
            if any(size < 1 for size in clue):
                raise NonogramFormatError(f"{where(stripe, index)}: group lengths must be at "
                                          f"least 1: {_clue_text(clue)!r}")
            need = sum(clue) + len(clue) - 1
            if need > length:
                raise UnfittableClues(f"{where(stripe, index)}: {_clue_text(clue)!r} needs "
                                      f"{plural(need, 'cell')}; the grid is {length} {unit}",
                                      len(rows), len(columns))
    filled_rows, filled_columns = sum(map(sum, rows)), sum(map(sum, columns))
    if filled_rows != filled_columns:
        raise UnfittableClues(f"the row clues fill {plural(filled_rows, 'cell')} but the "
                              f"column clues fill {filled_columns}, so no grid fits both",
                              len(rows), len(columns))


def _parse_clue(number: int, line: str) -> Clue:
    if not line:
        return ()
    if not _NUMBERS.fullmatch(line):
        raise NonogramFormatError(f"line {number}: a clue is whole numbers separated by "
                                  f"spaces: {line!r}")
    groups = line.split()
    # int() refuses more than 4300 digits; no group of a grid this solver takes has four
    if any(len(group.lstrip("0")) > len(str(MAX_SIDE)) for group in groups):
        raise NonogramFormatError(f"line {number}: a group longer than any grid's side "
                                  f"(at most {MAX_SIDE}): {line[:40]!r}")
    sizes = tuple(map(int, groups))
    if sizes == (0,):
        return ()
    if 0 in sizes:
        raise NonogramFormatError(f"line {number}: 0 stands alone, for an empty stripe: "
                                  f"{line!r}")
    return sizes


def _clue_text(clue: Clue) -> str:
    return " ".join(map(str, clue)) or "0"


def _runs(cells: Sequence[bool]) -> Clue:
    """The lengths of the groups of filled cells, in order."""
    return tuple(len(list(group)) for filled, group in groupby(cells) if filled)

"""Exact mine probabilities of the unopened cells, and the guess they recommend.

When nothing is proven safe the player must guess, and the best single guess is the cell
least likely to hold a mine, over every layout that fits the board and the total mine count,
each layout equally likely. Listing those layouts is hopeless, but counting them is not:

1. the board becomes constraints (:class:`~autoplay.deduce.Problem`), and the saturated ones
   settle their cells (probability 0 or 1);
2. frontier cells that touch exactly the same constraints form a *box*: a layout matters only
   through how many mines each box holds, and k mines in a box of n cells stand for C(n, k)
   layouts;
3. boxes linked by constraints form independent *components*, each enumerated apart by
   backtracking over box counts, which gives for every total m of its mines the number of
   layouts W(m) and each box's mines summed over them;
4. the components meet only through the mine count: totals that leave r mines for the O
   cells touching no count weigh C(O, r) more.

All of it is integer arithmetic, so the probabilities are exact :class:`~fractions.Fraction`.
The enumeration is bounded (``budget``); past the bound a rough estimate stands in, marked
``exact=False`` and logged, so no position can stall a game.

>>> board = Board.parse('''
... mines: 2
... 1???
... ????
... ''')
>>> odds = mine_probabilities(board)
>>> odds.probabilities[Cell(0, 1)], odds.probabilities[Cell(0, 3)]
(Fraction(1, 3), Fraction(1, 4))
>>> guess = choose_guess(board, random.Random(0))
>>> guess.probability, guess.cell in {Cell(0, 3), Cell(1, 3)}
(Fraction(1, 4), True)
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from autoplay.board import UNKNOWN, Board, Cell
from autoplay.deduce import Constraint, Problem
from autoplay.errors import InconsistentBoard

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 200_000
"""Search steps allowed per position: well above what real expert positions take."""


@dataclass(frozen=True, slots=True)
class Odds:
    """The mine probability of every unknown cell of a board."""

    probabilities: Mapping[Cell, Fraction]
    """Each unknown cell's probability of holding a mine."""
    exact: bool
    """False when the work bound was hit and ``probabilities`` is only an estimate."""


@dataclass(frozen=True, slots=True)
class Guess:
    """A cell to open without proof, and the odds it was chosen on."""

    cell: Cell
    probability: Fraction
    """Its probability of holding a mine."""
    exact: bool
    """False when that probability is the fallback estimate."""


class _OutOfBudget(Exception):
    """The enumeration took more steps than allowed."""


@dataclass(frozen=True, slots=True)
class _Component:
    """Boxes (cells touching the same constraints) linked by constraints, in search order."""

    boxes: list[list[int]]
    """Flat cell indices of each box."""
    constraints: list[tuple[list[int], int]]
    """Each constraint as (the indices of its boxes, its mine count)."""


@dataclass(frozen=True, slots=True)
class _Tally:
    """A component's layouts, by their number of mines m."""

    ways: dict[int, int]
    """W(m): the number of layouts of the component's cells with m mines."""
    box_mines: dict[int, list[int]]
    """For each m, each box's mines summed over those W(m) layouts."""


def mine_probabilities(board: Board, *, budget: int = DEFAULT_BUDGET) -> Odds:
    """The probability that each unknown cell holds a mine, every fitting layout equally likely.

    Without a total mine count, every layout of the frontier counts once and a cell that
    touches no count is a mine in half of them.

    :raises InconsistentBoard: when no mine layout fits the board.
    """
    problem = Problem(board)
    settled = problem.propagate()
    residue = problem.residue(settled)
    mines_left = problem.mines_left
    if mines_left is not None:
        mines_left -= sum(settled.values())
    probabilities: dict[int, Fraction] = {
        j: Fraction(int(mine)) for j, mine in settled.items()}
    try:
        tallies = [(c, _enumerate(c, mines_left, budget))
                   for c in _components(residue, problem.unknown)]
        probabilities.update(_combine(tallies, problem.outside, mines_left))
        exact = True
    except _OutOfBudget:
        log.warning("odds: ESTIMATE, NOT EXACT: the enumeration of %d frontier cells took more "
                    "than %d steps; guessing from per-count densities", len(problem.frontier),
                    budget)
        probabilities.update(_estimate(residue, problem.outside, mines_left))
        exact = False
    return Odds({board.cell(j): p for j, p in sorted(probabilities.items())}, exact)


def choose_guess(board: Board, rng: random.Random, *, budget: int = DEFAULT_BUDGET) -> Guess:
    """The cell to open when none is proven safe: the lowest mine probability first.

    Ties (common: every cell that touches no count has the same odds) go to the cell with
    the fewest unopened neighbours, such as a corner of the unopened area: its count has
    the fewest cells to explain, so it is the likeliest to be a zero that opens an area, or
    to settle its neighbours at once. Remaining ties are broken by ``rng``.

    :raises InconsistentBoard: when no mine layout fits the board.
    :raises ValueError: when the board has no unknown cell.
    """
    odds = mine_probabilities(board, budget=budget)
    if not odds.probabilities:
        raise ValueError("no unknown cell left to guess")
    lowest = min(odds.probabilities.values())

    def unopened_around(cell: Cell) -> int:
        return sum(1 for j in board.neighbour_indices(board.index(cell))
                   if board.states[j] == UNKNOWN)

    ties = [cell for cell, p in odds.probabilities.items() if p == lowest]
    fewest = min(map(unopened_around, ties))
    cell = rng.choice([cell for cell in ties if unopened_around(cell) == fewest])
    return Guess(cell, lowest, odds.exact)


def _components(residue: Sequence[Constraint], unknown: Sequence[int]) -> list[_Component]:
    """Group the residue's cells into boxes, and the boxes into components.

    Boxes come in breadth-first order, so each constraint is complete (and prunes the
    search) soon after its first box is chosen.
    """
    touching: dict[int, list[int]] = {}
    for n, c in enumerate(residue):
        for j in c.cells:
            touching.setdefault(j, []).append(n)
    box_of: dict[tuple[int, ...], list[int]] = {}
    for j in unknown:
        if j in touching:
            box_of.setdefault(tuple(touching[j]), []).append(j)
    boxes_of_constraint: dict[int, list[tuple[int, ...]]] = {}
    for key in box_of:
        for n in key:
            boxes_of_constraint.setdefault(n, []).append(key)
    components = []
    seen: set[tuple[int, ...]] = set()
    for start in box_of:
        if start in seen:
            continue
        seen.add(start)
        order = [start]
        for key in order:
            for n in key:
                for other in boxes_of_constraint[n]:
                    if other not in seen:
                        seen.add(other)
                        order.append(other)
        position = {key: i for i, key in enumerate(order)}
        numbers = sorted({n for key in order for n in key})
        components.append(_Component(
            [box_of[key] for key in order],
            [([position[key] for key in boxes_of_constraint[n]], residue[n].mines)
             for n in numbers]))
    return components


def _enumerate(component: _Component, mines_left: int | None, budget: int) -> _Tally:
    """Every assignment of mine counts to the component's boxes that fits its constraints.

    Each box's range is cut by every constraint it is in: no more than the mines a
    constraint still needs, and no fewer than it needs beyond the room left in its other
    boxes, so a constraint's last box is forced and every leaf reached is a solution.
    """
    sizes = [len(box) for box in component.boxes]
    constraints_of: list[list[int]] = [[] for _ in sizes]
    need = [mines for _, mines in component.constraints]
    room = [0] * len(need)
    for n, (boxes, _) in enumerate(component.constraints):
        for b in boxes:
            constraints_of[b].append(n)
            room[n] += sizes[b]
    cap = math.inf if mines_left is None else mines_left
    counts = [0] * len(sizes)
    ways: dict[int, int] = {}
    box_mines: dict[int, list[int]] = {}
    steps = 0

    def search(b: int, total: int, weight: int) -> None:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise _OutOfBudget
        if b == len(sizes):
            ways[total] = ways.get(total, 0) + weight
            sums = box_mines.setdefault(total, [0] * len(sizes))
            for i, k in enumerate(counts):
                sums[i] += weight * k
            return
        size = sizes[b]
        low, high = 0, min(size, cap - total)
        for n in constraints_of[b]:
            high = min(high, need[n])
            low = max(low, need[n] - room[n] + size)
        for k in range(low, int(high) + 1):
            for n in constraints_of[b]:
                need[n] -= k
                room[n] -= size
            counts[b] = k
            search(b + 1, total + k, weight * math.comb(size, k))
            for n in constraints_of[b]:
                need[n] += k
                room[n] += size

    search(0, 0, 1)
    return _Tally(ways, box_mines)


def _combine(tallies: list[tuple[_Component, _Tally]], outside: Sequence[int],
             mines_left: int | None) -> dict[int, Fraction]:
    """Each cell's probability, weighing every component's totals against the others'."""
    probabilities: dict[int, Fraction] = {}
    if mines_left is None:
        probabilities.update((j, Fraction(1, 2)) for j in outside)
        for component, tally in tallies:
            total = sum(tally.ways.values())
            if total == 0:
                raise InconsistentBoard("no mine layout fits this board")
            for i, box in enumerate(component.boxes):
                mines = sum(sums[i] for sums in tally.box_mines.values())
                probabilities.update((j, Fraction(mines, total * len(box))) for j in box)
        return probabilities

    total_mines = mines_left

    def rest(frontier_mines: int) -> int:
        """The ways to place the mines the frontier leaves on the cells touching no count."""
        left = total_mines - frontier_mines
        return math.comb(len(outside), left) if 0 <= left <= len(outside) else 0

    distributions = [tally.ways for _, tally in tallies]
    before = [{0: 1}]
    for ways in distributions:
        before.append(_convolve(before[-1], ways))
    after = [{0: 1}]
    for ways in reversed(distributions):
        after.append(_convolve(after[-1], ways))
    after.reverse()
    everything = before[-1]
    layouts = sum(w * rest(m) for m, w in everything.items())
    if layouts == 0:
        raise InconsistentBoard("no mine layout fits this board and its mine count")
    if outside:
        outside_mines = sum(w * rest(m) * (mines_left - m) for m, w in everything.items())
        probabilities.update((j, Fraction(outside_mines, layouts * len(outside)))
                             for j in outside)
    for c, (component, tally) in enumerate(tallies):
        others = _convolve(before[c], after[c + 1])
        weight = {m: sum(w * rest(m + t) for t, w in others.items()) for m in tally.ways}
        for i, box in enumerate(component.boxes):
            mines = sum(sums[i] * weight[m] for m, sums in tally.box_mines.items())
            probabilities.update((j, Fraction(mines, layouts * len(box))) for j in box)
    return probabilities


def _convolve(a: Mapping[int, int], b: Mapping[int, int]) -> dict[int, int]:
    """The distribution of the sum of two independent totals, as counts of ways."""
    result: dict[int, int] = {}
    for m, x in a.items():
        for n, y in b.items():
            result[m + n] = result.get(m + n, 0) + x * y
    return result


def _estimate(residue: Sequence[Constraint], outside: Sequence[int],
              mines_left: int | None) -> dict[int, Fraction]:
    """A rough stand-in past the work bound: each constraint spreads its mines evenly, a
    frontier cell takes the highest density among its constraints, and the cells touching
    no count share what the mine count leaves."""
    probabilities: dict[int, Fraction] = {}
    for c in residue:
        density = Fraction(c.mines, len(c.cells))
        for j in c.cells:
            probabilities[j] = max(probabilities.get(j, Fraction(0)), density)
    if outside:
        if mines_left is None:
            density = Fraction(1, 2)
        else:
            spare = mines_left - sum(probabilities.values(), Fraction(0))
            density = min(max(spare / len(outside), Fraction(0)), Fraction(1))
        probabilities.update((j, density) for j in outside)
    return probabilities

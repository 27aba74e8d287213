"""Exact mine probabilities of the unopened cells, and the guess they recommend.

When nothing is proven safe the player must guess, and the best single guess is the cell
least likely to hold a mine, over every layout that fits the board and the total mine count,
each layout equally likely. Listing those layouts is hopeless, but counting them is not:

1. the board becomes constraints (:class:`~autoplay.deduction.Problem`), and the saturated ones
   settle their cells (probability 0 or 1);
2. frontier cells that touch exactly the same constraints form a *box*: a layout matters only
   through how many mines each box holds, and k mines in a box of n cells stand for C(n, k)
   layouts;
3. boxes linked by constraints form independent *components*, each counted apart
   (:func:`autoplay.boxes.tally`: by backtracking over box counts, or a sweep box by box
   on a long component), which gives for every total m of its mines the number of layouts
   W(m) and each box's mines summed over them;
4. the components meet only through the mine count: totals that leave r mines for the O
   cells touching no count weigh C(O, r) more.

All of it is integer arithmetic (:class:`LayoutCounter` gives the number of layouts and,
for each cell, the number that mine it), so the probabilities are exact
:class:`~fractions.Fraction`. The counter remembers each component's tally, for
:mod:`autoplay.lookahead`, which counts many positions that differ in one component; it
also lists the layouts themselves when they are few, and draws them at random for a
rollout. The counting is bounded (``budget``); past the bound a rough estimate stands
in, marked ``exact=False`` and logged, so no position can stall a game.

>>> board = Board.parse('''
... mines: 2
... 1???
... ????
... ''')
>>> odds = mine_probabilities(board)
>>> odds.probabilities[Cell(0, 1)], odds.probabilities[Cell(0, 3)]
(Fraction(1, 3), Fraction(1, 4))
>>> guess = lowest_probability_guess(board, random.Random(0))
>>> guess.probability, guess.cell in {Cell(0, 3), Cell(1, 3)}
(Fraction(1, 4), True)
"""

from __future__ import annotations

import bisect
import functools
import itertools
import logging
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from autoplay import boxes
from autoplay.board import UNKNOWN, Board, Cell, is_mine_like
from autoplay.boxes import DEFAULT_BUDGET, Component, OutOfBudget, Tally
from autoplay.deduction import (
    Constraint,
    Deduction,
    Problem,
    count_layouts_listed,
    deduce,
    find_layout,
)
from autoplay.errors import InconsistentBoard

log = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class Odds:
    """The mine probability of every unknown cell of a board."""

    probabilities: Mapping[Cell, Fraction]
    """Each unknown cell's probability of holding a mine."""
    exact: bool
    """False when the work bound was hit and ``probabilities`` is only an estimate."""


GuessReason = Literal["lowest probability", "forced guess", "secondary safety",
                      "endgame search"]
"""Why a guess was chosen: see :func:`lowest_probability_guess` and :mod:`autoplay.lookahead`."""


@dataclass(frozen=True, slots=True)
class Guess:
    """A cell to open without proof, and the odds it was chosen on."""

    cell: Cell
    probability: Fraction
    """Its probability of holding a mine."""
    exact: bool
    """False when that probability is the fallback estimate."""
    reason: GuessReason = "lowest probability"


@dataclass(frozen=True, slots=True)
class Count:
    """The layouts that fit a problem, counted: how many, and how many put a mine on each
    unknown cell. Integers throughout, so "safe" is ``mined == 0``, never a threshold."""

    layouts: int
    """The number of layouts (with a total mine count, of the whole board)."""
    groups: tuple[tuple[tuple[int, ...], int], ...]
    """Unknown cells (flat indices) that share their odds, with the number of layouts that
    put a mine on each one of them."""

    def mined(self) -> dict[int, int]:
        """For each unknown cell, the number of layouts that put a mine on it."""
        return {j: mined for cells, mined in self.groups for j in cells}


def count_layouts(board: Board, limit: int, *, budget: int = DEFAULT_BUDGET) -> int:
    """The number of mine layouts that fit the board, or ``limit + 1`` if there are more.

    Counted by box and component (:class:`LayoutCounter`), as the odds are; past that
    count's work bound ``budget``, listed to the limit
    (:func:`~autoplay.deduction.count_layouts_listed`). Listing came first until the sweep
    made counting quick on long components, and left a board whose count is near the fewest
    mines that fit without an answer: Z3 found no first layout in a minute.
    """
    try:
        count = LayoutCounter(budget).count(Problem(board))
    except InconsistentBoard:
        return 0
    if count is not None:
        return min(count.layouts, limit + 1)
    return count_layouts_listed(board, limit)


class LayoutCounter:
    """Counts the layouts of problems, work-bounded, remembering each component's tally.

    A player that looks ahead counts many positions that differ from the board in one
    component only (the one around the cell it imagines opened): the others are not
    counted again. ``budget`` bounds the steps of each component's count; ``combining``,
    when given, the steps all its counts together may spend weighing the components'
    totals against each other (one for each pair of a total of the components before one
    and a total of that one): on a board of hundreds of components, a count of big numbers
    takes a second, and a look-ahead makes dozens.
    """

    def __init__(self, budget: int = DEFAULT_BUDGET, *, combining: int | None = None) -> None:
        self.budget = budget
        self.combining = combining
        self.combined = 0
        """The steps spent combining so far."""
        self._tallies: dict[tuple[object, ...], Tally] = {}

    def is_spent(self) -> bool:
        """Whether the counts so far have spent more than ``combining``."""
        return self.combining is not None and self.combined > self.combining

    def count(self, problem: Problem) -> Count | None:
        """Count the layouts of ``problem``; None when a component needs more than the budget,
        or when the combining steps are spent (:meth:`is_spent`).

        :raises InconsistentBoard: when no mine layout fits.
        """
        settled = problem.propagate()
        components = boxes.components(problem.residue(settled), problem.unknown)
        try:
            tallies = [(c, self._tally(c, problem.mines_left)) for c in components]
        except OutOfBudget:
            return None
        if problem.mines_left is not None:
            self.combined += _combining_steps([tally.ways for _, tally in tallies])
        if self.is_spent():
            return None
        layouts, groups = _combine(tallies, problem.outside, problem.mines_unsettled(settled))
        groups.append((tuple(j for j, mine in settled.items() if mine), layouts))
        groups.append((tuple(j for j, mine in settled.items() if not mine), 0))
        return Count(layouts, tuple((cells, mined) for cells, mined in groups if cells))

    def layouts(self, problem: Problem, limit: int) -> list[frozenset[int]] | None:
        """Every layout of ``problem`` (its mined cells among ``problem.unknown``), when the
        board's mine count is known and there are at most ``limit``; else None.

        :raises InconsistentBoard: when no mine layout fits.
        """
        count = self.count(problem)
        if count is None or count.layouts > limit:
            return None
        settled = problem.propagate()
        left = problem.mines_unsettled(settled)
        if left is None:
            return None
        fixed = frozenset(j for j, mine in settled.items() if mine)
        partial: list[tuple[int, frozenset[int]]] = [(0, fixed)]
        for component in boxes.components(problem.residue(settled), problem.unknown):
            placements = [(total, layout)
                          for total, counts in boxes.assignments(component, left, self.budget)
                          for layout in boxes.placements(component.boxes, counts)]
            partial = [(m + total, mines | layout) for m, mines in partial
                       for total, layout in placements if m + total <= left]
            # Frontier layouts that leave too many mines for the cells touching no count
            # are only dropped at the end: bound them, though real boards never come close.
            if len(partial) > 16 * limit:
                return None
        return [mines | frozenset(rest) for m, mines in partial if 0 <= left - m
                for rest in itertools.combinations(problem.outside, left - m)]

    def sampler(self, problem: Problem) -> Callable[[random.Random], frozenset[int]] | None:
        """A function that draws a layout of ``problem`` (its mined cells among
        ``problem.unknown``) from the random stream it is given, every layout that fits
        equally likely; None when a component needs more than the budget.

        What a rollout deals to play a position on, many times over: the components are
        enumerated once, here. Each draw takes each component's total against the others'
        and the cells touching no count, then one of its box assignments with that total,
        weighed by its layouts, then the cells within each box.

        :raises InconsistentBoard: when no mine layout fits.
        :raises ValueError: when the board's mine count is unknown.
        """
        if problem.mines_left is None:
            raise ValueError("a layout is drawn only when the board's mine count is known")
        settled = problem.propagate()
        mines_left = problem.mines_unsettled(settled)
        assert mines_left is not None, "the count is known: checked above"
        fixed = [j for j, mine in settled.items() if mine]
        components = boxes.components(problem.residue(settled), problem.unknown)
        try:
            ways = [self._tally(c, problem.mines_left).ways for c in components]
            found = [[(total, counts, math.prod(map(math.comb, map(len, c.boxes), counts)))
                      for total, counts in boxes.assignments(c, mines_left, self.budget)]
                     for c in components]
        except OutOfBudget:
            return None
        outside = problem.outside
        aheads = list(_aheads(ways, _running_totals(ways), len(outside), mines_left))[::-1]
        if not aheads[0][0]:
            raise InconsistentBoard("no mine layout fits this board and its mine count")

        def draw(rng: random.Random) -> frozenset[int]:
            chosen, left = list(fixed), mines_left
            for c, component in enumerate(components):
                totals = list(ways[c].items())
                held = mines_left - left
                total = totals[_pick([w * aheads[c + 1][held + m] for m, w in totals], rng)][0]
                fitting = [(counts, weight) for m, counts, weight in found[c] if m == total]
                counts = fitting[_pick([weight for _, weight in fitting], rng)][0]
                for box, k in zip(component.boxes, counts):
                    chosen += rng.sample(box, k)
                left -= total
            return frozenset(chosen + rng.sample(outside, left))

        return draw

    def _tally(self, component: Component, cap: int | None) -> Tally:
        # The board's whole mine count caps every component: the cap stays the same for
        # every position looked at from one board, so their tallies can be shared.
        key = (component.key(), cap)
        tally = self._tallies.get(key)
        if tally is None:
            tally = self._tallies[key] = boxes.tally(component, cap, self.budget)
        return tally


def mine_probabilities(board: Board, *, budget: int = DEFAULT_BUDGET,
                       proven: Deduction | None = None) -> Odds:
    """The probability that each unknown cell holds a mine, every fitting layout equally likely.

    Without a total mine count, every layout of the frontier counts once and a cell that
    touches no count is a mine in half of them. Past the work bound the estimate keeps
    what is proven: ``proven``, a deduction the caller has (of this board, or of it without
    its mine count), else one made here.

    :raises InconsistentBoard: when no mine layout fits the board.
    """
    problem = Problem(board)
    count = LayoutCounter(budget).count(problem)
    if count is None:
        log.warning("odds: ESTIMATE, NOT EXACT: counting the layouts of %d frontier cells "
                    "took more than %d steps; guessing from a fit of each count's mines",
                    len(problem.frontier), budget)
        settled = _settled(board, deduce(board) if proven is None else proven)
        estimate = {j: Fraction(int(mine)) for j, mine in settled.items()}
        estimate.update(_estimate(problem.residue(settled),
                                  [j for j in problem.outside if j not in settled],
                                  problem.mines_unsettled(settled)))
        return Odds({board.cell(j): p for j, p in sorted(estimate.items())}, False)
    return Odds({board.cell(j): Fraction(mined, count.layouts)
                 for j, mined in sorted(count.mined().items())}, True)


def _settled(board: Board, deduction: Deduction) -> dict[int, bool]:
    """The cells ``deduction`` settles (flat index: True for a mine), for an estimate to
    keep: guessed from densities alone, a proven-safe cell could show odds of 80%, and a
    guess fall on a proven mine."""
    return ({board.index(cell): False for cell in deduction.safe}
            | {board.index(cell): True for cell in deduction.mines})


CLASSIC_MINES = {(9, 9): 10, (8, 8): 10, (16, 16): 40, (30, 16): 99}
"""The mine counts of the classic board sizes (width, height): Windows' three levels, and
the 8x8 beginner of its first versions, GNOME Mines and xbomb."""
ASSUMED_DENSITY = Fraction(1, 7)
"""The share of the cells taken as mines on a board of another size."""


def assume_mines(board: Board, *, budget: int = DEFAULT_BUDGET) -> Board:
    """The board with a mine count assumed when it has none, for guesses to be made on.

    Without a count every layout counts once, so a cell touching no count is a mine in half
    of them, where a real game has 12% to 21% of its cells mined: a guess would shun such
    cells for a frontier cell twice as likely to hold a mine. The count taken is the classic
    one of the board's size (:data:`CLASSIC_MINES`), else :data:`ASSUMED_DENSITY` of the
    cells, or the nearest count a layout fits that leaves an unopened cell safe (the game
    goes on). It is for guessing only: a cell is proven safe over every count. The board is
    returned as it is when it has a count. When counting its layouts would take
    more than ``budget`` steps, the counts taken from are those of one layout of the
    frontier, with any number of mines on the cells touching no count.

    :raises InconsistentBoard: when no mine layout fits the board.
    """
    if board.mines is not None:
        return board
    problem = Problem(board)
    settled = problem.propagate()
    counter = LayoutCounter(budget)
    shown = sum(1 for state in board.states if is_mine_like(state))
    fewest = shown + sum(settled.values())
    # The totals a layout can have, as intervals: the cells touching no count take any
    # number, so a handful of intervals stands for millions of totals on a huge board.
    totals = [(fewest, fewest + len(problem.outside))]
    try:
        for component in boxes.components(problem.residue(settled), problem.unknown):
            ways = counter._tally(component, None).ways
            totals = _merged([(low + m, high + m) for low, high in totals
                              for m, w in ways.items() if w])
    except OutOfBudget:
        layout = find_layout(board)
        if layout is None:
            raise InconsistentBoard("no mine layout fits this board") from None
        totals = [(len(layout), len(layout) + len(problem.outside))]
    if not totals:
        raise InconsistentBoard("no mine layout fits this board")
    all_mines = shown + len(problem.unknown)
    going_on = [(low, min(high, all_mines - 1)) for low, high in totals if low < all_mines]
    wanted = CLASSIC_MINES.get((board.width, board.height),
                               ASSUMED_DENSITY * board.width * board.height)
    nearest = min((min(max(total, low), high) for low, high in going_on or totals
                   for total in (math.floor(wanted), math.ceil(wanted))),
                  key=lambda total: (abs(total - wanted), total))
    return board.with_mines(nearest)


def _merged(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Closed integer intervals, overlapping or adjacent ones joined, in order."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted(intervals):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


NOTHING_TO_GUESS = "no unknown cell can be safe: nothing is left to guess"


def lowest_probability_guess(board: Board, rng: random.Random, *,
                             budget: int = DEFAULT_BUDGET,
                             proven: Deduction | None = None) -> Guess:
    """The cell to open when none is proven safe: the lowest mine probability first.

    Ties (common: every cell that touches no count has the same odds) go to the cell with
    the fewest unopened neighbours, such as a corner of the unopened area: its count has
    the fewest cells to explain, so it is the likeliest to be a zero that opens an area, or
    to settle its neighbours at once. Remaining ties are broken by ``rng``. ``proven``: see
    :func:`mine_probabilities`.

    :raises InconsistentBoard: when no mine layout fits the board.
    :raises ValueError: when no unknown cell can be safe (none is left, or all are mines).
    """
    odds = mine_probabilities(board, budget=budget, proven=proven)
    lowest = min(odds.probabilities.values(), default=Fraction(1))
    if lowest == 1:
        raise ValueError(NOTHING_TO_GUESS)
    ties = [cell for cell, p in odds.probabilities.items() if p == lowest]
    fewest = min(unopened_around(board, board.index(cell)) for cell in ties)
    cell = rng.choice([cell for cell in ties
                       if unopened_around(board, board.index(cell)) == fewest])
    return Guess(cell, lowest, odds.exact)


def unopened_around(board: Board, index: int) -> int:
    """How many unopened cells touch the cell at flat ``index``: the tie-break of guesses."""
    return sum(1 for j in board.neighbour_indices(index) if board.states[j] == UNKNOWN)


def _combine(tallies: list[tuple[Component, Tally]], outside: Sequence[int],
             mines_left: int | None) -> tuple[int, list[tuple[tuple[int, ...], int]]]:
    """The number of layouts, and the layouts with a mine on each cell, weighing every
    component's totals against the others' and the cells touching no count.

    Every division here is exact: k mines in a box of n cells come in C(n, k) layouts, and
    each cell holds a mine in k/n of them, a whole number C(n - 1, k - 1).
    """
    groups: list[tuple[tuple[int, ...], int]] = []
    if mines_left is None:
        totals = [sum(tally.ways.values()) for _, tally in tallies]
        layouts = math.prod(totals) * 2 ** len(outside)
        if layouts == 0:
            raise InconsistentBoard("no mine layout fits this board")
        if outside:
            groups.append((tuple(outside), layouts // 2))
        for (component, tally), total in zip(tallies, totals):
            for i, box in enumerate(component.boxes):
                mines = sum(sums[i] for sums in tally.box_mines.values())
                groups.append((tuple(box), mines * (layouts // total) // len(box)))
        return layouts, groups

    distributions = [tally.ways for _, tally in tallies]
    before = _running_totals(distributions)
    everything = before[-1]
    aheads = _aheads(distributions, before, len(outside), mines_left)
    ahead = next(aheads)  # the cells touching no count alone, by the frontier's mines
    layouts = sum(w * ahead[m] for m, w in everything.items())
    if layouts == 0:
        raise InconsistentBoard("no mine layout fits this board and its mine count")
    if outside:
        outside_mines = sum(w * ahead[m] * (mines_left - m) for m, w in everything.items())
        groups.append((tuple(outside), outside_mines // len(outside)))
    by_box: list[tuple[tuple[int, ...], int]] = []
    for c in reversed(range(len(tallies))):
        component, tally = tallies[c]
        weight = {m: sum(w * ahead[t + m] for t, w in before[c].items()) for m in tally.ways}
        for i, box in reversed(list(enumerate(component.boxes))):
            mines = sum(sums[i] * weight[m] for m, sums in tally.box_mines.items())
            by_box.append((tuple(box), mines // len(box)))
        ahead = next(aheads)
    return layouts, groups + by_box[::-1]


def _aheads(distributions: Sequence[Mapping[int, int]], before: Sequence[Mapping[int, int]],
            outside: int, mines_left: int) -> Iterator[dict[int, int]]:
    """For each c from the number of components down to 0, by the mines s the components
    before c hold (each total of ``before[c]``): the ways to place the rest of
    ``mines_left`` on the components from c on (their ``distributions`` of totals) and the
    ``outside`` cells touching no count.

    Each from the one after it, backwards from the cells touching no count alone: a
    component's weight for each of its totals is then one sum over the totals before it,
    where a convolution of all the other components took the square of their range, for
    each component.
    """
    everything = before[-1]
    fewest = min(everything, default=0)
    spreads = _spreads(outside, mines_left - max(everything, default=0), mines_left - fewest)
    ahead = {s: spreads[-1 - (s - fewest)] for s in everything}
    yield ahead
    for c in reversed(range(len(distributions))):
        ahead = {s: sum(w * ahead[s + m] for m, w in distributions[c].items())
                 for s in before[c]}
        yield ahead


@functools.lru_cache(maxsize=64)
def _spread(cells: int, mines: int) -> int:
    """The ways to place ``mines`` mines on ``cells`` cells (none when they do not fit).

    Kept: the positions a guess looks ahead to ask for the same few, and on a board of a
    million cells each is a number of some 400,000 digits, seconds to make."""
    return math.comb(cells, mines) if 0 <= mines <= cells else 0


@functools.lru_cache(maxsize=64)
def _spreads(cells: int, fewest: int, most: int) -> tuple[int, ...]:
    """The ways to place ``fewest`` to ``most`` mines on ``cells`` cells, in order (none
    where they do not fit).

    Each from the one before, C(n, k + 1) = C(n, k)·(n - k)/(k + 1): a board with hundreds
    of components asks for hundreds of them, and a ``math.comb`` of its own for each, of
    numbers of hundreds of digits, took 17 s of a guess's 19 on a sparse 60x60 board. Kept,
    as :func:`_spread` is."""
    low, high = max(fewest, 0), min(most, cells)
    if low > high:
        return (0,) * (most - fewest + 1)
    ways = [_spread(cells, low)]
    for k in range(low, high):
        ways.append(ways[-1] * (cells - k) // (k + 1))
    return (0,) * (low - fewest) + tuple(ways) + (0,) * (most - high)


def _pick(weights: Sequence[int], rng: random.Random) -> int:
    """An index drawn with chance proportional to its (integer, exact) weight; some weight
    is not zero."""
    cumulative = list(itertools.accumulate(weights))
    return bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))


def _combining_steps(distributions: Sequence[Mapping[int, int]]) -> int:
    """The steps :func:`_combine` takes on components with these distributions of totals:
    for each, the totals the components before it can take, times its own."""
    steps, low, high = 0, 0, 0
    for ways in distributions:
        steps += (high - low + 1) * len(ways)
        low, high = low + min(ways, default=0), high + max(ways, default=0)
    return steps


def _running_totals(distributions: Sequence[Mapping[int, int]]) -> list[dict[int, int]]:
    """The distributions of the total of the first k of ``distributions`` (independent
    totals, as counts of ways), for k from 0 to all of them."""
    running = [{0: 1}]
    for ways in distributions:
        running.append(_convolve(running[-1], ways))
    return running


def _convolve(a: Mapping[int, int], b: Mapping[int, int]) -> dict[int, int]:
    """The distribution of the sum of two independent totals, as counts of ways."""
    result: dict[int, int] = {}
    for m, x in a.items():
        for n, y in b.items():
            result[m + n] = result.get(m + n, 0) + x * y
    return result


_UNPROVEN = Fraction(1, 100)
"""An estimate keeps a cell not proven at least this far from 0 and 1, which mean proven."""
_SWEEPS = 200
"""At most this many rounds of :func:`_estimate`'s rescaling; far fewer are the rule."""
_CLOSE = 1e-3
"""A round after which every count's expected mines are within this of its number ends them."""


def _estimate(residue: Sequence[Constraint], outside: Sequence[int],
              mines_left: int | None) -> dict[int, Fraction]:
    """A stand-in past the work bound, for the cells not proven: the odds of independent
    cells that keep every count's expected mines, and the mine count's, and are otherwise
    the most even (the maximum-entropy fit), each within :data:`_UNPROVEN` of 0 and 1.

    Exact odds weigh every layout; these only make each count's mines come out right on
    average, so cells that share counts are off where the layouts correlate them. But
    they are consistent: the cells touching no count get the mines the frontier leaves
    (without a count, half of them, as in the exact odds). Each cell's log-odds is the sum
    of one weight per count it touches (and one for the mine count); the weights are
    found by fitting each count in turn, groups of counts that share no cell at once.
    """
    cells = sorted({j for c in residue for j in c.cells}.union(outside))
    if not cells:
        return {}
    at = {j: i for i, j in enumerate(cells)}
    disjoint = _disjoint(residue)
    groups = [[[at[j] for j in c.cells] for c in group] for group in disjoint]
    targets = [[c.mines for c in group] for group in disjoint]
    if mines_left is not None:
        groups.append([list(range(len(cells)))])
        targets.append([mines_left])
    batches = [(np.array([i for members in group for i in members]),
                np.repeat(np.arange(len(group)), [len(members) for members in group]),
                np.array(wanted, dtype=float)) for group, wanted in zip(groups, targets)]
    logit = np.zeros(len(cells))
    for _ in range(_SWEEPS):
        worst = 0.0
        for members, part, wanted in batches:
            shift = np.zeros(len(wanted))
            for _ in range(3):  # Newton's steps toward the shift that fits each count
                p = _sigmoid(logit[members] + shift[part])
                got = np.bincount(part, p, len(wanted))
                slope = np.bincount(part, p * (1 - p), len(wanted))
                shift += np.clip((wanted - got) / np.maximum(slope, 1e-12), -2, 2)
            worst = max(worst, float(np.abs(wanted - got).max()))
            logit[members] = np.clip(logit[members] + shift[part], -30, 30)
        if worst < _CLOSE:
            break
    low, high = float(_UNPROVEN), float(1 - _UNPROVEN)
    return {j: Fraction(round(min(max(p, low), high) * 1_000_000), 1_000_000)
            for j, p in zip(cells, _sigmoid(logit).tolist())}


def _sigmoid(logit: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Probabilities from log-odds."""
    p: npt.NDArray[np.float64] = 1 / (1 + np.exp(-logit))
    return p


def _disjoint(residue: Sequence[Constraint]) -> list[list[Constraint]]:
    """``residue`` in groups of constraints that share no cell (greedily, first fit)."""
    groups: list[list[Constraint]] = []
    taken: list[set[int]] = []
    for c in residue:
        for group, cells in zip(groups, taken):
            if cells.isdisjoint(c.cells):
                group.append(c)
                cells.update(c.cells)
                break
        else:
            groups.append([c])
            taken.append(set(c.cells))
    return groups

"""The guess that looks past the next click, for when nothing is proven safe.

The lowest mine probability is the best guess for one click, but a game is won only by
surviving every click, and a guess is also worth what it reveals. :func:`choose_guess` tries,
in order:

1. a *forced guess*: two cells that cannot both hold a mine and that no click elsewhere can
   ever tell apart, because every cell touching one of them (known mines aside) touches
   the other too, so exchanging them changes no count, now or later (:func:`forced_guess`).
   Whichever holds a mine, if one does, must be risked anyway, and what the other shows
   may help its neighbours, so one is opened at once;
2. the *endgame*: when at most :data:`ENDGAME_LAYOUTS` layouts are left, they are listed and
   the game tree is searched for the click that wins in the most of them (not the one that
   survives most: a click that survives but leaves a coin toss is worth half);
3. *secondary safety*: among the cells nearly as safe as the safest, the one that best
   survives this click and the next. For each number ``v`` the cell could show, the board
   is counted again with it shown, and its two safest cells s1 and s2 give
   ``P(shows v)·(4·s1 + s2)/5`` (:data:`BLEND`), summed over ``v``; a nudge of 0.1% times
   the chance that a proven-safe cell follows breaks near-ties. A cell that can show only
   one number is *dead*: opening it tells nothing, so it can be left for later at no cost,
   and it is played only when every candidate is dead.

   The candidates are the frontier cells with at least nine tenths (:data:`NEAR`) of the
   safest cell's safe layouts and, when they are within a twentieth of the safest frontier
   cell (:data:`OUTSIDE_NEAR`), the cells touching no count (only the promising ones when
   there are many).

   When a cell safer than the best candidate is safe in every layout where the candidate
   is (so that opening the candidate would prove it safe, whatever it shows), that cell is
   opened instead: it survives wherever the candidate would, and the candidate can still
   follow. Secondary safety alone misses this, since it credits the candidate with the
   proof.

The counts are exact integers from :class:`~autoplay.odds.LayoutCounter`, which
re-counts only the component each imagined number changes. Past the work bound, the
lowest probability decides (:func:`autoplay.odds.lowest_probability_guess`, which logs its
estimate); so it does, logged, when the counts looking ahead would spend more than
:data:`AHEAD_WORK` steps weighing the components against each other (a board of hundreds
of them).

Two cells on the edge that share a mine, and share every neighbour, are a forced guess:

>>> board = Board.parse('''
... mines: 1
... ?1
... ?1
... ''')
>>> guess = choose_guess(board, random.Random(0))
>>> guess.cell, guess.probability, guess.reason
(Cell(row=0, col=0), Fraction(1, 2), 'forced guess')
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from fractions import Fraction

from autoplay.board import MINE, UNKNOWN, Board, Cell, is_mine_like
from autoplay.boxes import DEFAULT_BUDGET
from autoplay.deduction import Deduction, Problem
from autoplay.errors import InconsistentBoard
from autoplay.odds import (
    NOTHING_TO_GUESS,
    Count,
    Guess,
    GuessReason,
    LayoutCounter,
    lowest_probability_guess,
    unopened_around,
)

ENDGAME_LAYOUTS = 5000
"""Search the game tree when at most this many layouts fit the board. In the first 1,000
expert games of tuning seed 5 there were 38 searches of 1,001 to 5,000 layouts; in 22 the
search's cell wins more of them than secondary safety's, each counted exactly under the
best play after (``tools/endgame_gain.py``): 0.575 game more won in all, 0.057 point of
win rate. It was 1,000 until the search got faster (commit 8455672)."""
ENDGAME_NODES = 400_000
"""Positions the endgame search may look at before it gives up for secondary safety. Of
those 38 searches, 35 finish within 400,000, keeping 0.050 point
of the 0.057; 20 within 100,000 (0.024 point), 30 within 200,000 (0.043), 37 within
1,000,000 (0.057)."""
AHEAD_WORK = 200_000
"""Steps of combining components (:class:`~autoplay.odds.LayoutCounter`'s ``combining``) a
guess may spend on all its counts; past them the lowest probability decides. The most a
guess took in 300 expert and 1,000 intermediate games of seed 2026 was 1,530 (a one-off
script that read ``LayoutCounter.combined`` after each guess); the 120x120
board of 4,320 mines with 555 counts scattered over it in the README ("The player") takes
2,915,814 to look ahead (38.6 s on commit 46dcf4f)."""
CANDIDATES = 20
"""At most this many cells are looked ahead from, the safest first."""
_NUDGE = 1000
"""Secondary safety is multiplied by 1 + P(progress) / _NUDGE."""
ALL_OUTSIDE = 30
"""When this many cells touching no count are as safe as a candidate, only the promising
ones are looked ahead from."""
NEAR = Fraction(9, 10)
"""Frontier cells with at least this share of the safest cell's safe layouts are looked
ahead from."""
OUTSIDE_NEAR = Fraction(19, 20)
"""Cells touching no count join them when they have more than this share of the safest
frontier cell's safe layouts."""
BLEND = (4, 1)
"""The weights of the safest and the second safest cell after a guess, in its secondary
safety."""


log = logging.getLogger(__name__)


class _TooBig(Exception):
    """The endgame search looked at more positions than allowed."""


_DEPTH = 200
"""Positions nested in one another that the endgame search may go through before it gives
up: each takes three Python frames, and Python allows a thousand. A board of thousands of
cells and a mine or two can chain thousands of proven-safe cells."""

_Split = tuple[int, int, tuple[int, ...]]
"""A cell the endgame search may open: its flat index, the layouts (bits) that mine it,
and those where it is safe, by the number it shows."""


def choose_guess(board: Board, rng: random.Random, *, budget: int = DEFAULT_BUDGET,
                 proven: Deduction | None = None) -> Guess:
    """The cell to open when none is proven safe: see the module docstring.

    ``rng`` breaks ties between equally good cells; ``budget`` bounds the count of each
    component, and ``proven`` (a deduction the caller has) is kept past it, as in
    :func:`~autoplay.odds.mine_probabilities`.

    :raises InconsistentBoard: when no mine layout fits the board.
    :raises ValueError: when no unknown cell can be safe (none is left, or all are mines).
    """
    problem = _reduced(Problem(board))
    counter = LayoutCounter(budget, combining=AHEAD_WORK)

    def lowest_probability() -> Guess:
        if counter.is_spent():
            log.warning("guess: looking ahead would take more than %d steps of combining "
                        "components; the lowest probability decides", AHEAD_WORK)
        return lowest_probability_guess(board, rng, budget=budget, proven=proven)

    count = counter.count(problem)
    if count is None:
        return lowest_probability()
    mined = count.mined()
    if all(mines == count.layouts for mines in mined.values()):
        raise ValueError(NOTHING_TO_GUESS)

    def guess(cell: int, reason: GuessReason) -> Guess:
        return Guess(board.cell(cell), Fraction(mined[cell], count.layouts), True, reason)

    safe = [j for j, mines in mined.items() if mines == 0]
    if safe:  # only under an assumed mine count (odds.assume_mines): safe at those odds
        return guess(min(safe), "lowest probability")
    forced = forced_guess(problem, counter, mined, count.layouts)
    if forced is not None:
        return guess(forced, "forced guess")
    layouts = counter.layouts(problem, ENDGAME_LAYOUTS)
    if layouts is not None:
        move = endgame_move(problem, layouts, nodes=ENDGAME_NODES)
        if move is not None:
            return guess(move, "endgame search")
    cell = _secondary_safety(problem, counter, count, mined, rng)
    if cell is None:
        return lowest_probability()
    return guess(cell, "secondary safety")


def _reduced(problem: Problem) -> Problem:
    """The problem with the mines its saturated counts prove marked on the board.

    Every position looked at ahead would prove them again, and a count whose unknown
    cells are all such mines drops out: a player who does not flag leaves dozens of them.
    """
    mines = [problem.board.cell(j) for j, mine in problem.propagate().items() if mine]
    return Problem(problem.board.with_states(dict.fromkeys(mines, MINE))) if mines else problem


def forced_guess(problem: Problem, counter: LayoutCounter, mined: dict[int, int],
                 layouts: int) -> int | None:
    """An unknown cell (flat index) whose risk no play can avoid, or None.

    Two *twins*, unknown cells where every other cell touching one touches the other too
    or is a known mine, can be exchanged without changing any count, shown or to come:
    only opening one of them tells them apart. When they cannot both hold a mine, the
    exchange pairs each layout mining one with a layout mining the other, so every way of
    playing loses at least one layout of each pair, and opening one twin now loses just
    those: whatever a player would learn first, the same can be played after it, the
    twins exchanged if it would have opened the other one first. What the twin shows
    comes for free. (Two cells whose every neighbour is a known mine are twins too, but
    dead, since opening one tells nothing; they are left to the later steps.)
    """
    board = problem.board
    known = {j for j, state in enumerate(board.states) if is_mine_like(state)}
    known.update(j for j, mine in mined.items() if mine == layouts)

    def never_both(a: int, b: int) -> bool:
        """Whether no layout mines both (False when the work bound stops the count)."""
        try:
            found = counter.count(problem.assuming_mines((a, b)))
        except InconsistentBoard:
            return True
        return found is not None and found.layouts == 0

    # The neighbours of each undecided cell that are not known mines: two cells are twins
    # when these are the same, each twin aside. A twin's all touch the other twin, which is
    # therefore the first of them or touches it; and since two cells share at most four
    # neighbours, a twin has at most five, so it lies on the border or beside a known mine.
    near_known = {i for j in known for i in board.neighbour_indices(j)}
    free = {j: around for j in problem.unknown
            if (j in near_known or _on_border(board, j))
            and 0 < mined[j] < layouts
            and 0 < len(around := set(board.neighbour_indices(j)) - known) <= 5}
    for a, around in free.items():
        first = min(around)
        for b in (first, *board.neighbour_indices(first)):
            if b > a and b in free and around - {b} == free[b] - {a} and never_both(a, b):
                return a
    return None


def endgame_move(problem: Problem, layouts: Sequence[frozenset[int]], *,
                 nodes: int = ENDGAME_NODES) -> int | None:
    """The unknown cell (flat index) to open that wins the most of ``layouts``, every layout
    of the board (each a set of mined cells), under the best play after it; None when the
    search would look at more than ``nodes`` positions.

    A position is the set of layouts still possible. Its value is the number of them a
    player wins: all of them when every cell is settled; when a proven-safe cell would tell
    something, the sum over what it shows (opening it first never hurts); otherwise the best
    over the undecided cells of the sum over the numbers each can show.

    Only whether a cell beats the best one found matters, so each position is asked whether
    it wins more than a *floor*, and answers with its value when it does and with any bound
    at or under the floor when it does not: a cell is dropped as soon as even winning
    every layout still to be summed could not lift it over the floor. Positions are
    remembered with their value or their bound. A cell settled in a position stays settled
    in every position after it, so each passes on only the cells still undecided.
    """
    search = _Endgame(problem, layouts, nodes)
    try:
        move = search.best(search.everything, search.splits, 0)[1]
    except _TooBig:
        return None
    assert move is not None, "the search starts where no cell is proven safe"
    return move


def endgame_wins(problem: Problem, layouts: Sequence[frozenset[int]], cell: int, *,
                 nodes: int = ENDGAME_NODES) -> int | None:
    """How many of ``layouts`` (as in :func:`endgame_move`) are won by opening ``cell`` (a
    flat index) and playing best after it; None past ``nodes`` positions. What a guess
    costs against the best one, counted exactly."""
    search = _Endgame(problem, layouts, nodes)
    _, _, shows = search.split(cell)
    try:
        return sum(search.wins(part, search.splits, -1) for part in shows)
    except _TooBig:
        return None


class _Endgame:
    """The endgame search of :func:`endgame_move`: layouts are bits, a position the set of
    them still possible."""

    def __init__(self, problem: Problem, layouts: Sequence[frozenset[int]], nodes: int):
        self.board = problem.board
        self.bit = {j: 1 << k for k, j in enumerate(problem.unknown)}
        self.masks = [sum(self.bit[j] for j in layout) for layout in layouts]
        self.everything = (1 << len(self.masks)) - 1
        self.splits = [split for j in problem.unknown
                       if len((split := self.split(j))[2]) + bool(split[1]) > 1]
        self.memo: dict[int, tuple[int, bool]] = {}  # a position's value, or a bound (False)
        self.nodes = nodes
        self.looked = 0
        self.depth = 0  # positions nested in the one being looked at

    def split(self, j: int) -> _Split:
        """Cell ``j``, the layouts that mine it, and those where it is safe by number shown."""
        board = self.board
        around = board.neighbour_indices(j)
        known = sum(1 for i in around if is_mine_like(board.states[i]))
        near = sum(self.bit[i] for i in around if board.states[i] == UNKNOWN)
        mine = 0
        shows: dict[int, int] = {}
        for k, layout in enumerate(self.masks):
            if layout & self.bit[j]:
                mine |= 1 << k
            else:
                value = known + (layout & near).bit_count()
                shows[value] = shows.get(value, 0) | 1 << k
        return j, mine, tuple(shows.values())

    def summed(self, parts: list[int], splits: list[_Split], floor: int, size: int) -> int:
        """The wins of ``parts`` (of ``size`` layouts in all) summed when over ``floor``,
        else a bound at or under it."""
        total, left = 0, size
        for part in parts:
            left -= part.bit_count()
            total += self.wins(part, splits, floor - total - left)
            if total + left <= floor:
                return total + left
        return total

    def best(self, position: int, splits: list[_Split], floor: int) -> tuple[int, int | None]:
        """The value of ``position`` when over ``floor``, with the cell that wins it (None
        when it needs no guess), else a bound at or under ``floor``, with None; ``splits``
        holds every cell still undecided there."""
        self.looked += 1
        if self.looked > self.nodes:
            raise _TooBig
        size = position.bit_count()
        options = []
        undecided = []
        for index, split in enumerate(splits):
            j, mine, shows = split
            mined = position & mine
            if mined == position:
                continue
            parts = [part for shown in shows if (part := position & shown)]
            if mined:
                undecided.append(split)
                options.append((size - mined.bit_count(), parts, j))
            elif len(parts) > 1:  # a proven-safe cell that tells something: opened first
                return self.summed(parts, undecided + splits[index + 1:], floor, size), None
        if not options:
            return size, None
        options.sort(key=lambda option: -option[0])
        most, choice = floor, None
        for safe, parts, j in options:
            if safe <= most:
                break
            value = self.summed(parts, undecided, most, safe)
            if value > most:
                most, choice = value, j
        return most, choice

    def wins(self, position: int, splits: list[_Split], floor: int) -> int:
        """:meth:`best`'s value or bound, remembered."""
        if not position & (position - 1):
            return 1  # one layout: nothing left to tell, won
        known = self.memo.get(position)
        if known is not None and (known[1] or known[0] <= floor):
            return known[0]
        if self.depth >= _DEPTH:
            raise _TooBig
        self.depth += 1
        try:
            value = self.best(position, splits, floor)[0]
        finally:
            self.depth -= 1
        self.memo[position] = value, value > floor
        return value


def _secondary_safety(problem: Problem, counter: LayoutCounter, count: Count,
                      mined: dict[int, int], rng: random.Random) -> int | None:
    """The living candidate with the best secondary safety (see the module docstring), the
    safest dead one if all are dead, or None when a count runs past the work bound."""
    layouts = count.layouts
    candidates = _candidates(problem, mined, layouts)
    scores: dict[int, int] = {}
    dead: list[int] = []
    clears: dict[int, set[int]] = {}
    for j in candidates:
        floor = max(scores.values(), default=0)
        try:
            score = _score(problem, counter, j, mined, layouts, floor, clears)
        except _OutOfBudgetAhead:
            return None
        if score is None:
            dead.append(j)
        elif score >= 0:
            scores[j] = score
    if not scores:
        return dead[0] if dead else candidates[0]
    top = max(scores.values())
    choice = rng.choice([j for j, score in scores.items() if score == top])
    # A safer cell that is safe wherever the choice is comes first (see the module docstring).
    safer = [j for j in clears[choice] if mined[j] < mined[choice]]
    if safer:
        return min(safer, key=lambda j: (mined[j], unopened_around(problem.board, j), j))
    return choice


def _candidates(problem: Problem, mined: dict[int, int], layouts: int) -> list[int]:
    """The cells worth looking ahead from, safest first: those on the frontier with at
    least nine tenths of the safest cell's safe layouts, and the cells touching no count
    when these are within a twentieth of the safest frontier cell (only the promising ones
    when there are :data:`ALL_OUTSIDE` or more, if any is); at most :data:`CANDIDATES` of
    them."""
    board = problem.board

    def tie_break(j: int) -> tuple[int, int, int]:
        return mined[j], unopened_around(board, j), j

    safest = layouts - min(mined.values())
    edge = [j for j in problem.frontier if mined[j] < layouts]
    edge_best = layouts - min((mined[j] for j in edge), default=layouts)
    candidates = [j for j in edge if layouts - mined[j] >= NEAR * safest]
    outside = [j for j in problem.outside if mined[j] < layouts]
    if outside and layouts - mined[outside[0]] > OUTSIDE_NEAR * edge_best:
        if len(outside) >= ALL_OUTSIDE:
            outside = _promising(problem, outside) or outside
        candidates += outside
    return sorted(candidates, key=tie_break)[:CANDIDATES]


def _promising(problem: Problem, outside: list[int]) -> list[int]:
    """The cells touching no count that are worth a look: two steps straight from a count
    (their number will link to the frontier), or with two or three unopened neighbours
    (likely to show a zero)."""
    board = problem.board
    states = board.states
    width, height = board.width, board.height
    chosen = set()
    for i, state in enumerate(states):
        if state < 0 or all(states[j] != UNKNOWN for j in board.neighbour_indices(i)):
            continue
        row, col = divmod(i, width)
        for r, c in ((row - 2, col), (row + 2, col), (row, col - 2), (row, col + 2)):
            if 0 <= r < height and 0 <= c < width:
                chosen.add(r * width + c)
    # At most three unopened neighbours needs the border, or a neighbour opened or known.
    near_open = {j for i, state in enumerate(states) if state != UNKNOWN
                 for j in board.neighbour_indices(i)}

    return [j for j in outside if j in chosen
            or ((j in near_open or _on_border(board, j)) and 2 <= unopened_around(board, j) <= 3)]


def _on_border(board: Board, index: int) -> bool:
    """Whether the cell at flat ``index`` has fewer than eight neighbours."""
    return len(board.neighbour_indices(index)) < 8


class _OutOfBudgetAhead(Exception):
    """A position looked at ahead needed more than the work bound."""


def _score(problem: Problem, counter: LayoutCounter, cell: int, mined: dict[int, int],
           layouts: int, floor: int, clears: dict[int, set[int]] | None = None) -> int | None:
    """Secondary safety of ``cell`` with its nudge, times sum(BLEND)·layouts·_NUDGE·layouts
    (so exact in integers); None for a dead cell, -1 once it cannot reach ``floor``.

    A complete count also puts in ``clears[cell]`` the other cells proven safe whatever
    ``cell`` shows: those safe in every layout where it is."""
    safe = layouts - mined[cell]
    weight = sum(BLEND)
    if weight * safe * (_NUDGE * layouts + safe) < floor:
        return -1
    board = problem.board
    around = board.neighbour_indices(cell)
    known = sum(1 for j in around if is_mine_like(board.states[j]))
    unknown = sum(1 for j in around if board.states[j] == UNKNOWN)
    total = progress = 0
    left = safe
    proven: set[int] | None = None
    for value in range(known, known + unknown + 1):
        try:
            after = counter.count(problem.with_count(cell, value))
        except InconsistentBoard:
            continue
        if after is None:
            raise _OutOfBudgetAhead
        if after.layouts == safe:
            return None
        shown_safe = {j for cells, m in after.groups if m == 0 for j in cells}
        proven = shown_safe if proven is None else proven & shown_safe
        first, second = _two_safest(after, cell)
        total += weight * after.layouts - BLEND[0] * first - BLEND[1] * second
        progress += after.layouts if first == 0 else 0
        left -= after.layouts
        if (total + weight * left) * (_NUDGE * layouts + progress + left) < floor:
            return -1
    if clears is not None:
        clears[cell] = (proven or set()) - {cell}
    return total * (_NUDGE * layouts + progress)


def secondary_safety(board: Board, cell: Cell, *,
                     budget: int = DEFAULT_BUDGET) -> Fraction | None:
    """The secondary safety of opening ``cell``, with its nudge (see the module docstring);
    None when the cell is dead or a proven mine, or the work bound is hit.

    :raises InconsistentBoard: when no mine layout fits the board.
    """
    problem = _reduced(Problem(board))
    counter = LayoutCounter(budget)
    count = counter.count(problem)
    index = board.index(cell)
    if count is None:
        return None
    mined = count.mined()
    if mined.get(index, count.layouts) == count.layouts:
        return None
    layouts = count.layouts
    try:
        score = _score(problem, counter, index, mined, layouts, 0)
    except _OutOfBudgetAhead:
        return None
    return None if score is None else Fraction(score, sum(BLEND) * layouts * _NUDGE * layouts)


def _two_safest(count: Count, skip: int) -> tuple[int, int]:
    """The mined layouts of the two safest cells other than ``skip`` and the sure mines (a
    missing cell counts as safe: the game would be won with it)."""
    values: list[int] = []
    for cells, mined in count.groups:
        if mined < count.layouts:
            values += [mined] * min(2, len(cells) - (skip in cells))
    values.sort()
    values += [0, 0]
    return values[0], values[1]

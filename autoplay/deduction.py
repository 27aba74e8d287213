"""Prove which unopened cells are safe and which are mines.

:func:`deduce` is sound and complete over the whole board: a cell is reported safe (a mine)
exactly when it is safe (a mine) in every mine layout that fits the counts, the flags and,
when the board knows it, the total mine count, including the unopened cells that touch no
count. It reads as a pipeline:

1. the board becomes constraints, "k mines among these unopened cells" (:class:`Problem`);
2. constraints that are already saturated (k = 0, or k = the number of cells) settle their
   cells, repeatedly, without Z3: most cells of a real game are settled here;
3. what is left falls into independent components; a component of one constraint settles
   nothing and needs no proof;
4. the rest goes to one incremental Z3 solver. The components stay independent (no
   constraint links them unless the total count binds), but they share the solver: measured
   on expert positions, a solver per component costs about 12% more and a guard literal per
   component about 60% more, because Z3's set-up per solver outweighs what smaller problems
   save (on frontiers of more than :data:`SPLIT_ABOVE` cells it is the other way round,
   below). Every model found witnesses a
   possible value for every cell at once (the model-reuse trick of the Kaboom article), and
   a cell whose other value no model has shown is asked about under an assumption;
   "unsatisfiable" is the proof. The total mine count couples the components only when it
   can bind; then it joins as two cardinality constraints over the frontier, because the
   cells that touch no count can take any number of mines from 0 to their number. On a
   large frontier each component is first settled on a solver of its own, without the
   count (which settles the board when the count does not bind), and its layouts are
   joined through the count by their numbers of mines; what no joined layout shows is
   settled by counting each component's layouts (:mod:`autoplay.boxes`), and only past
   that count's work bound asked of a solver over everything.

>>> board = Board.parse('''
... 1?
... ??
... ''')
>>> deduce(board).safe
frozenset()
>>> result = deduce(board.with_mines(1))
>>> sorted(result.safe), sorted(result.mines)
([], [])
>>> sorted(deduce(Board.parse("1?1")).mines)
[Cell(row=0, col=1)]
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from autoplay import boxes
from autoplay.board import MINE, UNKNOWN, Board, Cell, is_mine_like
from autoplay.errors import InconsistentBoard, plural
from autoplay.pb import PbSolver

_GuardedConstraint = Callable[[int], None]
"""Adds a constraint that holds only while the given guard literal is assumed."""


@dataclass(frozen=True, slots=True)
class Deduction:
    """What is proven about the unopened cells of a board."""

    safe: frozenset[Cell]
    """Cells without a mine in every layout that fits."""
    mines: frozenset[Cell]
    """Cells with a mine in every layout that fits."""
    undecided: frozenset[Cell] = frozenset()
    """Cells not settled: the deadline stopped their proof, or ``quick`` skipped it.
    Neither safe nor mine is claimed for them."""
    consistent: bool | None = True
    """True when a layout was found that fits the board (and its count); None when the
    deadline hit, or ``quick`` returned, before one was: the board may then have none, and
    what is proven holds only if it has one. (A board no layout fits raises
    :class:`~autoplay.errors.InconsistentBoard` instead.)"""

    def has_safe(self) -> bool:
        """True when at least one cell is proven safe."""
        return bool(self.safe)

    def is_complete(self) -> bool:
        """True when every cell was settled or shown to be open (no deadline was hit, and
        ``quick`` did not stop early)."""
        return not self.undecided


@dataclass(frozen=True, slots=True)
class Constraint:
    """The constraint "``mines`` of ``cells`` hold a mine": one count, less its known mines."""

    cells: tuple[int, ...]
    """Flat indices of unknown cells."""
    mines: int
    """How many of ``cells`` hold a mine."""
    source: int
    """Flat index of the count cell that states it (or of a required-safe cell itself), for
    error messages."""


class Problem:
    """A board as constraints over its unknown cells (flat indices).

    Shared with :mod:`autoplay.odds`, which counts the layouts of the same constraints.
    ``safe`` names unopened cells known to hold no mine (as a rule set can demand): each
    becomes the constraint "no mine among this one cell".
    """

    def __init__(self, board: Board, *, safe: Collection[Cell] = ()) -> None:
        self.board = board
        states = board.states
        self.unknown = [i for i, s in enumerate(states) if s == UNKNOWN]
        mine_like = {i for i, s in enumerate(states) if is_mine_like(s)}
        self.constraints: list[Constraint] = [
            Constraint((i,), 0, i) for i in sorted(map(board.index, safe)) if states[i] == UNKNOWN]
        for i, state in enumerate(states):
            if state < 0:
                continue
            around = board.neighbour_indices(i)
            cells = tuple(j for j in around if states[j] == UNKNOWN)
            known = len(mine_like.intersection(around)) if mine_like else 0
            mines = state - known
            if mines < 0:
                raise InconsistentBoard(f"cell {_name(board, i)} shows {state} but the flags "
                                        f"and mines around it number {known}")
            if mines > len(cells):
                raise InconsistentBoard(f"cell {_name(board, i)} shows {state} but has room "
                                        f"for only {plural(known + len(cells), 'mine')} "
                                        f"around it")
            if cells:
                self.constraints.append(Constraint(cells, mines, i))
        self.frontier = sorted({j for c in self.constraints for j in c.cells})
        in_frontier = set(self.frontier)
        self.outside = [i for i in self.unknown if i not in in_frontier]
        self.mines_left: int | None = None
        if board.mines is not None:
            self.mines_left = board.mines - len(mine_like)
            if self.mines_left < 0:
                shown = plural(len(mine_like), "flag or mine", "flags and mines")
                raise InconsistentBoard(f"no mine layout fits this board with "
                                        f"{plural(board.mines, 'mine')}: it shows {shown} "
                                        f"already")
            if self.mines_left > len(self.unknown):
                raise InconsistentBoard(f"no mine layout fits this board with "
                                        f"{plural(board.mines, 'mine')}: {self.mines_left} "
                                        f"would be left for "
                                        f"{plural(len(self.unknown), 'unopened cell')}")

    def with_count(self, index: int, count: int) -> Problem:
        """The problem once the unknown cell at flat ``index`` is opened and shows ``count``.

        What a player looking ahead imagines: the cell joins the constraints as safe, and
        its count as one more constraint over its unknown neighbours. The board itself is
        not copied, so this costs as little as the constraints do.

        :raises InconsistentBoard: when the count cannot be shown there.
        """
        states = self.board.states
        around = self.board.neighbour_indices(index)
        cells = tuple(j for j in around if states[j] == UNKNOWN)
        mines = count - sum(1 for j in around if is_mine_like(states[j]))
        if not 0 <= mines <= len(cells):
            raise InconsistentBoard(f"cell {_name(self.board, index)} cannot show {count}")
        added = [Constraint((index,), 0, index)]
        if cells:
            added.append(Constraint(cells, mines, index))
        return self._with(added)

    def assuming_mines(self, cells: Collection[int]) -> Problem:
        """The problem once the unknown cells at flat indices ``cells`` are supposed mines:
        what is left possible if they all are."""
        return self._with([Constraint(tuple(cells), len(cells), min(cells))])

    def _with(self, added: list[Constraint]) -> Problem:
        """A shallow copy with ``added`` constraints, their cells moved to the frontier."""
        problem = copy.copy(self)
        problem.constraints = [*self.constraints, *added]
        joined = {j for constraint in added for j in constraint.cells}
        problem.frontier = sorted(joined.union(self.frontier))
        problem.outside = [i for i in self.outside if i not in joined]
        return problem

    def propagate(self) -> dict[int, bool]:
        """Settle the cells of saturated constraints until none is left; no search.

        :raises InconsistentBoard: when two counts contradict each other.
        """
        settled: dict[int, bool] = {}
        of_cell: dict[int, list[int]] = {}
        for n, constraint in enumerate(self.constraints):
            for j in constraint.cells:
                of_cell.setdefault(j, []).append(n)
        open_cells = [len(c.cells) for c in self.constraints]
        mines = [c.mines for c in self.constraints]
        queue = [n for n, c in enumerate(self.constraints) if c.mines in (0, len(c.cells))]
        while queue:
            n = queue.pop()
            if open_cells[n] == 0:
                continue
            value = mines[n] > 0
            for j in self.constraints[n].cells:
                if j in settled:
                    continue
                settled[j] = value
                for m in of_cell[j]:
                    open_cells[m] -= 1
                    mines[m] -= value
                    if not 0 <= mines[m] <= open_cells[m]:
                        raise InconsistentBoard(
                            f"no mine layout fits this board: the counts at "
                            f"{_name(self.board, self.constraints[m].source)} and "
                            f"{_name(self.board, self.constraints[n].source)} contradict")
                    if mines[m] in (0, open_cells[m]):
                        queue.append(m)
        return settled

    def mines_unsettled(self, settled: dict[int, bool]) -> int | None:
        """The mines left for the cells ``settled`` leaves open (None: count not known)."""
        return None if self.mines_left is None else self.mines_left - sum(settled.values())

    def residue(self, settled: dict[int, bool]) -> list[Constraint]:
        """The constraints restricted to unsettled cells, dropping those left empty."""
        residue = []
        for c in self.constraints:
            cells = tuple(j for j in c.cells if j not in settled)
            if cells:
                mines = c.mines - sum(1 for j in c.cells if settled.get(j))
                residue.append(Constraint(cells, mines, c.source))
        return residue


def deduce(board: Board, *, timeout: float | None = None, quick: bool = False) -> Deduction:
    """Prove which unknown cells are safe and which are mines.

    Flags count as mines. ``timeout`` (seconds) bounds the search: cells it leaves unproven
    are returned as ``undecided``, never as safe or mines.

    ``quick`` is for a player, who needs one safe cell rather than all of them: when the
    saturated constraints (stage 2) already settle a safe cell, return at once, with every
    cell they leave unsettled undecided. Without such a cell it is the full deduction.

    >>> quick = deduce(Board.parse("01?\\n???"), quick=True)
    >>> sorted(quick.safe), sorted(quick.undecided)
    ([Cell(row=1, col=0), Cell(row=1, col=1)], [Cell(row=0, col=2), Cell(row=1, col=2)])

    :raises InconsistentBoard: when no mine layout fits the board (with ``quick``, only
        when stage 2 finds it out, settles every cell, or settles no safe cell).
    """
    stop = None if timeout is None else time.monotonic() + timeout
    problem = Problem(board)
    settled = problem.propagate()
    if quick and not all(settled.values()):
        unsettled = [j for j in problem.unknown if j not in settled]
        # Every cell settled is a layout that fits the counts, if it makes the mine count
        # (when not, the full proof below says so).
        if unsettled or problem.mines_unsettled(settled) in (None, 0):
            return Deduction(
                _cells(board, (j for j, mine in settled.items() if not mine)),
                _cells(board, (j for j, mine in settled.items() if mine)),
                _cells(board, unsettled), consistent=None if unsettled else True)
    proof = _Backbone(problem.residue(settled), problem.mines_unsettled(settled),
                      len(problem.outside), stop)
    safe = {j for j, mine in settled.items() if not mine} | proof.safe
    mines = {j for j, mine in settled.items() if mine} | proof.mines
    undecided = set(proof.undecided)
    if proof.outside is not None:
        (mines if proof.outside else safe).update(problem.outside)
    elif proof.outside_undecided:
        undecided.update(problem.outside)
    return Deduction(_cells(board, safe), _cells(board, mines), _cells(board, undecided),
                     proof.consistent)


def find_layout(board: Board, *, safe: Collection[Cell] = (), mines: Collection[Cell] = (),
                rng: random.Random | None = None) -> frozenset[Cell] | None:
    """One full mine layout that fits the board (flags and known mines included), or None.

    ``safe`` and ``mines`` are unopened cells the layout must leave clear or mine. With
    ``rng``, the layout is a random one: cell by cell in a random order, each takes a mine
    with the board's density of remaining mines when some layout still allows it. Every
    step is decided by what is possible, never by which model Z3 happens to return, so the
    same seed gives the same layout in any process.

    >>> board = Board.parse("mines: 1\\n?1?")
    >>> sorted(find_layout(board, mines=[Cell(0, 2)]))
    [Cell(row=0, col=2)]
    >>> find_layout(board, safe=[Cell(0, 0), Cell(0, 2)]) is None
    True
    """
    if mines:
        board = board.with_states({cell: MINE for cell in mines})
    try:
        problem = Problem(board, safe=safe)
        settled = problem.propagate()
    except InconsistentBoard:
        return None
    residue = problem.residue(settled)
    known = {j for j, mine in settled.items() if mine}
    known.update(i for i, s in enumerate(board.states) if is_mine_like(s))
    mines_left = problem.mines_unsettled(settled)
    if rng is None and mines_left is not None:
        try:
            return _cells(board, known | _counted_layout(problem, residue, mines_left))
        except InconsistentBoard:
            return None
        except boxes.OutOfBudget:
            pass  # a component too long to count: Z3 looks
    solver, variables, _ = _counting_solver(problem, settled, residue)
    if not solver.check():
        return None
    values = solver.values(variables)
    if rng is not None and variables:
        density = (mines_left or 0) / (len(problem.unknown) - len(settled))
        values = _random_values(solver, variables, values, density, rng)
    layout = known | {v for v, mine in zip(variables, values) if mine}
    if mines_left is not None:
        outside_mines = mines_left - sum(values)
        layout.update(problem.outside[:outside_mines] if rng is None
                      else rng.sample(problem.outside, outside_mines))
    return _cells(board, layout)


def _counted_layout(problem: Problem, residue: list[Constraint], mines_left: int) -> set[int]:
    """The mined cells, among those ``residue`` leaves open and those touching no count, of
    one layout that fits ``mines_left``: a number of mines for each component (counted,
    :mod:`autoplay.boxes`) that together leave the cells touching no count what they can
    hold, then a layout of each component with its number. Told a count near the fewest
    mines that fit, Z3 found no layout in a minute.

    :raises InconsistentBoard: when no layout fits.
    :raises boxes.OutOfBudget: when a component is too long to count.
    """
    components = boxes.components(residue, problem.unknown)
    counts = [set(boxes.tally(component, mines_left, boxes.DEFAULT_BUDGET).ways)
              for component in components]
    numbers = _combination(counts, mines_left - len(problem.outside), mines_left)
    if numbers is None:
        raise InconsistentBoard("no mine layout fits this board and its mine count")
    mined = set(problem.outside[:mines_left - sum(numbers)])
    for component, k in zip(components, numbers):
        mined.update(boxes.placement(component, k, boxes.DEFAULT_BUDGET))
    return mined


def _random_values(solver: PbSolver, variables: list[int], values: list[bool], density: float,
                   rng: random.Random) -> list[bool]:
    """Fix ``variables`` one by one in a random order to a random value that stays possible.

    ``values`` is a model of the solver. A model that agrees with every value fixed so far
    and with the wanted one proves it possible; only a model that disagrees costs a check.
    """
    fixed: list[int] = []
    order = list(range(len(variables)))
    rng.shuffle(order)
    for k in order:
        want = rng.random() < density
        literal = variables[k] + 1 if want else -(variables[k] + 1)
        if values[k] != want:
            if solver.check([*fixed, literal]):
                values = solver.values(variables)
            else:
                literal = -literal
        fixed.append(literal)
    return values


def count_layouts_listed(board: Board, limit: int) -> int:
    """The number of mine layouts that fit the board, or ``limit + 1`` if there are more,
    found by listing the frontier's layouts one by one (Z3, each new layout excluding those
    before).

    With a total mine count, each layout of the frontier stands for every way of placing the
    remaining mines on the cells that touch no count: one layout is often more than
    ``limit``.
    """
    try:
        problem = Problem(board)
        settled = problem.propagate()
    except InconsistentBoard:
        return 0
    residue = problem.residue(settled)
    solver, variables, mines_left = _counting_solver(problem, settled, residue)
    outside = len(problem.outside)
    total = 0
    while solver.check():
        values = solver.values(variables)
        if mines_left is None:
            total += 2 ** outside
        else:
            total += math.comb(outside, mines_left - sum(values))
        if total > limit or not variables:
            break
        solver.add_clause([-(v + 1) if mine else v + 1 for v, mine in zip(variables, values)])
    return min(total, limit + 1)


def wrong_flags(board: Board) -> frozenset[Cell]:
    """The flags that hold no mine in any layout that fits the rest of the board.

    Meant for a board that is inconsistent with its flags: if it is consistent once they are
    ignored, these are the flags to remove.

    :raises InconsistentBoard: when the board is inconsistent even without its flags.
    """
    return deduce(board.without_flags()).safe & frozenset(board.flags())


def _counting_solver(problem: Problem, settled: dict[int, bool],
                     residue: Sequence[Constraint]) -> tuple[PbSolver, list[int], int | None]:
    """A solver over every unsettled frontier cell, the mine count included."""
    variables = sorted({j for c in residue for j in c.cells})
    mines_left = problem.mines_unsettled(settled)
    return _solver(residue, variables, mines_left, len(problem.outside)), variables, mines_left


def _solver(constraints: Iterable[Constraint], variables: list[int], mines_left: int | None,
            outside: int) -> PbSolver:
    """A solver for ``constraints`` and, unless ``mines_left`` is None, the total count: the
    frontier ``variables`` hold the mines left, but for at most the ``outside`` cells' share."""
    solver = PbSolver()
    for c in constraints:
        solver.add_exactly(c.cells, c.mines)
    if mines_left is not None:
        solver.add_at_most(variables, mines_left)
        solver.add_at_least(variables, mines_left - outside)
    return solver


class _Backbone:
    """Settle the residue: which cells take one value in every layout, with Z3.

    After construction: ``safe`` and ``mines`` (flat indices), ``undecided`` (the deadline
    hit), for the cells that touch no count ``outside``: True (all mines), False (all
    safe) or None (open, or ``outside_undecided`` if the deadline hit first), and
    ``consistent``: True once a layout of the whole residue (with the count) is found, None
    if the deadline hit first.
    """

    def __init__(self, residue: list[Constraint], mines_left: int | None, outside: int,
                 stop: float | None) -> None:
        self.safe: set[int] = set()
        self.mines: set[int] = set()
        self.undecided: set[int] = set()
        self.outside: bool | None = None
        self.outside_undecided = False
        self.consistent: bool | None = None
        self._stop = stop
        components = _components(residue)
        binding = mines_left is not None and not _count_is_slack(components, mines_left, outside)
        # A lone constraint with 0 < k < n lets each of its cells be either: nothing to prove.
        hard = components if binding else [c for c in components if len(c) > 1]
        variables = sorted({j for comp in hard for c in comp for j in c.cells})
        if not binding:
            if not variables:
                self.consistent = True
                return
        elif not variables:
            assert mines_left is not None
            self._settle_outside_alone(mines_left, outside)
            self.consistent = True
            return
        counted = mines_left if binding else None
        if len(hard) > 1 and len(variables) > SPLIT_ABOVE:
            self._settle_apart(hard, variables, counted, outside)
            return
        solver = _solver((c for comp in hard for c in comp), variables, counted, outside)
        self._settle(solver, variables, counted, outside, _Seen())

    def _timeout_ms(self) -> int | None:
        if self._stop is None:
            return None
        return int((self._stop - time.monotonic()) * 1000)

    def _check(self, solver: PbSolver, assumptions: Sequence[int] = ()) -> bool | None:
        timeout = self._timeout_ms()
        if timeout is not None and timeout <= 0:
            return None
        return solver.check(assumptions, timeout_ms=timeout)

    def _settle(self, solver: PbSolver, variables: list[int], mines_left: int | None,
                outside: int, seen: _Seen) -> None:
        """Settle ``variables`` on ``solver``, which holds every constraint on them (and
        the count, unless ``mines_left`` is None). ``seen`` is what layouts of the whole
        board have shown already; it is added to."""
        if not seen.sums:
            first = self._first(solver, variables, counted=mines_left is not None)
            if first is None:
                self.undecided.update(variables)
                self.outside_undecided = mines_left is not None and outside > 0
                return
            seen.add(variables, first)
        self.consistent = True  # a layout seen, or joined from the components'
        if not self._witness(solver, variables, seen, seen.add):
            self.outside_undecided = mines_left is not None and outside > 0
            return
        if mines_left is not None and outside > 0:
            self._settle_outside(solver, variables, mines_left, outside, seen.sums)

    def _witness(self, solver: PbSolver, variables: list[int], seen: _Seen,
                 found: Callable[[list[int], list[bool]], None]) -> bool:
        """Ask, for each cell not yet seen both ways nor proven, for a layout where it takes
        its other value: ``found`` is given each one; "unsatisfiable" proves the cell.
        False when the deadline hit (what is not settled is then undecided)."""
        for v in variables:
            if not self._open(v, seen):
                continue
            was_mine = v in seen.mine
            answer = self._check(solver, [-(v + 1) if was_mine else v + 1])
            if answer:
                found(variables, solver.values(variables))
            elif answer is None:
                self.undecided.update(u for u in variables if self._open(u, seen))
                return False
            else:
                (self.mines if was_mine else self.safe).add(v)
        return True

    def _open(self, v: int, seen: _Seen) -> bool:
        """Whether cell ``v`` is neither proven nor yet seen both ways."""
        return (not (v in seen.mine and v in seen.safe)
                and v not in self.safe and v not in self.mines)

    def _settle_apart(self, components: list[list[Constraint]], variables: list[int],
                      mines_left: int | None, outside: int) -> None:
        """Settle each component on a solver of its own, then join them through the count
        (unless ``mines_left`` is None: without a count that binds, the components are
        independent, and settling each settles the board).

        A large frontier on one solver makes every check and every model cost the whole
        board. Here a component's layout (found without the count) witnesses its cells for
        the whole board when layouts seen of the other components make up the count. What
        no joined layout showed is settled by counting (:meth:`_count_apart`), or past its
        work bound by one solver over everything, the count included; a cell proven
        without the count is proven with it.
        """
        parts: list[tuple[list[int], list[list[bool]]]] = []
        for comp in components:
            cells = sorted({j for c in comp for j in c.cells})
            layouts = self._layouts_apart(comp, cells)
            if layouts is None:
                self.undecided.update(v for v in variables
                                      if v not in self.safe and v not in self.mines)
                self.outside_undecided = outside > 0
                return
            parts.append((cells, layouts))
        if mines_left is None:
            self.consistent = True  # the components are independent
            return
        join = _Join([[sum(values) for values in layouts] for _, layouts in parts],
                     mines_left - outside, mines_left)
        seen = _Seen()
        for i, (cells, layouts) in enumerate(parts):
            for values in layouts:
                total = join.total(i, sum(values))
                if total is not None:
                    seen.add(cells, values, total)
        if seen.sums:  # a component's layout, joined with the others' to make the count
            self.consistent = True
        settled_outside = outside == 0 or (bool(seen.sums) and min(seen.sums) < mines_left
                                           and max(seen.sums) > mines_left - outside)
        # No join seen leaves open whether any layout makes the count, even with every cell
        # proven within its component.
        if (not seen.sums or not settled_outside or any(self._open(v, seen) for v in variables)
                ) and not self._count_apart(components, variables, mines_left, outside):
            solver = _solver((c for comp in components for c in comp), variables, mines_left,
                             outside)
            self._settle(solver, variables, mines_left, outside, seen)

    def _count_apart(self, components: list[list[Constraint]], variables: list[int],
                     mines_left: int, outside: int) -> bool:
        """Settle the components through the count by counting their layouts, box by box
        (:func:`autoplay.boxes.tally`); False when one takes more than the work bound to
        count, and Z3 is asked instead.

        Z3 is slow here when the count binds near the fewest (or the most) mines the
        frontier can hold: each check must then show that few mines cannot fit, a counting
        argument its clauses make slow (a 100x100 position told 1,430 mines, 20 over its
        fewest, gave no answer in two minutes). Counted, each component's possible numbers
        of mines are known exactly; :func:`_join` keeps those a layout of the whole board
        can use, and a cell is safe (a mine) when no layout with those numbers mines it
        (leaves it clear). Every figure is an exact count, so this is as much a proof as
        Z3's.
        """
        counted: list[tuple[boxes.Component, boxes.Tally]] = []
        for comp in components:
            if self._stop is not None and time.monotonic() >= self._stop:
                self.undecided.update(v for v in variables
                                      if v not in self.safe and v not in self.mines)
                self.outside_undecided = outside > 0
                return True
            cells = sorted({j for c in comp for j in c.cells})
            for component in boxes.components(comp, cells):
                try:
                    counted.append((component, boxes.tally(component, mines_left,
                                                           boxes.DEFAULT_BUDGET)))
                except boxes.OutOfBudget:
                    return False
        usable, totals = _join([set(tally.ways) for _, tally in counted], mines_left - outside,
                               mines_left)
        if not totals:
            raise InconsistentBoard("no mine layout fits this board and its mine count")
        self.consistent = True
        if all(total == mines_left for total in totals):
            self.outside = False
        elif all(total == mines_left - outside for total in totals):
            self.outside = True
        for (component, tally), numbers in zip(counted, usable):
            layouts = sum(tally.ways[m] for m in numbers)
            for i, box in enumerate(component.boxes):
                mined = sum(tally.box_mines[m][i] for m in numbers)
                if mined == 0:
                    self.safe.update(box)
                elif mined == len(box) * layouts:
                    self.mines.update(box)
        return True

    def _layouts_apart(self, component: list[Constraint],
                       cells: list[int]) -> list[list[bool]] | None:
        """Layouts of ``component`` alone (``cells`` in order) that show every value each of
        its cells can take, proving the others; None when the deadline hit."""
        if len(component) == 1:  # k of n, 0 < k < n: k mines in a row, from each cell
            n, k = len(cells), component[0].mines
            return [[(j - start) % n < k for j in range(n)] for start in range(n)]
        solver = _solver(component, cells, None, 0)
        layouts: list[list[bool]] = []
        seen = _Seen()

        def found(variables: list[int], values: list[bool]) -> None:
            seen.add(variables, values)
            layouts.append(values)

        first = self._first(solver, cells, counted=False)
        if first is None:
            return None
        found(cells, first)
        return layouts if self._witness(solver, cells, seen, found) else None

    def _first(self, solver: PbSolver, variables: list[int], *,
               counted: bool) -> list[bool] | None:
        """The values of ``variables`` in a first layout; None when the deadline hit.

        :raises InconsistentBoard: when no layout fits.
        """
        first = self._check(solver)
        if first is False:
            raise InconsistentBoard("no mine layout fits this board" + (
                " and its mine count" if counted else ""))
        return None if first is None else solver.values(variables)

    def _settle_outside(self, solver: PbSolver, variables: list[int], mines_left: int,
                        outside: int, sums: list[int]) -> None:
        """The untouched cells can hold a mine iff some layout leaves mines for them."""
        can_mine = min(sums) < mines_left or self._possible(
            solver, lambda guard: solver.add_at_most(variables, mines_left - 1, when=guard))
        can_safe = max(sums) > mines_left - outside or self._possible(
            solver, lambda guard: solver.add_at_least(variables, mines_left - outside + 1,
                                                      when=guard))
        if can_mine is None or can_safe is None:
            self.outside_undecided = True
        elif not can_safe:
            self.outside = True
        elif not can_mine:
            self.outside = False

    def _possible(self, solver: PbSolver, add: _GuardedConstraint) -> bool | None:
        guard = solver.new_guard()
        add(guard)
        return self._check(solver, [guard])

    def _settle_outside_alone(self, mines_left: int, outside: int) -> None:
        if mines_left < 0:
            raise InconsistentBoard(f"no mine layout fits this board and its mine count: "
                                    f"its counts need more mines than it has "
                                    f"({-mines_left} more)")
        if mines_left > outside:
            raise InconsistentBoard(f"no mine layout fits this board and its mine count: "
                                    f"{plural(mines_left, 'mine')} would be left for "
                                    f"{plural(outside, 'cell')} that touch no count")
        if outside and mines_left == 0:
            self.outside = False
        elif outside and mines_left == outside:
            self.outside = True


@dataclass
class _Seen:
    """What the layouts found so far show: the cells seen as mines, those seen safe, and
    each layout's number of mines on the frontier."""

    mine: set[int] = field(default_factory=set)
    safe: set[int] = field(default_factory=set)
    sums: list[int] = field(default_factory=list)

    def add(self, variables: Sequence[int], values: list[bool], total: int | None = None) -> None:
        """A layout: ``values`` of ``variables``, and ``total`` mines on the whole frontier
        when ``variables`` are only part of it."""
        for v, mine in zip(variables, values):
            (self.mine if mine else self.safe).add(v)
        self.sums.append(sum(values) if total is None else total)


class _Join:
    """Whether a component's layout extends to the whole board under the mine count, from
    the counts the layouts seen of each component take.

    Greedy, and so it may miss a join that exists: a miss is settled by counting instead
    (:meth:`_Backbone._count_apart`).
    """

    def __init__(self, counts: list[list[int]], low: int, high: int) -> None:
        self._counts = [sorted(set(seen)) for seen in counts]
        self._base = [seen[0] for seen in self._counts]
        self._total = sum(self._base)
        self._low, self._high = low, high
        self._known: dict[tuple[int, int], int | None] = {}

    def total(self, part: int, count: int) -> int | None:
        """A frontier total within the count's bounds made of ``count`` mines in component
        ``part`` and counts seen in the others, or None if none is found."""
        key = (part, count)
        if key not in self._known:
            self._known[key] = self._search(part, count)
        return self._known[key]

    def _search(self, part: int, count: int) -> int | None:
        low, high = self._low, self._high
        total = self._total - self._base[part] + count
        for j, seen in enumerate(self._counts):
            if low <= total <= high:
                return total
            if j == part:
                continue
            base = self._base[j]
            if total < low:  # as far up as it goes without passing the top
                total += max((c for c in seen if total + c - base <= high), default=base) - base
            else:
                total += min((c for c in seen if total + c - base >= low), default=base) - base
        return total if low <= total <= high else None


def _join(counts: list[set[int]], low: int, high: int) -> tuple[list[set[int]], set[int]]:
    """Which of each component's possible numbers of mines (``counts``) some layout of the
    whole frontier uses, its total between ``low`` and ``high``; and those totals.

    A set of numbers is a bit set here, so that adding one component's numbers to all the
    sums so far is a few shifts: ``before[i]``, the sums the components before ``i`` can
    make, goes forwards; ``after``, those of them that the components from ``i`` on can
    complete to a total within bounds, backwards.

    >>> _join([{1, 2}, {0, 3}], 4, 4)
    ([{1}, {3}], {4})
    """
    before = _sums_before(counts)
    after = before[-1] & _window(low, high)
    totals = {k for k in range(after.bit_length()) if after >> k & 1}
    usable: list[set[int]] = []
    for i in reversed(range(len(counts))):
        numbers = {k for k in counts[i] if before[i] << k & after}
        usable.append(numbers)
        after = before[i] & _added(after, {-k for k in numbers})
    return usable[::-1], totals


def _combination(counts: list[set[int]], low: int, high: int) -> list[int] | None:
    """One of each component's possible numbers of mines (``counts``) that add up to a total
    between ``low`` and ``high`` (the fewest such), or None if none do (see :func:`_join`)."""
    before = _sums_before(counts)
    reachable = before[-1] & _window(low, high)
    if not reachable:
        return None
    total = (reachable & -reachable).bit_length() - 1
    chosen = []
    for i in reversed(range(len(counts))):
        k = min(k for k in counts[i] if k <= total and before[i] >> (total - k) & 1)
        chosen.append(k)
        total -= k
    return chosen[::-1]


def _sums_before(counts: list[set[int]]) -> list[int]:
    """For each i, the bit set of the totals the components before ``i`` can make."""
    before = [1]
    for numbers in counts:
        before.append(_added(before[-1], numbers))
    return before


def _window(low: int, high: int) -> int:
    """The bit set of the totals from ``low`` to ``high`` (none below 0)."""
    return (1 << (high + 1)) - (1 << max(low, 0)) if high >= max(low, 0) else 0


def _added(sums: int, numbers: Iterable[int]) -> int:
    """The bit set of ``sums`` (a bit set) each plus one of ``numbers`` (no sum below 0)."""
    total = 0
    for k in numbers:
        total |= sums << k if k >= 0 else sums >> -k
    return total


SPLIT_ABOVE = 100
"""Frontiers of more cells than this are settled a component at a
time (:meth:`_Backbone._settle_apart`). Timed against one solver on random positions of
16x16 to 60x60 (``large_board`` of ``tests/test_interrupts.py``), it was as fast or up to
three times faster from about 100 such cells up; below, neither was ahead."""


def _components(residue: list[Constraint]) -> list[list[Constraint]]:
    """Split constraints into groups that share no cell, so each can be settled apart."""
    parent: dict[int, int] = {}

    def root(j: int) -> int:
        while parent.setdefault(j, j) != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j

    for c in residue:
        first = root(c.cells[0])
        for j in c.cells[1:]:
            parent[root(j)] = first
    groups: dict[int, list[Constraint]] = {}
    for c in residue:
        groups.setdefault(root(c.cells[0]), []).append(c)
    return list(groups.values())


def _count_is_slack(components: list[list[Constraint]], mines_left: int, outside: int) -> bool:
    """True when the total count cannot bind: every frontier layout leaves the untouched
    cells strictly between none and all mined.

    Bounds per component: the counts of disjoint constraints add up to a lower bound; no
    component holds more mines than its cells, nor than its counts added up.
    """
    low = high = 0
    for comp in components:
        taken: set[int] = set()
        for c in sorted(comp, key=lambda c: -c.mines):
            if taken.isdisjoint(c.cells):
                taken.update(c.cells)
                low += c.mines
        high += min(len({j for c in comp for j in c.cells}), sum(c.mines for c in comp))
    return low > mines_left - outside and high < mines_left


def _cells(board: Board, indices: Iterable[int]) -> frozenset[Cell]:
    return frozenset(board.cell(i) for i in indices)


def _name(board: Board, index: int) -> str:
    row, col = board.cell(index)
    return f"({row}, {col})"


"""The layouts of a frontier, counted box by box: the counting behind the odds and the join.

Frontier cells that touch exactly the same counts form a *box*: a layout matters only
through how many mines each box holds, and k mines in a box of n cells stand for C(n, k)
layouts. Boxes linked by counts form independent *components* (:func:`components`). A
component's :class:`Tally` gives, for every total m of its mines, the number of its layouts
W(m) and each box's mines summed over them: :mod:`autoplay.odds` weighs the components
against each other with it, and :mod:`autoplay.deduction` joins them through the mine count.

:func:`tally` finds it in one of two ways, both exact integer counts:

1. backtracking over the boxes' counts (:func:`_search`), which visits every assignment:
   quick on the components of real games, which have few;
2. a *sweep* (:func:`_sweep`), when there are too many to visit: the boxes are taken in
   order, and all that is kept of the boxes passed is, for each count begun but not
   finished, the mines placed in it so far (a *state*), and for each state its layouts by
   their number of mines. A long component of a large board can have 2^50 assignments and
   more, but rarely more than a few hundred states at any point of the sweep, so its work
   grows with the component's length, not with its layouts.

Each is bounded by a number of steps; past both, :class:`OutOfBudget`.

>>> from autoplay.board import Board
>>> from autoplay.deduction import Problem
>>> problem = Problem(Board.parse("?????\\n1?2?1"))
>>> [component] = components(problem.residue(problem.propagate()), problem.unknown)
>>> component.boxes  # flat indices: the top row is 0-4, the bottom row's unknowns 6 and 8
[[0], [1, 6], [2], [3, 8], [4]]
>>> tally(component, None, DEFAULT_BUDGET)
Tally(ways={2: 4, 3: 4}, box_mines={2: [0, 4, 0, 4, 0], 3: [2, 2, 4, 2, 2]})
>>> _sweep(component, None, DEFAULT_BUDGET) == _enumerate(component, None, DEFAULT_BUDGET)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autoplay.deduction import Constraint

DEFAULT_BUDGET = 200_000
"""Steps allowed per component, to each of the two ways of counting it: well above what real
expert positions take."""


class OutOfBudget(Exception):
    """Counting a component took more steps than allowed."""


@dataclass(frozen=True, slots=True)
class Component:
    """Boxes (cells touching the same constraints) linked by constraints, in search order."""

    boxes: list[list[int]]
    """Flat cell indices of each box."""
    constraints: list[tuple[list[int], int]]
    """Each constraint as (the indices of its boxes, its mine count)."""

    def key(self) -> tuple[object, ...]:
        """What the component's layouts depend on: equal keys, equal tallies."""
        return (tuple(map(tuple, self.boxes)),
                tuple((tuple(boxes), mines) for boxes, mines in self.constraints))


@dataclass(frozen=True, slots=True)
class Tally:
    """A component's layouts, by their number of mines m (only the m some layout has)."""

    ways: dict[int, int]
    """W(m): the number of layouts of the component's cells with m mines."""
    box_mines: dict[int, list[int]]
    """For each m, each box's mines summed over those W(m) layouts."""


_Leaf = Callable[[int, int, list[int]], None]
"""Told of each fitting assignment: its total mines, its number of layouts, each box's mines."""


def components(residue: Sequence[Constraint], unknown: Sequence[int]) -> list[Component]:
    """Group the residue's cells into boxes, and the boxes into components.

    Boxes come in breadth-first order, so each constraint is complete (and prunes the
    search, or leaves the sweep's state) soon after its first box is taken.
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
    found = []
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
        found.append(Component(
            [box_of[key] for key in order],
            [([position[key] for key in boxes_of_constraint[n]], residue[n].mines)
             for n in numbers]))
    return found


ENUMERATE_FIRST = 1000
"""Steps of backtracking :func:`tally` takes before it turns to the sweep. Timed both ways on
the 829 components of 150 mid-game expert positions and four random 40x40 boards, a
component whose assignments take fewer steps than this is counted faster one assignment at
a time (three times faster under a hundred steps); past a thousand the sweep is ahead, and
past ten thousand many times over."""


def tally(component: Component, cap: int | None, budget: int) -> Tally:
    """The component's layouts with at most ``cap`` mines (any number if None), by their
    number of mines: by backtracking when it takes at most :data:`ENUMERATE_FIRST` steps,
    else by the sweep.

    :raises OutOfBudget: when the sweep takes more than ``budget`` steps.
    """
    try:
        return _enumerate(component, cap, min(budget, ENUMERATE_FIRST))
    except OutOfBudget:
        return _sweep(component, cap, budget)


def assignments(component: Component, cap: int, budget: int) -> list[tuple[int, list[int]]]:
    """The component's assignments of mines to boxes, each with its total (see
    :func:`_search`).

    :raises OutOfBudget: past ``budget`` steps.
    """
    found: list[tuple[int, list[int]]] = []
    _search(component, cap, budget, lambda total, _, counts: found.append((total, list(counts))))
    return found


def placements(boxes: list[list[int]], counts: list[int]) -> list[frozenset[int]]:
    """The cell layouts of one assignment of mine counts to boxes."""
    return [frozenset(itertools.chain.from_iterable(choice)) for choice in itertools.product(
        *(itertools.combinations(box, k) for box, k in zip(boxes, counts)))]


def _enumerate(component: Component, cap: int | None, budget: int) -> Tally:
    """The component's layouts by their number of mines, assignment by assignment (see
    :func:`_search`)."""
    ways: dict[int, int] = {}
    box_mines: dict[int, list[int]] = {}
    sizes = [len(box) for box in component.boxes]

    def tally(total: int, weight: int, counts: list[int]) -> None:
        ways[total] = ways.get(total, 0) + weight
        sums = box_mines.setdefault(total, [0] * len(sizes))
        for i, k in enumerate(counts):
            sums[i] += weight * k

    _search(component, cap, budget, tally)
    return Tally(ways, box_mines)


def _search(component: Component, cap: int | None, budget: int, leaf: _Leaf) -> None:
    """Every assignment of mine counts to the component's boxes that fits its constraints,
    with at most ``cap`` mines in all, each told to ``leaf``.

    Each box's range is cut by every constraint it is in: no more than the mines a
    constraint still needs, and no fewer than it needs beyond the room left in its other
    boxes, so a constraint's last box is forced and every leaf reached is a solution.

    :raises OutOfBudget: past ``budget`` steps.
    """
    sizes = [len(box) for box in component.boxes]
    constraints_of: list[list[int]] = [[] for _ in sizes]
    need = [mines for _, mines in component.constraints]
    room = [0] * len(need)
    for n, (boxes, _) in enumerate(component.constraints):
        for b in boxes:
            constraints_of[b].append(n)
            room[n] += sizes[b]
    most = math.inf if cap is None else cap
    counts = [0] * len(sizes)
    steps = 0

    def search(b: int, total: int, weight: int) -> None:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise OutOfBudget
        if b == len(sizes):
            leaf(total, weight, counts)
            return
        size = sizes[b]
        low, high = 0, min(size, most - total)
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


_Poly = tuple[int, int]
"""Layouts by their number of mines, packed: ``(low, packed)`` holds W(low + j) in bits
``j·slot`` to ``(j + 1)·slot`` of ``packed``, for the sweep's ``slot`` wide enough that no
count overflows into the next. Adding two such is one addition of integers, multiplying
them (their totals add) one multiplication, and both run in C however many totals there
are."""
_State = tuple[int, ...]
"""The mines placed so far in each constraint the sweep has begun and not finished."""


_Move = tuple[_State, int, _State]
"""A state, the number of mines the next box takes, and the state that leads to."""
_MOVE_BITS = 4096
"""A move of the sweep counts one step of its budget for each this many bits of the counts
it carries: on a frontier too wide to sweep those are numbers of millions of bits, and with
moves alone counted, one component of a 300x300 position took 4.4 s to count, one of a
100x100 checkerboard opening 2.9 s to be stopped. So counted, the slowest component of
random positions from 40x40 to 300x300 (``large_board`` of the tests, and checkerboard
openings too wide to count) takes 0.6 s to be counted or stopped."""


def _sweep(component: Component, cap: int | None, budget: int) -> Tally:
    """The component's layouts with at most ``cap`` mines by their number of mines, box by
    box: see the module docstring.

    Forwards (:func:`_forward`), the layouts up to each box by the state they reach.
    Backwards, ``after`` holds for each state the layouts of the boxes still to come that
    finish every constraint from it. A box's mines over all layouts are then, for each state
    after it, the layouts up to it weighted by its count, times those after it.

    :raises OutOfBudget: past ``budget`` steps (see :data:`_MOVE_BITS`).
    """
    layers, moves, slot = _forward(component, cap, budget)
    sizes = [len(box) for box in component.boxes]
    whole = layers[-1].get(())
    if whole is None:
        return Tally({}, {})
    ways = _unpacked(whole, slot)
    box_mines = {m: [0] * len(sizes) for m in ways}
    after: dict[_State, _Poly] = {(): (0, 1)}
    for i in reversed(range(len(sizes))):
        before, size = layers[i], sizes[i]
        weighted: dict[_State, _Poly] = {}  # the layouts up to box i, times its count
        earlier: dict[_State, _Poly] = {}
        for state, k, reached in moves[i]:
            if reached not in after:
                continue
            ways_k = math.comb(size, k)
            if k:
                low_total, packed = before[state]
                weighted[reached] = _plus(weighted.get(reached),
                                          (low_total + k, packed * ways_k * k), slot)
            low_total, packed = after[reached]
            earlier[state] = _plus(earlier.get(state), (low_total + k, packed * ways_k), slot)
        mines: _Poly | None = None
        for reached, (low_total, packed) in weighted.items():
            rest_low, rest = after[reached]
            mines = _plus(mines, (low_total + rest_low, packed * rest), slot)
        if mines is not None:
            for m, sum_k in _unpacked(mines, slot).items():
                if m in box_mines:
                    box_mines[m][i] = sum_k
        after = earlier
    return Tally(ways, box_mines)


def placement(component: Component, total: int, budget: int) -> list[int]:
    """The mined cells of one layout of the component with exactly ``total`` mines: the
    sweep forwards, then back from its end through states that the layouts before them
    reach with the mines left; each box mined in its first cells.

    :raises OutOfBudget: past ``budget`` steps (see :data:`_MOVE_BITS`).
    :raises ValueError: when no layout of the component has ``total`` mines.
    """
    layers, moves, slot = _forward(component, total, budget)
    if _count_of(layers[-1].get(()), total, slot) == 0:
        raise ValueError(f"no layout of the component has {total} mines")
    mined: list[int] = []
    state: _State = ()
    left = total
    for i in reversed(range(len(component.boxes))):
        state, k = next((before, k) for before, k, reached in moves[i] if reached == state
                        and _count_of(layers[i].get(before), left - k, slot))
        mined += component.boxes[i][:k]
        left -= k
    return mined


def _forward(component: Component, cap: int | None,
             budget: int) -> tuple[list[dict[_State, _Poly]], list[list[_Move]], int]:
    """The sweep's forward pass: ``layers[i]``, for each state after the first ``i`` boxes,
    the layouts of those boxes that reach it, with at most ``cap`` mines; ``moves[i]``,
    every move from a state of ``layers[i]``; and the bits a count takes in a packed
    polynomial.

    :raises OutOfBudget: past ``budget`` steps (see :data:`_MOVE_BITS`).
    """
    sizes = [len(box) for box in component.boxes]
    cells = sum(sizes)
    slot = cells + cells.bit_length() + 1  # a box's mines summed over every layout fit
    most = cells if cap is None else min(cap, cells)
    need = [mines for _, mines in component.constraints]
    room = [0] * len(need)
    last = [0] * len(need)
    touching: list[list[int]] = [[] for _ in sizes]
    for n, (boxes, _) in enumerate(component.constraints):
        for b in boxes:
            touching[b].append(n)
            room[n] += sizes[b]
        last[n] = max(boxes)
    layers: list[dict[_State, _Poly]] = [{(): (0, 1)}]
    moves: list[list[_Move]] = []
    begun: list[int] = []
    steps = 0
    for i, size in enumerate(sizes):
        entering = [n for n in touching[i] if n not in begun]
        current = begun + entering
        at = {n: p for p, n in enumerate(current)}
        for n in touching[i]:
            room[n] -= size  # now the room left after this box
        bounds = [(at[n], need[n], room[n]) for n in touching[i]]
        kept = [p for p, n in enumerate(current) if last[n] != i]
        padding = (0,) * len(entering)
        layer: dict[_State, _Poly] = {}
        made: list[_Move] = []
        for state, (low_total, packed) in layers[-1].items():
            placed = list(state + padding)
            low, high = 0, min(size, most - low_total)
            for p, wanted, left in bounds:
                low = max(low, wanted - placed[p] - left)
                high = min(high, wanted - placed[p])
            for k in range(low, high + 1):
                for p, _, _ in bounds:
                    placed[p] += k
                reached = tuple(placed[p] for p in kept)
                for p, _, _ in bounds:
                    placed[p] -= k
                made.append((state, k, reached))
                layer[reached] = _plus(layer.get(reached),
                                       (low_total + k, packed * math.comb(size, k)), slot)
            steps += max(high - low + 1, 1) * (1 + packed.bit_length() // _MOVE_BITS)
            if steps > budget:
                raise OutOfBudget
        layers.append({state: trimmed for state, poly in layer.items()
                       if (trimmed := _at_most(poly, most, slot))[1]})
        moves.append(made)
        begun = [current[p] for p in kept]
    return layers, moves, slot


def _plus(a: _Poly | None, b: _Poly, slot: int) -> _Poly:
    """The sum of two packed counts by total (``a`` None: nothing yet)."""
    if a is None:
        return b
    (low_a, packed_a), (low_b, packed_b) = a, b
    if low_a <= low_b:
        return low_a, packed_a + (packed_b << slot * (low_b - low_a))
    return low_b, packed_b + (packed_a << slot * (low_a - low_b))


def _at_most(poly: _Poly, most: int, slot: int) -> _Poly:
    """The packed counts of totals up to ``most`` only."""
    low, packed = poly
    if low > most:
        return low, 0
    if packed.bit_length() <= slot * (most - low + 1):  # a mask as long as the cap is not
        return poly  # made for nothing: on a wide component, millions of bits per state
    return low, packed & ((1 << slot * (most - low + 1)) - 1)


def _count_of(poly: _Poly | None, total: int, slot: int) -> int:
    """The packed count of layouts with ``total`` mines (none in a missing polynomial)."""
    if poly is None or total < poly[0]:
        return 0
    low, packed = poly
    return packed >> slot * (total - low) & ((1 << slot) - 1)


def _unpacked(poly: _Poly, slot: int) -> dict[int, int]:
    """The counts by total that are not zero."""
    low, packed = poly
    mask = (1 << slot) - 1
    found = {}
    j = 0
    while packed:
        if count := packed & mask:
            found[low + j] = count
        packed >>= slot
        j += 1
    return found

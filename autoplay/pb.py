"""A small incremental pseudo-boolean solver on top of Z3: the one place the solvers meet Z3,
and so also where a stop signal (Ctrl-C, SIGTERM, SIGHUP) reaches a check that is running
(:func:`ctrl_c_cancels_checks`), and where work a stop must not cut in two holds it off
(:func:`stops_held`).

Variables are plain integers ``0, 1, 2, ...``; a literal is ``v + 1`` for "v is true" and
``-(v + 1)`` for "v is false" (the DIMACS convention), so callers never touch Z3 objects.

Why the C API: building ``PbEq`` terms through z3's high-level Python API costs about 60 µs
each, which would dominate a deduction that takes a millisecond or two. The raw constructors
(``Z3_mk_pbeq`` and friends, ``Z3_mk_or`` and ``Z3_mk_not`` for clauses) and reading models
with ``Z3_model_get_const_interp`` are 3-6 times cheaper, while the solver is the same Z3
``QF_FD`` engine (a SAT solver with native cardinality constraints).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType

import z3
from z3 import z3core

from autoplay.errors import STOPS, SolverGaveUp

Literal = int
"""``v + 1`` asserts variable ``v``; ``-(v + 1)`` asserts its negation."""

_CTX = z3.main_ctx()
z3.set_param("ctrl_c", False)
"""Z3's own Ctrl-C handler takes a lock inside the signal handler, which hangs the process
when the signal finds the lock held, and the check it stops reads as "out of time". Checks
are cancelled from a thread instead (:func:`ctrl_c_cancels_checks`)."""
_CANCELLED = threading.Event()
_Z3_CODE = str(Path(z3.__file__).parent)
_NO_TIMEOUT = 2**32 - 1
"""Z3's timeout when none is set: the largest it takes, in milliseconds."""
_VARS: dict[int, tuple[z3.BoolRef, int]] = {}
"""Z3 constant and its declaration per variable, made once per process, shared by solvers."""


def _var(v: int) -> tuple[z3.BoolRef, int]:
    known = _VARS.get(v)
    if known is None:
        const = z3.Bool(f"v{v}", _CTX)
        known = _VARS[v] = (const, z3core.Z3_get_app_decl(_CTX.ref(), const.as_ast()))
    return known


_LITERALS: dict[Literal, z3.BoolRef] = {}
"""Z3 term per literal, made once per process: a nonogram's model states each literal in
many clauses, and making its negation anew each time was half the time of building it."""


def _ast(lit: Literal) -> z3.BoolRef:
    term = _LITERALS.get(lit)
    if term is None:
        var = _var(abs(lit) - 1)[0]
        term = _LITERALS[lit] = var if lit > 0 else z3.BoolRef(
            z3core.Z3_mk_not(_CTX.ref(), var.as_ast()), _CTX)
    return term


def _asts(terms: Sequence[z3.BoolRef]) -> ctypes.Array[ctypes.c_void_p]:
    """The terms as a C array; the caller keeps ``terms`` alive until Z3 has used it."""
    array: ctypes.Array[ctypes.c_void_p] = (z3.Ast * len(terms))(*(t.as_ast() for t in terms))
    return array


def z3_version() -> str:
    """The version of the Z3 library in use, for benchmark reports."""
    return str(z3.get_version_string())


class PbSolver:
    """An incremental solver: assert cardinality constraints, then ask under assumptions.

    Constraints guarded by an activation literal (``when=``) hold only when that literal is
    assumed, which lets one solver answer many temporary questions without push/pop.
    """

    def __init__(self) -> None:
        self._solver = z3.SolverFor("QF_FD", ctx=_CTX)
        # A random first guess for each variable makes each model differ from the last in
        # many cells, so one model witnesses more cells: half the checks of Z3's default.
        self._solver.set("phase", "random")
        # Cardinality constraints kept whole in the SAT solver, not compiled to clauses: Z3's
        # default turns the mine count over a large frontier into a sorting network of tens of
        # thousands of clauses, and a check then takes seconds instead of milliseconds.
        self._solver.set("cardinality.solver", True)
        self._model: z3.ModelRef | None = None
        self._next_guard = 0
        self._timeout = _NO_TIMEOUT

    def new_guard(self) -> Literal:
        """A fresh activation literal, distinct from every cell variable."""
        self._next_guard += 1
        return _GUARD_BASE + self._next_guard

    def add_exactly(self, variables: Sequence[int], k: int, *, when: Literal | None = None) -> None:
        """At least and at most ``k`` of ``variables`` are true."""
        self._add_pb(z3core.Z3_mk_pbeq, variables, k, when)

    def add_at_most(self, variables: Sequence[int], k: int, *, when: Literal | None = None) -> None:
        """At most ``k`` of ``variables`` are true."""
        self._add_pb(z3core.Z3_mk_pble, variables, k, when)

    def add_at_least(self, variables: Sequence[int], k: int,
                     *, when: Literal | None = None) -> None:
        """At least ``k`` of ``variables`` are true."""
        self._add_pb(z3core.Z3_mk_pbge, variables, k, when)

    def add_clause(self, lits: Sequence[Literal]) -> None:
        """At least one of ``lits`` holds."""
        with _gave_up():
            if not lits:
                self._solver.add(z3.BoolVal(False, _CTX))
                return
            terms = [_ast(lit) for lit in lits]
            ctx = _CTX.ref()
            clause = z3.BoolRef(z3core.Z3_mk_or(ctx, len(terms), _asts(terms)), _CTX)
            z3core.Z3_solver_assert(ctx, self._solver.solver, clause.as_ast())

    def check(self, assumptions: Sequence[Literal] = (), *,
              timeout_ms: int | None = None) -> bool | None:
        """Whether the constraints and ``assumptions`` can all hold; None if out of time.

        On True the model is kept for :meth:`values`.
        """
        timeout = _NO_TIMEOUT if timeout_ms is None else min(max(1, timeout_ms), _NO_TIMEOUT)
        if timeout != self._timeout:  # Z3 keeps it: a check without one must clear it
            self._solver.set("timeout", timeout)
            self._timeout = timeout
        if _CANCELLED.is_set():
            raise KeyboardInterrupt
        with _gave_up():
            result = self._solver.check(*(_ast(lit) for lit in assumptions))
            self._model = self._solver.model() if result == z3.sat else None
        if result == z3.sat:
            return True
        if result == z3.unsat:
            return False
        if _CANCELLED.is_set():
            raise KeyboardInterrupt
        reason = self._solver.reason_unknown()
        if reason != "timeout":
            raise SolverGaveUp(f"Z3 gave up: {reason}")
        return None

    def values(self, variables: Sequence[int]) -> list[bool]:
        """The values of ``variables`` in the last model (unconstrained ones read as False)."""
        if self._model is None:
            raise RuntimeError("values() needs a satisfiable check() first")
        ctx, model = _CTX.ref(), self._model.model
        values = []
        with _gave_up():
            for v in variables:
                interp = z3core.Z3_model_get_const_interp(ctx, model, _var(v)[1])
                values.append(bool(interp)
                              and z3core.Z3_get_bool_value(ctx, interp) == z3.Z3_L_TRUE)
        return values

    def _add_pb(self, make: Callable[..., int], variables: Sequence[int], k: int,
                when: Literal | None) -> None:
        n = len(variables)
        ctx = _CTX.ref()
        coeffs = (ctypes.c_int * n)(*([1] * n))
        with _gave_up():
            # Wrapping the new term in a BoolRef keeps Z3's reference count right.
            term = z3.BoolRef(make(ctx, n, _asts([_var(v)[0] for v in variables]), coeffs, k),
                              _CTX)
            if when is not None:
                term = z3.Implies(_ast(when), term)
            z3core.Z3_solver_assert(ctx, self._solver.solver, term.as_ast())


@contextlib.contextmanager
def _gave_up() -> Iterator[None]:
    """Z3 failing (out of memory, say), while a problem is built or checked, is one
    :class:`SolverGaveUp` rather than an error from deep inside z3's bindings."""
    try:
        yield
    except z3.Z3Exception as error:
        reason = error.value.decode() if isinstance(error.value, bytes) else str(error.value)
        raise SolverGaveUp(f"Z3 gave up: {reason}") from None


_stopped_by: list[int] = []
"""The signal stopping the run, once one has come."""


_interrupted: list[int] = []
"""The signal :func:`ctrl_c_cancels_checks` raised KeyboardInterrupt for, once it has."""


def stop_signal() -> int | None:
    """The signal that stopped the run (the first, if several came), or None."""
    return _stopped_by[0] if _stopped_by else None


def _stopped(signum: int) -> None:
    if not _stopped_by:
        _stopped_by.append(signum)


def cancel_checks() -> None:
    """Stop the check running in another thread, and every later one: each raises
    KeyboardInterrupt (an answer cut short must not read as "no layout fits")."""
    _CANCELLED.set()
    _CTX.interrupt()


@contextlib.contextmanager
def cancelled_as_interrupt() -> Iterator[None]:
    """For code that calls z3's own API (the benchmark's references, the articles' models):
    after :func:`cancel_checks`, its checks and calls raise KeyboardInterrupt, as those of
    :class:`PbSolver` do, not a Z3Exception ("push canceled"), nor give an answer cut short
    ("unknown")."""
    try:
        yield
    except z3.Z3Exception:
        if _CANCELLED.is_set():
            raise KeyboardInterrupt from None
        raise
    if _CANCELLED.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_cancels_checks() -> Iterator[None]:
    """Within this block (in the main thread), Ctrl-C, SIGTERM or SIGHUP stops a run at once
    and cleanly, as KeyboardInterrupt (:func:`stop_signal` tells which): context managers
    close what they hold (``sim``'s worker processes, a virtual screen), where SIGTERM's
    default would kill the process and leave its workers to print tracebacks.

    The signal wakes a thread that cancels the running check, which raises
    KeyboardInterrupt. Raised in the middle of z3's own Python code it would be lost (in a
    destructor) or turned into another error (in a ctypes call), so there it is left to
    the next check; anywhere else it is raised at once, as usual.
    """
    _stopped_by.clear()
    _interrupted.clear()
    read, write = os.pipe()
    os.set_blocking(write, False)
    old_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    old_handlers = {signum: signal.signal(signum, _interrupt_outside_z3)
                    for signum in _heeded()}
    threading.Thread(target=_cancel_on_stop, args=(read,), daemon=True).start()
    try:
        yield
    finally:
        for signum, handler in old_handlers.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(old_fd)
        os.close(write)  # the thread reads the end of the pipe, and stops


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Within this block, a stop signal (:data:`STOPS`) waits for the block's end, then
    stops the run as it would have: for work a stop must not cut in two, such as a game
    written to the statistics file and counted. Held in the main thread only, where Python
    takes signals; elsewhere the block holds nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    handlers = {signum: signal.signal(signum, lambda signum, _: held.append(signum))
                for signum in _heeded()}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if held:
            signal.raise_signal(held[0])


def _heeded() -> list[int]:
    """The stop signals not ignored when the run began: ``nohup`` ignores SIGHUP, and a
    shell script's background job SIGINT, and the run must go on ignoring them."""
    return [signum for signum in STOPS if signal.getsignal(signum) is not signal.SIG_IGN]


def _cancel_on_stop(read: int) -> None:
    with open(read, "rb", buffering=0) as wakeups:
        while signals := wakeups.read(64):
            stops = [signum for signum in signals if signum in STOPS]
            if stops:
                _stopped(stops[0])
                cancel_checks()


def _interrupt_outside_z3(signum: int, frame: FrameType | None) -> None:
    _stopped(signum)
    if _interrupted:  # a second stop (Ctrl-C, then the terminal closed) waits for the
        # first one's end, rather than interrupting the cleanup it runs
        return
    while frame is not None:
        if frame.f_code.co_filename.startswith(_Z3_CODE):
            return
        frame = frame.f_back
    _interrupted.append(signum)
    raise KeyboardInterrupt


_GUARD_BASE = 1 << 24
"""Guard variables live far above any cell index so the two never collide."""

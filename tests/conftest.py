"""Shared fixtures: a text-board helper, a real statistics file, and a check that nothing
logged an error."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autoplay.board import Board


@pytest.fixture
def board() -> Callable[[str], Board]:
    """Parse an indented triple-quoted text board: ``board('''...''')``."""
    return lambda text: Board.parse(textwrap.dedent(text))


@pytest.fixture(autouse=True)
def no_logged_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail any test during which the library logged an error (python-chess does the same)."""
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, f"errors were logged: {[r.getMessage() for r in errors]}"


@pytest.fixture
def stats_path(tmp_path: Path) -> Path:
    """Where a test's real SQLite statistics file goes."""
    return tmp_path / "stats.sqlite3"

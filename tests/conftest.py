"""Shared fixtures: a text-board helper, and a check that nothing logged an error."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable, Iterator

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

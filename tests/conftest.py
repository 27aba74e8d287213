"""Shared fixtures: a text-board helper, a real statistics file, a check that nothing
logged an error, a private folder for learned skins, and a virtual X display."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autoplay.board import Board
from autoplay.desktop import Capture, VirtualDisplay
from autoplay.vision import SKINS_ENV


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


@pytest.fixture(autouse=True)
def learned_skins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder for learned skins, private to the test: every test sees the shipped
    skins only, never the user's learned ones."""
    folder = tmp_path / "learned-skins"
    monkeypatch.setenv(SKINS_ENV, str(folder))
    return folder


@pytest.fixture(scope="session")
def xvfb() -> Iterator[str]:
    """One Xvfb for the whole session of each test process (pytest-xdist runs one a core;
    its number reported through ``-displayfd``, so they never clash), named
    by ``DISPLAY`` too: pyautogui binds to that display when first imported. One X
    connection stays open all along, so the server never sees its last client leave."""
    with VirtualDisplay() as display, Capture(display.name), pytest.MonkeyPatch.context() as mp:
        mp.setenv("DISPLAY", display.name)
        yield display.name

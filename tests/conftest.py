"""Shared fixtures: a real statistics file, and no ERROR log record left unnoticed."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def stats_path(tmp_path: Path) -> Path:
    """Where a test's real SQLite statistics file goes."""
    return tmp_path / "stats.sqlite3"


@pytest.fixture(autouse=True)
def _no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail any test during which autoplay logged an ERROR: errors are bugs here."""
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, f"ERROR logged: {errors[0].getMessage()}"

"""Shared test set-up: every test sees the shipped skins only, never the user's learned ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from autoplay.vision import SKINS_ENV


@pytest.fixture(autouse=True)
def learned_skins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty folder for learned skins, private to the test."""
    folder = tmp_path / "learned-skins"
    monkeypatch.setenv(SKINS_ENV, str(folder))
    yield folder

"""The house rules a machine can check: strict typing and the linter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_passes() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stdout


def test_ruff_passes() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "autoplay", "tests", "tools",
                             "fixtures"],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout

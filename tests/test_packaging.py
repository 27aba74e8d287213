"""What a plain ``pip install`` (a wheel, not the editable install) puts on a machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_wheel_carries_the_shipped_skins(tmp_path: Path) -> None:
    """The skins are read from inside the installed package, every file of templates/ there,
    and a screenshot reads with them; the benchmark that needs a checkout's screenshots says
    so in one line."""
    source = tmp_path / "source"  # as a clone has it
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*_cache", ".hypothesis", "*.egg-info", "build", "dist"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-deps", "--target", str(site), str(source)],
                   check=True, capture_output=True)
    shutil.rmtree(source)  # nothing may be found where it was built from

    env = {**os.environ, "PYTHONPATH": str(site), "AUTOPLAY_SKINS": str(tmp_path / "none")}

    def autoplay(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "autoplay", *args], cwd=tmp_path, env=env,
                              check=check, capture_output=True, text=True)

    command = subprocess.run([site / "bin" / "autoplay", "--version"], env=env, check=True,
                             capture_output=True, text=True)  # the console script's entry
    assert command.stdout.startswith("autoplay, version ")
    installed = site / "autoplay" / "templates"
    shipped = sorted(p.relative_to(ROOT / "templates")
                     for p in (ROOT / "templates").rglob("*") if p.is_file())
    assert sorted(p.relative_to(installed) for p in installed.rglob("*") if p.is_file()) == shipped
    listed = [line.split("\t") for line in autoplay("skin", "list").stdout.splitlines()]
    assert listed == [[p.name, str(p)] for p in sorted(installed.iterdir())]
    screenshot = ROOT / "fixtures" / "screenshots" / "sgt-mines" / "9x9-mid.png"
    assert autoplay("read", str(screenshot)).stdout == (
        screenshot.with_name("9x9-mid.board.txt").read_text())
    bench = autoplay("bench", "--suite", "vision", check=False)
    assert (bench.returncode, bench.stdout) == (1, "")
    assert bench.stderr.startswith("Error: the vision benchmark reads the screenshots of a "
                                   "source checkout") and bench.stderr.count("\n") == 1

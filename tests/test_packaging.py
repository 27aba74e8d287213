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
    and a screenshot reads with them."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    for name in ("autoplay", "templates"):
        shutil.copytree(ROOT / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-deps", "--target", str(site), str(source)],
                   check=True, capture_output=True)
    shutil.rmtree(source)  # nothing may be found where it was built from

    env = {**os.environ, "PYTHONPATH": str(site), "AUTOPLAY_SKINS": str(tmp_path / "none")}

    def autoplay(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "autoplay", *args], cwd=tmp_path, env=env,
                              check=True, capture_output=True, text=True).stdout

    installed = site / "autoplay" / "templates"
    shipped = sorted(p.relative_to(ROOT / "templates")
                     for p in (ROOT / "templates").rglob("*") if p.is_file())
    assert sorted(p.relative_to(installed) for p in installed.rglob("*") if p.is_file()) == shipped
    listed = [line.split("\t") for line in autoplay("skin", "list").splitlines()]
    assert listed == [[p.name, str(p)] for p in sorted(installed.iterdir())]
    screenshot = ROOT / "fixtures" / "screenshots" / "sgt-mines" / "9x9-mid.png"
    assert autoplay("read", str(screenshot)) == (
        screenshot.with_name("9x9-mid.board.txt").read_text())

"""The package's public names: each loads from its module on first use, so that importing
``autoplay`` (and starting the command) loads none of the heavy libraries."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import autoplay

INIT = Path(autoplay.__file__)


def test_importing_the_package_loads_no_heavy_library() -> None:
    code = "import autoplay, sys; print(*sorted(set(sys.modules) & {'cv2', 'numpy', 'z3'}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout == "\n"


def test_the_names_typed_listed_and_loaded_are_the_same() -> None:
    """Type checkers read the imports under TYPE_CHECKING, ``from autoplay import *`` reads
    ``__all__``, and the first use reads ``_HOMES``: they must name the same things."""
    tree = ast.parse(INIT.read_text())
    typed = {(node.module, alias.name) for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module
             and node.module.startswith("autoplay.") for alias in node.names}
    homes = {(f"autoplay.{module}", name)
             for module, names in autoplay._HOMES.items() for name in names}
    assert typed == homes
    assert sorted(autoplay.__all__) == sorted(name for _, name in homes)


@pytest.mark.parametrize("name", autoplay.__all__)
def test_a_public_name_is_its_modules_own(name: str) -> None:
    home = importlib.import_module(f"autoplay.{autoplay._HOME_OF[name]}")
    assert getattr(autoplay, name) is getattr(home, name)
    assert name in dir(autoplay)


def test_the_function_deduce_is_not_its_module() -> None:
    """``autoplay.deduce`` stays the function once every module is loaded."""
    importlib.import_module("autoplay.cli")
    assert callable(autoplay.deduce)
    assert autoplay.deduce.__module__ == "autoplay.deduction"


def test_a_name_that_is_not_public_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'autoplay' has no attribute 'nothing'"):
        autoplay.nothing  # noqa: B018 (the lookup is the test)


@pytest.mark.parametrize(("given", "used"), [(None, "1"), ("2", "2")])
def test_numpys_blas_runs_on_one_thread_unless_told_otherwise(given: str | None,
                                                               used: str) -> None:
    """Set on import, before NumPy loads: its threads made two locates side by side each
    take three times as long. A value the user gives is kept."""
    script = ("import os, autoplay.vision, numpy; "
              "print(os.environ['OPENBLAS_NUM_THREADS'])")
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == used

"""Where an installed package's own files are (bundled models, a dictionary), found without
importing it: importing a model package may pull in heavy libraries, and its files are all we read."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir(name: str) -> Path | None:
    """The folder of the installed package `name` (an import name); None when it is not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))

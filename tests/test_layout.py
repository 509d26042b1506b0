"""The layout docs/ARCHITECTURE.md describes, held against the code: every module named there,
none too long to read, the facade thin, one checker, and rag never importing ui."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

MODULES = sorted(p for folder in ("rag", "ui") for p in (ROOT / folder).glob("*.py"))
MAX_MODULE_LINES = 400
MAX_FACADE_LINES = 250


def test_the_architecture_page_names_every_module_and_the_readme_links_it() -> None:
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [str(p.relative_to(ROOT)) for p in MODULES if f"`{p.relative_to(ROOT)}`" not in page]
    assert not missing, f"add a row for each to docs/ARCHITECTURE.md: {missing}"
    assert "docs/ARCHITECTURE.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_no_module_is_over_400_lines_and_the_facade_is_thin() -> None:
    long = {str(p.relative_to(ROOT)): n for p in MODULES if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"split these: {long}"
    tree = ast.parse((ROOT / "rag" / "api.py").read_text(encoding="utf-8"))
    facade = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Paperchat")
    assert facade.end_lineno is not None and facade.end_lineno - facade.lineno + 1 <= MAX_FACADE_LINES


def imported(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_rag_never_imports_ui() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in MODULES if p.parent.name == "rag" and any(m == "ui" or m.startswith("ui.") for m in imported(p))]
    assert not offenders


def test_the_checker_is_defined_once() -> None:
    defined = [
        str(p.relative_to(ROOT))
        for p in MODULES
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name == "Verifier"
    ]
    assert defined == ["rag/verify.py"]

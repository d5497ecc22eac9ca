"""The project's shape holds by itself: one home per name, private modules stay private, small modules.

Rules (README, Layout): a name is imported from the outermost package that exports it in its
``__all__`` (``from model import Scenario``, not ``from model.scenario import Scenario``, outside
``model/``), otherwise from the module that defines it, never through a module that merely imported
it; a module whose name starts with an underscore is imported only from inside its own package;
``model/`` keeps at most 16 modules at its top. (No line cap: modules are cut by idea, not length;
DESIGN.md, revised 2026-12-04.)
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT_PACKAGES = ("model", "ui", "app_pages", "tests", "benchmarks")
SOURCES = [*sorted(path for folder in PROJECT_PACKAGES for path in (ROOT / folder).rglob("*.py")), ROOT / "app.py"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_path(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.exists():
            return candidate
    return None


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _exports(module: str) -> frozenset[str]:
    """The names in a module's ``__all__`` (empty when it has none)."""
    path = _module_path(module)
    if path is None:
        return frozenset()
    for node in _tree(path).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return frozenset(ast.literal_eval(node.value))
    return frozenset()


@functools.cache
def _defines(module: str) -> frozenset[str]:
    """The names a module defines itself at its top level (not the ones it imports)."""
    path = _module_path(module)
    if path is None:
        return frozenset()
    names: set[str] = set()
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            names |= {e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def _imports(path: Path) -> list[tuple[int, str, str]]:
    """Every ``from project.module import name`` in a file: (line, module, name)."""
    found = []
    for node in ast.walk(_tree(path)):
        project = isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROJECT_PACKAGES
        if project and node.level == 0:
            found.extend((node.lineno, node.module, alias.name) for alias in node.names)
    return found


def _inside(importer: str, package: str) -> bool:
    return importer == package or importer.startswith(package + ".")


def _home(importer: str, module: str, name: str) -> str | None:
    """Where ``name`` must be imported from by ``importer``, or None when it is not a project name."""
    if _module_path(f"{module}.{name}") is not None:
        return module  # a submodule: ``from model.analyses import fit``
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        package = ".".join(parts[:depth])
        if not _inside(importer, package) and name in _exports(package):
            return package
    return module


def _violations() -> list[str]:
    problems = []
    for path in SOURCES:
        importer = _module_name(path)
        where = path.relative_to(ROOT)
        for line, module, name in _imports(path):
            private = [part for part in module.split(".") if part.startswith("_") and part != "__init__"]
            if private:
                package = module[: module.index("." + private[0])]
                if not _inside(importer, package):
                    problems.append(f"{where}:{line}: imports the private module {module}")
            home = _home(importer, module, name)
            if home != module:
                problems.append(f"{where}:{line}: {name} is imported from {module}; its home is {home}")
            elif (
                _module_path(f"{module}.{name}") is None
                and name not in _defines(module)
                and name not in _exports(module)
            ):
                problems.append(f"{where}:{line}: {module} does not define {name} (import it from its home)")
    return problems


def test_every_name_is_imported_from_its_one_home():
    assert _violations() == []


def test_the_engine_top_level_holds_at_most_sixteen_modules():
    top = sorted(path.name for path in (ROOT / "model").glob("*.py"))
    assert len(top) <= 16, top


def test_ui_rows_mirror_ui_charts():
    charts = {path.stem for path in (ROOT / "ui" / "charts").glob("*.py")} - {"__init__"}
    rows = {path.stem for path in (ROOT / "ui" / "rows").glob("*.py")} - {"__init__"}
    assert charts <= rows, f"charts without rows: {sorted(charts - rows)}"

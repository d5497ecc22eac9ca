"""The project's shape holds by itself: one home per name, private modules stay private, small modules.

Rules (README, Layout): a name is imported from the outermost package that exports it in its
``__all__`` (``from model import Scenario``, not ``from model.scenario import Scenario``, outside
``model/``), otherwise from the module that defines it, never through a module that merely imported
it; a module whose name starts with an underscore is imported only from inside its own package;
``model/`` keeps at most 16 modules at its top. (No line cap: modules are cut by idea, not length;
DESIGN.md, revised 2026-12-04.)

A page is a folder (app_pages/<page>/: page.py, the modules only it uses, zh.yaml): a module under
``ui/`` is shared by two pages or more, or by app.py; no page folder imports another's modules, and
neither ``ui/`` nor ``model/`` imports a page; a page script does no arithmetic.
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


SHARED_ONLY_FOR_TESTS = {
    "ui.i18n.engine_texts": "the engine's English texts, listed for the catalogue test (tests/ui/test_i18n.py)",
}
"""Modules under ui/ that no page imports, and why they are there all the same."""
PAGE_FOLDERS = sorted(path.parent.name for path in (ROOT / "app_pages").glob("*/page.py"))
ARITHMETIC = (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult)


def _project_imports(path: Path) -> set[str]:
    """The project modules a file imports, by their dotted names (``from ui import text`` gives ``ui.text``)."""
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] in PROJECT_PACKAGES}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PROJECT_PACKAGES:
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if _module_path(submodule) is not None else node.module)
    return found


@functools.cache
def _reached(module: str) -> frozenset[str]:
    """Every project module ``module`` imports, directly or through the modules it imports."""
    path = ROOT / "app.py" if module == "app" else _module_path(module)
    seen: set[str] = set()
    todo = list(_project_imports(path)) if path else []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = _module_path(name)
        if found is not None:
            todo.extend(_project_imports(found))
    return frozenset(seen)


def _page_modules(folder: str) -> list[str]:
    return [_module_name(path) for path in sorted((ROOT / "app_pages" / folder).rglob("*.py"))]


def test_every_page_is_a_folder_with_its_script_and_its_chinese_texts():
    from ui.navigation import PAGES

    folders = [Path(spec.path).parent.name for spec in PAGES]
    assert [spec.path for spec in PAGES] == [f"app_pages/{folder}/page.py" for folder in folders]
    assert sorted(folders) == PAGE_FOLDERS
    assert [folder for folder in PAGE_FOLDERS if not (ROOT / "app_pages" / folder / "zh.yaml").is_file()] == []


def test_a_module_under_ui_is_shared_by_two_pages_or_the_app():
    """A module one page alone uses lives in that page's folder (DESIGN.md, Layout and boundaries)."""
    lonely = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        module = _module_name(path)
        if module == "ui" or module in SHARED_ONLY_FOR_TESTS:
            continue
        pages = [folder for folder in PAGE_FOLDERS if any(module in _reached(m) for m in _page_modules(folder))]
        if len(pages) < 2 and module not in _reached("app"):
            lonely[module] = pages
    assert lonely == {}, f"used by one page or none; move each into its page's folder: {lonely}"


def test_the_modules_kept_for_tests_exist_and_no_page_uses_them():
    for module in SHARED_ONLY_FOR_TESTS:
        assert _module_path(module) is not None, module
        assert all(module not in _reached(m) for folder in PAGE_FOLDERS for m in _page_modules(folder)), module


def test_no_page_folder_imports_another_and_ui_imports_none():
    crossing = []
    for folder in PAGE_FOLDERS:
        for path in sorted((ROOT / "app_pages" / folder).rglob("*.py")):
            others = {m for m in _project_imports(path) if m.startswith("app_pages.") and m.split(".")[1] != folder}
            crossing.extend(f"{path.relative_to(ROOT)} imports {m}" for m in sorted(others))
    for path in [*sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "model").rglob("*.py")), ROOT / "app.py"]:
        pages = {m for m in _project_imports(path) if m.split(".")[0] == "app_pages"}
        crossing.extend(f"{path.relative_to(ROOT)} imports {m}" for m in sorted(pages))
    assert crossing == []


def test_a_page_script_does_no_arithmetic():
    """The script only lays out; sums and unit changes live in its rows module or the engine."""
    found = []
    for folder in PAGE_FOLDERS:
        path = ROOT / "app_pages" / folder / "page.py"
        found.extend(
            f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"
            for node in ast.walk(_tree(path))
            if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ARITHMETIC)
        )
    assert found == []


def test_the_app_reaches_the_engine_only_through_its_public_modules():
    # model.PUBLIC_MODULES is the engine's API: the app never imports its inside (layouts, memory,
    # inference, the scenario's resolution), so the engine can change those without breaking a page.
    from model import PUBLIC_MODULES

    inside = []
    for path in SOURCES:
        if _module_name(path).split(".")[0] not in ("app_pages", "ui", "app"):
            continue
        for line, module, name in _imports(path):
            if module.split(".")[0] != "model" or module == "model":  # the root's names are the API itself
                continue
            target = f"{module}.{name}" if _module_path(f"{module}.{name}") is not None else module
            if not any(target == public or target.startswith(public + ".") for public in PUBLIC_MODULES[1:]):
                inside.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert inside == []

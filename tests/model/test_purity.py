"""The engine stays pure: model/ never imports Streamlit, Altair or pandas (README, Layout)."""

import ast
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parents[2] / "model"
FORBIDDEN = {"streamlit", "altair", "pandas"}


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_model_package_imports_no_ui_libraries():
    files = sorted(MODEL_DIR.rglob("*.py"))
    assert files, "model/ has no modules"
    offenders = {
        str(p.relative_to(MODEL_DIR)): _imported_roots(p) & FORBIDDEN for p in files if _imported_roots(p) & FORBIDDEN
    }
    assert offenders == {}

"""Nothing a visitor supplies is rendered as HTML or executed, and no path comes from input (issue 5)."""

import ast
from pathlib import Path

from tests.app.conftest import open_page
from ui.text import escape_markdown

ROOT = Path(__file__).resolve().parents[2]
APP_CODE = [ROOT / "app.py", *sorted((ROOT / "app_pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]


def _calls(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            yield node


def test_the_app_never_renders_raw_html_or_opens_files():
    for path in APP_CODE:
        for call in _calls(path):
            keywords = {k.arg for k in call.keywords}
            assert "unsafe_allow_html" not in keywords, path
            name = ast.unparse(call.func)
            # One exception: a fixed style sheet, written in the code as one string literal (presentation
            # mode's spacing); nothing a visitor types can reach it.
            fixed_style = (
                name == "st.html"
                and len(call.args) == 1
                and isinstance(call.args[0], ast.Constant)
                and call.args[0].value.startswith("<style>")
            )
            if fixed_style:
                continue
            assert name not in {"st.html", "components.html", "st.components.v1.html", "eval", "exec"}, (path, name)
            # Files: the app reads only its own data/ through the engine, never a path it was given.
            assert name not in {"open", "Path", "pathlib.Path", "load_user_catalog"}, (path, name)


def test_markdown_in_a_link_is_shown_as_text():
    at = open_page(**{"![x](http://example.invalid/x.png)": "1", "gpu": "[click](javascript:alert(1))"})
    shown = " ".join(w.value for w in at.warning)
    assert "!\\[x\\]\\(http" in shown and "\\[click\\]" in shown
    assert "![x](" not in shown and "[click](" not in shown


def test_escaping_leaves_plain_words_alone_and_escapes_every_markup_character():
    assert escape_markdown("H100 SXM 80 GB") == "H100 SXM 80 GB"
    assert escape_markdown("$x$ *a* _b_ `c` <d> :e[f]") == "\\$x\\$ \\*a\\* \\_b\\_ \\`c\\` \\<d\\> \\:e\\[f\\]"

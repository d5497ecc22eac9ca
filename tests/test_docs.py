"""README stays a README (issue 30): short, its two commands where .ci/run finds them, the manual in docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _relative_links(path: Path) -> list[str]:
    """Return the link targets in a Markdown file that point into the repository (code blocks skipped)."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    targets = [match.group(1) for match in _LINK.finditer(text)]
    return [target for target in targets if not re.match(r"^[a-z][a-z0-9+.-]*:|^#", target)]


def test_readme_is_at_most_250_lines():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines; move the manual to docs/"


def test_the_manual_is_in_docs():
    names = {path.name for path in DOCS}
    expected = {"METHOD.md", "SPEED.md", "MANY_USERS.md", "HOSTILE_INPUT.md", "ADDING_DATA.md", "COMMAND_LINE.md"}
    assert expected <= names


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda path: path.name)
def test_every_relative_link_resolves(path):
    missing = [target for target in _relative_links(path) if not (path.parent / target.split("#")[0]).exists()]
    assert not missing, f"{path.name} links to files that do not exist: {missing}"


@pytest.mark.parametrize("path", DOCS, ids=lambda path: path.name)
def test_each_doc_links_back_to_the_readme(path):
    assert "../README.md" in _relative_links(path)


def test_readme_shows_the_test_command_where_ci_reads_it():
    """.ci/run runs the first line of the fenced block after the marker: keep that shape."""
    lines = README.read_text(encoding="utf-8").split("\n")
    markers = [index for index, line in enumerate(lines) if line.startswith("<!-- test-command")]
    assert len(markers) == 1
    fence, command, close = lines[markers[0] + 1 : markers[0] + 4]
    assert fence == "```bash"
    assert close == "```"
    assert "pip install" in command
    assert "python -m pytest" in command


def test_readme_says_how_to_run_the_app():
    text = README.read_text(encoding="utf-8")
    assert "`streamlit run app.py`" in text
    assert "&& streamlit run app.py\n```" in text

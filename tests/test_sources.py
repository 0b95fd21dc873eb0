"""docs/SOURCES.md holds: every fact it lists has a public source, and is still said where it
says, in the words it quotes, in both editions.

Each entry is a `## N. title` section with `- Source: URL` lines and
`- In `path`: «words»` lines (see the top of docs/SOURCES.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "docs" / "SOURCES.md"
SOURCE = re.compile(r"^- Source: (\S+)", re.M)
QUOTE = re.compile(r"^- In `([^`]+)`: «(.+)»$", re.M)


def entries() -> dict[str, str]:
    """Each entry's title and its text."""
    parts = re.split(r"^## (\d+\. .+)$", SOURCES.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def text(relative: str) -> str:
    """What a reader reads in a file: a notebook's cell sources, or the whole file."""
    path = ROOT / relative
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


def twin(relative: str) -> str | None:
    """The Chinese edition of an English lesson, bonus notebook or solution."""
    top, _, rest = relative.partition("/")
    if top in ("notebooks", "solutions", "exercises") and not rest.startswith("zh/"):
        return f"{top}/zh/{rest}"
    return None


ENTRIES = entries()
titles = pytest.mark.parametrize("title", list(ENTRIES))


def test_the_list_has_entries_numbered_in_order():
    numbers = [int(title.split(".")[0]) for title in ENTRIES]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 10


@titles
def test_each_fact_has_a_public_source(title):
    urls = SOURCE.findall(ENTRIES[title])
    assert urls, "no '- Source: URL' line"
    for url in urls:
        parts = urlparse(url)
        assert parts.scheme == "https" and "." in parts.netloc, url
        assert parts.hostname not in ("localhost", "127.0.0.1"), url


@titles
def test_each_fact_is_still_said_where_the_list_says(title):
    quotes = QUOTE.findall(ENTRIES[title])
    assert quotes, "no '- In `path`: «words»' line"
    missing = [(path, words) for path, words in quotes if words not in text(path)]
    assert missing == []


@titles
def test_a_fact_in_an_english_notebook_is_listed_in_its_chinese_twin_too(title):
    paths = {path for path, _ in QUOTE.findall(ENTRIES[title])}
    lonely = [path for path in paths if twin(path) and (ROOT / twin(path)).exists()]
    assert [path for path in lonely if twin(path) not in paths] == []

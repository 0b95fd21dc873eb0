"""The teacher's notes point at what a teacher sees in JupyterLab: a section, a cell's number
(its `[n]`), a name in the code or a word in the output. A cell's id is not shown, so no note
names one; a cell number a note gives is one its lesson (or the lesson's bonus notebooks)
has; and an output label a note quotes (`保留:`) is one the lesson in that language prints.

Both editions: teaching/*.md with the English notebooks, teaching/zh/*.md with the Chinese.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTES = sorted((ROOT / "teaching").glob("*.md")) + sorted((ROOT / "teaching" / "zh").glob("*.md"))
GUIDES = [ROOT / "TEACHING.md", ROOT / "TEACHING.zh-CN.md"]
CELL_NUMBER = re.compile(r"(?:[Cc]ells?|单元格)\s*\[(\d+)\]((?:\s*(?:,|、|and|和)\s*\[\d+\])*)")


def _notebooks(note: Path) -> list[Path]:
    """The notebooks a note is about: its lesson and that lesson's bonus notebooks, in the
    note's language; every notebook of that language for the guide and the other notes."""
    folder = (
        ROOT / "notebooks" / ("zh" if "zh" in note.parts or note.stem.endswith("zh-CN") else "")
    )
    number = note.stem[:2]
    if number.isdigit():
        return sorted(folder.glob(f"{number}_*.ipynb")) + sorted(
            folder.glob(f"bonus/{number}_*.ipynb")
        )
    return sorted(folder.glob("*.ipynb")) + sorted(folder.glob("bonus/*.ipynb"))


def _cells(paths: list[Path]) -> list[dict]:
    return [
        cell for path in paths for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
    ]


def _shown(cell: dict) -> str:
    """What JupyterLab shows of a cell: its source and its outputs' text."""
    parts = ["".join(cell["source"])]
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def _outputs(cell: dict) -> str:
    return "\n".join(
        "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
        for output in cell.get("outputs", [])
    )


def _spans(markdown: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", re.sub(r"(?ms)^```.*?^```", "", markdown))


def _every_cell_id() -> set[str]:
    paths = [*ROOT.glob("notebooks/**/*.ipynb"), *ROOT.glob("solutions/**/*.ipynb")]
    return {cell.get("id", "") for cell in _cells(paths)}


IDS = _every_cell_id()
every_note = pytest.mark.parametrize(
    "note", NOTES + GUIDES, ids=lambda path: str(path.relative_to(ROOT))
)


def hidden_ids(text: str, cells: list[dict]) -> list[str]:
    """The code spans of `text` that are cell ids and nowhere shown in `cells` (`cut` is an id
    and also a name in the code: it stays)."""
    shown = "\n".join(_shown(cell) for cell in cells)
    return [span for span in _spans(text) if span in IDS and span not in shown]


def unknown_numbers(text: str, cells: list[dict]) -> list[int]:
    """The cell numbers `text` gives ("cell [13]", "单元格 [13] 和 [14]") that no cell has."""
    counts = {cell.get("execution_count") for cell in cells}
    numbers = [
        int(number)
        for match in CELL_NUMBER.finditer(text)
        for number in [match[1], *re.findall(r"\[(\d+)\]", match[2])]
    ]
    return sorted({number for number in numbers if number not in counts})


def unprinted_labels(text: str, cells: list[dict]) -> list[str]:
    """The output labels `text` quotes (a code span ending in a colon, not in the code) that
    no output of `cells` prints."""
    outputs = "\n".join(_outputs(cell) for cell in cells)
    sources = "\n".join("".join(cell["source"]) for cell in cells)
    labels = [
        span
        for span in _spans(text)
        if re.fullmatch(r"[^\s:：`]+[:：]", span) and span not in sources
    ]
    return [label for label in labels if label not in outputs]


@every_note
def test_a_note_names_no_cell_by_its_id(note):
    hidden = hidden_ids(note.read_text(encoding="utf-8"), _cells(_notebooks(note)))
    assert not hidden, f"cell ids a teacher cannot see: {hidden}"


@every_note
def test_a_cell_number_a_note_gives_is_one_its_lesson_shows(note):
    unknown = unknown_numbers(note.read_text(encoding="utf-8"), _cells(_notebooks(note)))
    assert not unknown, f"no cell of the lesson has these numbers: {unknown}"


@every_note
def test_an_output_label_a_note_quotes_is_printed_by_the_lesson_in_its_language(note):
    missing = unprinted_labels(note.read_text(encoding="utf-8"), _cells(_notebooks(note)))
    assert not missing, f"output labels the lesson does not print: {missing}"


def test_the_checks_catch_a_cell_id_a_cell_number_and_a_label_in_the_other_language():
    chinese = _cells([ROOT / "notebooks" / "zh" / "06_in_production.ipynb"])
    cut = next(cell for cell in chinese if cell.get("id") == "06-011")
    note = f"单元格 `06-011`：指着 `kept:`。单元格 [{cut['execution_count']}] 和 [999]。"
    assert hidden_ids(note, chinese) == ["06-011"]
    assert unprinted_labels(note, chinese) == ["kept:"]
    assert unknown_numbers(note, chinese) == [999]
    fixed = f"单元格 [{cut['execution_count']}]：指着 `保留:`；`cut` 是代码里的名字。"
    assert hidden_ids(fixed, chinese) == unprinted_labels(fixed, chinese) == []
    assert unknown_numbers(fixed, chinese) == []

"""The active-lesson shape of the notebooks that follow it (read, not run).

A lesson builds its piece in short cells, asks the learner to predict and to write
(four cells per "your turn" task), ends with review questions, and has teacher's
notes in `teaching/` with one review answer per question. `pytest --nbval` checks
the outputs; this file checks the shape.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
ACTIVE = ["00_start_here", "01_sse_wire_format"]
MAX_CODE_LINES = 15
NOTES_SECTIONS = ("Timing", "Live-code", "Stepper moments", "Misconceptions", "Your turn answers")
RETIRED_REQUEST_MODEL = re.compile(r"model[\"']?\s*[:=]\s*[\"']claude-sonnet-4-5")

lessons = pytest.mark.parametrize("stem", ACTIVE)


def cells(stem):
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4).cells


def tags(cell):
    return set(cell.metadata.get("tags", []))


def numbered_items(text):
    return re.findall(r"^\d+\. ", text, re.M)


@lessons
def test_the_first_cell_gives_the_time_the_lesson_takes(stem):
    assert re.search(r"\*\*Time:\*\* about \d+ minutes\.", cells(stem)[0].source)


@lessons
def test_no_code_cell_is_longer_than_fifteen_lines(stem):
    for cell in cells(stem):
        if cell.cell_type == "code":
            assert len(cell.source.splitlines()) <= MAX_CODE_LINES, cell.id


@lessons
def test_every_predict_prompt_is_answered_by_the_code_cell_right_after_it(stem):
    notebook = cells(stem)
    predicts = [i for i, cell in enumerate(notebook) if "predict" in tags(cell)]
    assert 2 <= len(predicts) <= 4
    for i in predicts:
        assert notebook[i].source.startswith("**Predict.**")
        assert notebook[i + 1].cell_type == "code"


@lessons
def test_each_your_turn_is_task_answer_check_and_a_collapsed_reference(stem):
    notebook = cells(stem)
    tasks = [
        i for i, c in enumerate(notebook) if "your-turn" in tags(c) and c.cell_type == "markdown"
    ]
    assert 1 <= len(tasks) <= 3
    for number, i in enumerate(tasks, 1):
        task, answer, check, reference = notebook[i : i + 4]
        assert task.source.startswith(f"**Your turn {number}.**")
        assert {"your-turn", "answer"} <= tags(answer)
        assert {"your-turn", "check", "nbval-ignore-output"} <= tags(check)
        assert {"your-turn", "reference"} <= tags(reference)
        assert reference.metadata.get("jupyter", {}).get("source_hidden") is True
        printed = "".join(o.get("text", "") for o in reference.outputs)
        assert "✔" in printed and "✘" not in printed, reference.id


@lessons
def test_the_teacher_has_one_review_answer_per_review_question(stem):
    (review,) = [cell for cell in cells(stem) if "review" in tags(cell)]
    questions = numbered_items(review.source)
    assert 5 <= len(questions) <= 8
    notes = (ROOT / "teaching" / f"{stem}.md").read_text(encoding="utf-8")
    for section in NOTES_SECTIONS:
        assert f"\n## {section}\n" in notes
    answers = notes.split("\n## Review answers\n", 1)[1].split("\n## ", 1)[0]
    assert len(numbered_items(answers)) == len(questions)


@lessons
def test_the_hand_made_fixture_is_never_called_recorded_nor_a_retired_model_requested(stem):
    for cell in cells(stem):
        assert "recorded" not in cell.source.lower(), cell.id
        if cell.cell_type == "code":
            assert not RETIRED_REQUEST_MODEL.search(cell.source), cell.id

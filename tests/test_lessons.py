"""The lessons are active: learners predict and write, each lesson says how long it takes,
code comes in short steps, and every review question has its answer in the teacher's notes.

These tests read the committed notebooks and teaching/ files; they run nothing.
The cell conventions are the ones TEACHING.md describes to teachers.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TEACHING = ROOT / "teaching"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
BONUS = sorted((NOTEBOOKS / "bonus").glob("*.ipynb"))
CORE = [path for path in LESSONS if path.name < "07"]  # 00-06; 07 is the capstone
MAX_LINES = 15  # a code cell a learner reads in one go
TIME = re.compile(r"\*\*Time:\*\* about (\d+) minutes")

lessons = pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])


def cells(path):
    return nbformat.read(path, as_version=4).cells


def tags(cell):
    return set(cell.metadata.get("tags", []))


def minutes(path):
    found = TIME.search(cells(path)[0].source)
    return int(found.group(1)) if found else None


@pytest.mark.parametrize("path", LESSONS + BONUS, ids=[p.stem for p in LESSONS + BONUS])
def test_a_notebook_says_at_its_top_how_long_it_takes(path):
    assert minutes(path) is not None, "first cell lacks '**Time:** about N minutes.'"


def test_the_core_path_fits_about_three_hours():
    assert 150 <= sum(minutes(path) for path in CORE) <= 200


@pytest.mark.parametrize("path", LESSONS + BONUS, ids=[p.stem for p in LESSONS + BONUS])
def test_no_code_cell_is_longer_than_a_learner_reads_in_one_go(path):
    long = [
        (cell.get("id"), len(cell.source.splitlines()))
        for cell in cells(path)
        if cell.cell_type == "code" and len(cell.source.splitlines()) > MAX_LINES
    ]
    assert not long, f"(cell id, lines) over {MAX_LINES}: {long}"


@lessons
def test_every_lesson_asks_the_learner_to_predict_before_the_cell_that_answers(path):
    notebook = cells(path)
    predicts = [i for i, cell in enumerate(notebook) if "predict" in tags(cell)]
    assert 2 <= len(predicts) <= 4
    for i in predicts:
        assert notebook[i].cell_type == "markdown"
        assert notebook[i].source.startswith("**Predict.**")
        assert notebook[i + 1].cell_type == "code"


@lessons
def test_every_your_turn_task_has_a_cell_to_answer_a_check_and_a_hidden_reference(path):
    notebook = cells(path)
    tasks = [
        i
        for i, cell in enumerate(notebook)
        if "your-turn" in tags(cell) and cell.cell_type == "markdown"
    ]
    assert 1 <= len(tasks) <= 3
    for i in tasks:
        answer, check, reference = notebook[i + 1 : i + 4]
        assert notebook[i].source.startswith("**Your turn")
        assert {"your-turn", "answer"} <= tags(answer)
        # The check prints ✔ or ✘ and never raises: its output depends on the learner.
        assert {"your-turn", "check", "nbval-ignore-output"} <= tags(check)
        assert {"your-turn", "reference"} <= tags(reference)
        assert reference.metadata.get("jupyter", {}).get("source_hidden") is True
        printed = "".join(output.get("text", "") for output in reference.outputs)
        assert "✔" in printed and "✘" not in printed, "the reference answer passes its check"


def review_questions(path):
    (review,) = [cell for cell in cells(path) if "review" in tags(cell)]
    return re.findall(r"^\d+\. ", review.source, re.M)


def notes(path):
    return (TEACHING / f"{path.stem}.md").read_text(encoding="utf-8")


def section(text, title):
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


@lessons
def test_every_lesson_ends_with_five_to_eight_review_questions(path):
    assert 5 <= len(review_questions(path)) <= 8


@lessons
def test_the_teachers_notes_answer_every_review_question_of_their_lesson(path):
    text = notes(path)
    for title in ("Timing", "Live-code", "Misconceptions", "Your turn answers", "Review answers"):
        assert f"## {title}" in text, title
    answers = re.findall(r"^\d+\. ", section(text, "Review answers"), re.M)
    assert len(answers) == len(review_questions(path))


@lessons
def test_teaching_md_links_each_lessons_notes_and_gives_its_minutes(path):
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    assert f"](teaching/{path.stem}.md)" in guide
    row = next(line for line in guide.splitlines() if f"{path.stem}.ipynb" in line)
    assert f"| {minutes(path)} |" in row


def test_teaching_md_links_the_exercise_keys_the_cheat_sheet_and_the_commands():
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    for link in ("](teaching/exercises.md)", "](teaching/cheatsheet.md)"):
        assert link in guide
    for command in ("make slides", "make cheatsheet", "make progress"):
        assert command in guide


# A request naming a retired model: `model="claude-sonnet-4-5"` (a fixture may still name
# one in its replayed `message_start`; the lesson says so where it shows).
RETIRED_REQUEST_MODEL = re.compile(r"model[\"']?\s*[:=]\s*[\"']claude-(?:sonnet-4-5|opus-4-1|3-)")


@pytest.mark.parametrize("path", LESSONS + BONUS, ids=[p.stem for p in LESSONS + BONUS])
def test_the_hand_made_fixture_is_never_called_recorded_nor_a_retired_model_requested(path):
    for cell in cells(path):
        assert "recorded" not in cell.source.lower(), cell.id
        if cell.cell_type == "code":
            assert not RETIRED_REQUEST_MODEL.search(cell.source), cell.id

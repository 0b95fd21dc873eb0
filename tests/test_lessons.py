"""The lessons are active: learners predict and write, each lesson says how long it takes,
code comes in short steps, and every review question has its answer.

These tests read the committed notebooks (`committed.py`: never a learner's copy) and
teaching/ files; only the "every check bites" test runs a lesson (with the reference
answers put in the learner's cells). The cell conventions are the ones TEACHING.md describes.

A lesson in CONVERTED follows the conventions of the learner's own client (README,
"Your own client"); the others keep the older shape until they are converted:

    **Predict.** (markdown, tag predict)
    guess = ...  (code, tags predict guess: the learner types the guess)
    the cell that answers (code, nbval-ignore-output): ends with compare_guess(guess, ...)

    **Your turn N.** (markdown, tags your-turn)
    the learner's cell (code, your-turn answer nbval-ignore-output): often
        `%%my_client lines.py` and the stub, raising NotImplementedError
    the check (code, your-turn check nbval-ignore-output): check_all(...), prints ✔ / ✘
    Hint 1, 2, ... (markdown, your-turn hint, collapsed: jupyter.source_hidden)
    the reference answer (markdown, your-turn reference, collapsed): a ```python block,
        read, never run over the learner's code

    ## Review questions (markdown, review), then their answers (markdown, review-answers,
        collapsed), one per question
"""

import functools
import os
import re
import tempfile
from pathlib import Path

import pytest
from committed import read as read_committed

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TEACHING = ROOT / "teaching"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
BONUS = sorted((NOTEBOOKS / "bonus").glob("*.ipynb"))
CORE = [path for path in LESSONS if path.name < "07"]  # 00-06; 07 is the capstone
MAX_LINES = 15  # a code cell a learner reads in one go
MAX_ANSWER_LINES = 70  # a learner's cell: a stub file they fill in (03: the whole state machine)
MAX_CELLS = 45  # a lesson
TIME = re.compile(r"\*\*Time:\*\* about (\d+) minutes")
SELF_STUDY = re.compile(r"about (\d+) minutes on your own")
# Every lesson is held to the conventions of the learner's own client (my_client/).
CONVERTED = [path.stem for path in LESSONS]

lessons = pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])


def cells(path):
    return read_committed(path).cells  # the course as committed, never a learner's copy


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
        if cell.cell_type == "code"
        and len(cell.source.splitlines())
        > (MAX_ANSWER_LINES if "answer" in tags(cell) else MAX_LINES)
    ]
    assert not long, f"(cell id, lines) over {MAX_LINES}: {long}"


@lessons
def test_every_lesson_asks_the_learner_to_predict_before_the_cell_that_answers(path):
    notebook = cells(path)
    predicts = [
        i
        for i, cell in enumerate(notebook)
        if "predict" in tags(cell) and "guess" not in tags(cell)  # the guess: the cell after
    ]
    assert 2 <= len(predicts) <= 4
    for i in predicts:
        assert notebook[i].cell_type == "markdown"
        assert notebook[i].source.startswith("**Predict.**")
        assert notebook[i + 1].cell_type == "code"


@lessons
def test_every_your_turn_task_has_a_cell_to_answer_a_check_and_a_hidden_reference(path):
    if path.stem in CONVERTED:
        pytest.skip("held to the learner's own client's conventions below")
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
    if path.stem in CONVERTED:
        pytest.skip("the answers are in the lesson, after its questions")
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


# -- the lessons converted to the learner's own client ---------------------------------

CONVERTED_PATHS = [
    path
    for stem in CONVERTED
    for path in (NOTEBOOKS / f"{stem}.ipynb", NOTEBOOKS / "zh" / f"{stem}.ipynb")
]
converted = pytest.mark.parametrize(
    "path",
    CONVERTED_PATHS,
    ids=[p.relative_to(NOTEBOOKS).with_suffix("").as_posix() for p in CONVERTED_PATHS],
)


def collapsed(cell):
    return cell.metadata.get("jupyter", {}).get("source_hidden") is True


def tasks(notebook):
    """Each your-turn task: (task, answer, check, [hints], reference) cells."""
    found = []
    for i, cell in enumerate(notebook):
        if (
            "your-turn" in tags(cell)
            and cell.cell_type == "markdown"
            and not tags(cell)
            & {
                "hint",
                "reference",
            }
        ):
            answer, check = notebook[i + 1 : i + 3]
            hints = []
            j = i + 3
            while "hint" in tags(notebook[j]):
                hints.append(notebook[j])
                j += 1
            found.append((cell, answer, check, hints, notebook[j]))
    return found


def reference_code(reference):
    """The Python of a reference answer: its ```python block."""
    (code,) = re.findall(r"```python\n(.*?)```", reference.source, re.S)
    return code


@converted
def test_a_converted_lesson_says_its_class_and_self_study_times_and_teaching_md_agrees(path):
    top = cells(path)[0].source
    english = NOTEBOOKS / path.name
    found = SELF_STUDY.search(cells(english)[0].source)
    assert minutes(english) is not None and found, "'about N minutes on your own' at the top"
    row = next(
        line
        for line in (ROOT / "TEACHING.md").read_text(encoding="utf-8").splitlines()
        if f"{path.stem}.ipynb" in line
    )
    assert f"| {minutes(english)} | {found.group(1)} |" in row
    assert str(minutes(english)) in top and found.group(1) in top  # the same in Chinese


@converted
def test_a_converted_lesson_has_at_most_45_cells(path):
    assert len(cells(path)) <= MAX_CELLS


@converted
def test_every_task_is_a_cell_to_answer_a_check_staged_hints_and_a_collapsed_reference(path):
    found = tasks(cells(path))
    assert 1 <= len(found) <= 3
    for task, answer, check, hints, reference in found:
        assert task.source.startswith(("**Your turn", "**动手")), task.id
        assert {"your-turn", "answer", "nbval-ignore-output"} <= tags(answer), answer.id
        assert answer.cell_type == "code" and "NotImplementedError" in answer.source, answer.id
        assert {"your-turn", "check", "nbval-ignore-output"} <= tags(check), check.id
        assert check.cell_type == "code" and "check_all(" in check.source, check.id
        assert 1 <= len(hints) <= 3, f"{task.id}: hints, one step at a time"
        for hint in hints:
            assert hint.cell_type == "markdown" and collapsed(hint), hint.id
        # Read, never run over the learner's code: collapsed markdown.
        assert {"your-turn", "reference"} <= tags(reference), reference.id
        assert reference.cell_type == "markdown" and collapsed(reference), reference.id
        assert "NotImplementedError" not in reference_code(reference), reference.id


@converted
def test_no_code_cell_of_a_converted_lesson_is_a_reference_run_over_the_learners_code(path):
    for cell in cells(path):
        assert not (cell.cell_type == "code" and "reference" in tags(cell)), cell.id


@converted
def test_a_prediction_is_typed_before_the_cell_that_answers_and_that_cell_compares(path):
    notebook = cells(path)
    predicts = [i for i, cell in enumerate(notebook) if tags(cell) == {"predict"}]
    assert 2 <= len(predicts) <= 4
    for i in predicts:
        guess, answer = notebook[i + 1], notebook[i + 2]
        assert {"predict", "guess"} <= tags(guess) and "guess = ..." in guess.source, guess.id
        assert "compare_guess(guess," in answer.source, answer.id
        assert "nbval-ignore-output" in tags(answer), answer.id  # it depends on the guess


@converted
def test_every_cell_whose_output_depends_on_the_learners_files_is_not_compared_by_nbval(path):
    for cell in cells(path):
        if cell.cell_type == "code" and ("stage(" in cell.source or "%%my_client" in cell.source):
            assert "nbval-ignore-output" in tags(cell), cell.id


@converted
def test_the_review_answers_follow_the_questions_collapsed_one_per_question(path):
    notebook = cells(path)
    (i,) = [i for i, cell in enumerate(notebook) if "review" in tags(cell)]
    answers = notebook[i + 1]
    assert "review-answers" in tags(answers) and collapsed(answers)
    questions = re.findall(r"^\d+\. ", notebook[i].source, re.M)
    assert 5 <= len(questions) <= 8
    assert re.findall(r"^\d+\. ", answers.source, re.M) == questions


def run_lesson(path, tmp_path, with_references):
    """Run the committed lesson in a fresh kernel, in its folder, with a fresh my_client/;
    with_references: each learner's cell holds the reference answer instead of the stub.
    Returns {check cell id: the text it printed}."""
    notebook = executed(path, tmp_path, with_references)
    return {
        check.id: "".join(output.get("text", "") for output in check.outputs)
        for _, _, check, _, _ in tasks(notebook.cells)
    }


@functools.cache
def executed_with_references(path):
    """The committed lesson run once with the reference answers (see `executed`)."""
    return executed(path, Path(tempfile.mkdtemp(prefix="lesson-")), with_references=True)


def executed(path, tmp_path, with_references):
    """The committed lesson, run as `run_lesson` says: the notebook with its new outputs."""
    from nbclient import NotebookClient

    notebook = read_committed(path)
    if with_references:
        for _, answer, _, _, reference in tasks(notebook.cells):
            first = answer.source.splitlines()[0]
            magic = first + "\n" if first.startswith("%%my_client") else ""
            answer.source = magic + reference_code(reference)
    saved = os.environ.get("STREAMING_COURSE_MY_CLIENT")
    os.environ["STREAMING_COURSE_MY_CLIENT"] = str(tmp_path / "my_client")
    try:
        for attempt in range(3):
            try:
                NotebookClient(
                    notebook,
                    timeout=300,
                    kernel_name="python3",
                    allow_errors=True,
                    resources={"metadata": {"path": str(path.parent)}},
                ).execute()
                break
            except RuntimeError as error:
                # Two kernels started at once can be handed the same free port: the one that
                # lost the race dies before it answers, and no cell has run yet. Start again.
                if "Kernel died before replying" not in str(error) or attempt == 2:
                    raise
    finally:  # back to the run's own folder (the root conftest.py), never to none at all
        if saved is None:
            os.environ.pop("STREAMING_COURSE_MY_CLIENT")
        else:
            os.environ["STREAMING_COURSE_MY_CLIENT"] = saved
    return notebook


@converted
def test_every_check_fails_on_the_stub_and_passes_on_the_reference(path, tmp_path):
    for printed in run_lesson(path, tmp_path / "stub", with_references=False).values():
        lines = [line for line in printed.splitlines() if line.startswith(("✔", "✘"))]
        assert lines and all(line.startswith("✘") for line in lines), printed
    notebook = executed_with_references(path)
    for _, _, check, _, _ in tasks(notebook.cells):
        printed = "".join(output.get("text", "") for output in check.outputs)
        lines = [line for line in printed.splitlines() if line.startswith(("✔", "✘"))]
        assert lines and all(line.startswith("✔") for line in lines), printed


PORT = re.compile(r"127\.0\.0\.1:\d+")  # as notebooks/sanitize.cfg: chosen at run time


def compared_outputs(cell):
    """What nbval compares of a code cell's outputs, as text (None: nbval ignores them)."""
    tags = cell.metadata.get("tags", [])
    if "nbval-ignore-output" in tags:
        return None
    texts = [
        output.get("text") or output.get("data", {}).get("text/plain") or output.get("ename", "")
        for output in cell.outputs
    ]
    return PORT.sub("127.0.0.1:PORT", "".join(texts))


@converted
def test_a_learner_with_every_answer_right_gets_every_output_nbval_compares(path):
    """A learner whose my_client/ holds the right answers runs the lesson: each stage is
    theirs, and nbval (make test) must still find the committed outputs."""
    ran = executed_with_references(path).cells
    for committed, fresh in zip(read_committed(path).cells, ran, strict=True):
        if committed.cell_type == "code" and compared_outputs(committed) is not None:
            assert compared_outputs(fresh) == compared_outputs(committed), committed.id


# -- facts put right (issue 25): each wording that was wrong is absent, the new one cites ---

FINE_GRAINED_DOCS = (
    "https://docs.claude.com/en/docs/agents-and-tools/tool-use/fine-grained-tool-streaming"
)


@pytest.mark.parametrize("edition", ["", "zh/"])
@pytest.mark.parametrize("stem", ["03_event_state_machine", "04_tool_use"])
def test_a_tool_input_cut_by_max_tokens_is_taught_from_the_docs_never_blamed_on_a_gateway(
    stem, edition
):
    text = "\n".join(cell.source for cell in cells(NOTEBOOKS / f"{edition}{stem}.ipynb"))
    assert "gateways send a `content_block_stop`" not in text
    assert "网关会为被 `max_tokens` 切断的块" not in text
    assert FINE_GRAINED_DOCS in text  # what the docs say a cut input looks like


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        (NOTEBOOKS / "04_tool_use.ipynb", "**The display need not wait; the execution must.**"),
        (NOTEBOOKS / "zh" / "04_tool_use.ipynb", "**显示不必等待；执行必须等待。**"),
    ],
    ids=["en", "zh"],
)
def test_the_tool_use_lesson_is_headed_by_its_rule(path, rule):
    top = cells(path)[0].source
    assert rule in top.split("**Time:**")[0].split("**时长：**")[0]  # above the time: a heading


def names_assigned(source):
    """The names a cell binds at its top level by assignment or a for loop (not by def)."""
    import ast

    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.startswith("%")))
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = [node.target]
        for target in targets:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


@pytest.mark.parametrize(
    "path",
    [
        "06_in_production",
        "bonus/06_gateways",
        "bonus/07_other_wires",
        "zh/06_in_production",
        "zh/bonus/06_gateways",
        "zh/bonus/07_other_wires",
    ],
)
def test_no_later_cell_rebinds_a_function_so_a_check_run_again_still_finds_it(path):
    # A learner runs a check again after going further down the notebook: the helper
    # it calls must still be a function, not a value a later cell gave the same name.
    notebook = cells(ROOT / f"notebooks/{path}.ipynb")
    functions = set()
    for source in [cell.source for cell in notebook if cell.cell_type == "code"]:
        rebound = names_assigned(source) & functions
        assert not rebound, f"{sorted(rebound)} rebound in: {source[:80]!r}"
        functions |= set(re.findall(r"^def (\w+)", source, re.M))


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_the_reference_ended_properly_keeps_a_stop_reason_that_a_later_null_leaves_alone(edition):
    # A gateway that writes out a struct's nullable fields sends a second message_delta
    # with "stop_reason": null after the one that set it; null, like absent, says
    # nothing new (the accumulator's rule), so the message still ended properly.
    notebook = read_committed(ROOT / f"notebooks/{edition}bonus/06_endings_and_mistakes.ipynb")
    (reference,) = [cell for cell in notebook.cells if cell.get("id") == "yt1-ref"]
    code = reference.source.split("```python\n")[1].split("```")[0]
    namespace: dict = {}
    exec(code, namespace)
    events = [
        {"type": "message_start", "message": {"content": [], "stop_reason": None}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}},
        {"type": "message_delta", "delta": {"stop_reason": None, "stop_sequence": None}},
        {"type": "message_stop"},
    ]
    assert namespace["ended_properly"](events) is True
    assert namespace["ended_properly"](events[:-1]) is False

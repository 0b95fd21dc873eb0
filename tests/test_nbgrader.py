"""The exercises as an nbgrader course (classroom/nbgrader/), generated from solutions/ as
exercises/ is: up to date, its checks the exercises' own, and nbgrader's own commands
(generate_assignment, release, fetch, submit, collect, autograde) grading a solution full marks
and a stub not. The last needs nbgrader (the extra classroom): skipped, saying so, without it.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "classroom" / "nbgrader"
spec = importlib.util.spec_from_file_location(
    "make_nbgrader", ROOT / "scripts" / "make_nbgrader.py"
)
make_nbgrader = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_nbgrader)


def test_the_nbgrader_course_is_up_to_date_with_the_solutions():
    assert make_nbgrader.main(["--check"]) == 0


@pytest.mark.parametrize(
    "path", sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem
)
def test_each_check_of_the_exercise_is_a_locked_graded_test_of_the_same_source(path):
    exercise = nbformat.read(path, as_version=4)
    source = nbformat.read(COURSE / "source" / path.stem / path.name, as_version=4)
    checks = [c.source for c in exercise.cells if "check" in c.metadata.get("tags", [])]
    graded = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
    tests = [c.source for c in graded if c.cell_type == "code"]
    assert checks and tests == checks
    ids = [c.metadata["nbgrader"]["grade_id"] for c in source.cells]
    assert len(set(ids)) == len(ids)
    for cell in graded:
        meta = cell.metadata["nbgrader"]
        assert meta["points"] > 0 and (cell.cell_type == "markdown" or meta["locked"])
    answers = [c for c in source.cells if c.metadata["nbgrader"]["solution"]]
    assert all("BEGIN SOLUTION" in c.source for c in answers) and answers


def nbgrader(*args, cwd):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def test_nbgrader_hands_out_collects_and_grades_a_solution_full_and_a_stub_not(tmp_path):
    pytest.importorskip("nbgrader", reason="nbgrader (the extra classroom) is not installed")
    from nbgrader.api import Gradebook

    name = "01_line_splitter"
    course, learner, exchange = tmp_path / "course", tmp_path / "learner", tmp_path / "exchange"
    shutil.copytree(COURSE, course)
    learner.mkdir()
    exchange.mkdir()
    where = [f"--Exchange.root={exchange}", "--CourseDirectory.course_id=streaming-course"]
    nbgrader("generate_assignment", name, "--force", cwd=course)
    released = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
    exercise = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)

    def checks(notebook):
        return [c.source for c in notebook.cells if "check" in c.metadata.get("tags", [])]

    assert checks(released) == checks(exercise)
    assert "BEGIN SOLUTION" not in nbformat.writes(released)
    nbgrader("release_assignment", name, *where, "--force", cwd=course)
    nbgrader("fetch_assignment", name, *where, cwd=learner)
    # The learner solves it (the course's solution) and submits; another hands in the stub.
    fetched = learner / name / f"{name}.ipynb"
    mine = nbformat.read(fetched, as_version=4)
    solution = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    for cell, solved in zip(mine.cells, solution.cells, strict=True):
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = solved.source  # what the learner writes in their cell
    nbformat.write(mine, fetched)
    nbgrader("submit", name, *where, cwd=learner)
    nbgrader("collect", name, *where, cwd=course)
    [solver] = [p.name for p in (course / "submitted").iterdir()]
    stub = course / "submitted" / "stub-learner" / name
    stub.mkdir(parents=True)
    shutil.copy(course / "release" / name / f"{name}.ipynb", stub)
    nbgrader("autograde", name, "--force", cwd=course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        full = book.find_submission(name, solver)
        none = book.find_submission(name, "stub-learner")
        assert full.max_score > 0 and full.score == full.max_score
        assert none.score < none.max_score

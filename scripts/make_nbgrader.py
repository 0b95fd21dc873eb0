"""Generate the exercises as an nbgrader course (classroom/nbgrader/) from `solutions/`, the
one source `exercises/` is generated from too.

    python scripts/make_nbgrader.py           write classroom/nbgrader/source/NN_name/NN_name.ipynb
    python scripts/make_nbgrader.py --check   exit 1 (naming them) if one is out of date

A solution's cells become nbgrader cells (its "Cell Toolbar > Create Assignment" metadata,
`nbgrader` in each cell's metadata):

- a code cell with a `### BEGIN SOLUTION` region (the learner's cell of the exercise): an
  "autograded answer" (`solution: true`), whose region nbgrader replaces with its stub when it
  generates the assignment, as scripts/make_exercises.py does for exercises/;
- a markdown cell with a `<!-- BEGIN SOLUTION -->` answer: a "manually graded answer" of
  WRITTEN_POINTS point (a teacher reads it);
- a check cell (tagged `check`, `# Check N: ...`): an "autograder test" worth CHECK_POINTS
  point, locked, its grade id `check-N`. The checks stay visible, as in exercises/: the released
  assignment carries the very checks a learner runs with `make progress`;
- every other cell: locked (read-only), so a learner cannot change the set-up a check relies on.

Then, in classroom/nbgrader/ (its nbgrader_config.py names the course and the folders):

    nbgrader generate_assignment 01_line_splitter   # release/01_line_splitter/, the stubs
    nbgrader collect 01_line_splitter               # the learners' submissions, from the exchange
    nbgrader autograde 01_line_splitter             # run the checks; grades in gradebook.db
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = ROOT / "solutions"
COURSE_DIR = ROOT / "classroom" / "nbgrader"
CHECK_POINTS = 1
WRITTEN_POINTS = 1
CHECK_LINE = re.compile(r"^# Check (\d+)\s*:")


def cell_metadata(cell: nbformat.NotebookNode, index: int) -> dict[str, object] | None:
    """The nbgrader metadata of a solution's cell at `index`; None for a cell left as it is."""
    tags = cell.metadata.get("tags", [])
    if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
        return {"solution": True, "grade": False, "locked": False, "grade_id": f"answer-{index}"}
    if cell.cell_type == "markdown" and "<!-- BEGIN SOLUTION -->" in cell.source:
        return {
            "solution": True,
            "grade": True,
            "locked": False,
            "points": WRITTEN_POINTS,
            "grade_id": f"written-{index}",
        }
    if cell.cell_type == "code" and "check" in tags:
        match = CHECK_LINE.match(cell.source)
        name = f"check-{match[1]}" if match else f"check-cell-{index}"
        return {
            "solution": False,
            "grade": True,
            "locked": True,
            "points": CHECK_POINTS,
            "grade_id": name,
        }
    return {"solution": False, "grade": False, "locked": True, "grade_id": f"cell-{index}"}


def source_notebook(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The nbgrader source notebook of one solution: its cells with their nbgrader metadata,
    outputs cleared."""
    notebook = copy.deepcopy(solution)
    for index, cell in enumerate(notebook.cells):
        meta = cell_metadata(cell, index)
        if meta is not None:
            cell.metadata["nbgrader"] = {**meta, "schema_version": 3}
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return notebook


def rendered(notebook: nbformat.NotebookNode) -> str:
    return nbformat.writes(notebook) + "\n"


def generated() -> dict[Path, str]:
    """Every source notebook (path -> its text), from the English solutions."""
    files = {}
    for path in sorted(SOLUTIONS_DIR.glob("[0-9][0-9]_*.ipynb")):
        notebook = source_notebook(nbformat.read(path, as_version=4))
        target = COURSE_DIR / "source" / path.stem / path.name
        files[target] = rendered(notebook)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if one is out of date")
    args = parser.parse_args(argv)
    stale = [
        path
        for path, text in generated().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)} (python scripts/make_nbgrader.py)")
        return 1 if stale else 0
    for path, text in generated().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Generate `exercises/` from `solutions/`: one source for both.

    python scripts/make_exercises.py             write exercises/NN_name.ipynb for every solution
    python scripts/make_exercises.py --check     exit 1 (and name the files) if exercises/ is out of date
    python scripts/make_exercises.py --execute   first re-run the solutions (scripts/execute_solutions.py)

In a solution notebook, the code a learner writes sits between two marker lines.
The region starts with comment lines: they are the hint the exercise keeps.

    def feed(self, chunk):                      def feed(self, chunk):
        ### BEGIN SOLUTION                          # A CR at the end of a chunk may be half a CRLF.
        # A CR at the end of a chunk ...     ->     raise NotImplementedError("your code here")
        ...the solution...
        ### END SOLUTION

Everything else is copied as it is: markdown, set-up cells, check cells and
their tags, cell ids, notebook metadata. Outputs and execution counts are
cleared (exercise notebooks are committed unexecuted). The exercise is a pure
function of the solution, so running this script twice changes nothing.

Deliberately not handled: hidden tests, grading, solution-only cells (we do
not need them; nbgrader does all of that if we ever do).
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = ROOT / "solutions"
EXERCISES_DIR = ROOT / "exercises"

BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[ \t]*$")
END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
STUB = 'raise NotImplementedError("your code here")'


class MarkerError(ValueError):
    """A solution's markers are unbalanced, or a region has no hint."""


def solution_regions(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, indent) of every marked region of a cell's source, markers included.

    >>> solution_regions("x = 1\\n    ### BEGIN SOLUTION\\n    # hint\\n    y = 2\\n    ### END SOLUTION")
    [(1, 4, '    ')]
    """
    regions, start, indent = [], None, ""
    for number, line in enumerate(source.split("\n")):
        if match := BEGIN.match(line):
            if start is not None:
                raise MarkerError(f"line {number + 1}: BEGIN SOLUTION inside a region (begun line {start + 1})")
            start, indent = number, match["indent"]
        elif END.match(line):
            if start is None:
                raise MarkerError(f"line {number + 1}: END SOLUTION without BEGIN SOLUTION")
            regions.append((start, number, indent))
            start = None
    if start is not None:
        raise MarkerError(f"line {start + 1}: BEGIN SOLUTION never ended")
    return regions


def replace_regions(source: str, replace) -> str:  # (str, (body lines, indent) -> lines) -> str
    """`source` with every marked region (markers included) replaced by `replace(body, indent)`."""
    lines = source.split("\n")
    for first, last, indent in reversed(solution_regions(source)):
        lines[first : last + 1] = replace(lines[first + 1 : last], indent)
    return "\n".join(lines)


def stub(body: list[str], indent: str) -> list[str]:
    """A region's hint (its leading comment lines, as written) and a `raise NotImplementedError`."""
    hint = []
    for line in body:
        if not line.lstrip().startswith("#"):
            break
        hint.append(line)
    if not hint:
        raise MarkerError("a solution region must start with a comment: the hint the exercise keeps")
    return hint + [indent + STUB]


def strip_solutions(source: str) -> str:
    """A code cell's source with each solution region replaced by its stub."""
    return replace_regions(source, stub)


def make_exercise(solution: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """The exercise notebook for a solution notebook (a new notebook; the solution is not changed)."""
    exercise = copy.deepcopy(solution)
    for number, cell in enumerate(exercise.cells, 1):
        if cell.cell_type != "code":
            continue
        try:
            cell.source = strip_solutions(cell.source)
            ast.parse(cell.source)  # a stub must leave valid Python: the learner starts from it
        except (MarkerError, SyntaxError) as error:
            raise MarkerError(f"{name}, cell {number}: {error}") from None
        cell.outputs = []
        cell.execution_count = None
        cell.metadata.pop("execution", None)
    return exercise


def render(notebook: nbformat.NotebookNode) -> str:
    """The file text of a notebook, exactly as `nbformat.write` would save it."""
    return nbformat.writes(notebook) + "\n"


def exercise_files(solutions_dir: Path = SOLUTIONS_DIR, exercises_dir: Path = EXERCISES_DIR) -> dict[Path, str]:
    """What exercises/ should hold: {path: file text}, one per solution notebook."""
    files = {}
    for path in sorted(solutions_dir.glob("*.ipynb")):
        solution = nbformat.read(path, as_version=4)
        files[exercises_dir / path.name] = render(make_exercise(solution, path.name))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; fail if exercises/ is out of date")
    parser.add_argument("--execute", action="store_true", help="re-run the solution notebooks first")
    args = parser.parse_args(argv)
    if args.execute:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from execute_solutions import execute_all

        execute_all(sorted(SOLUTIONS_DIR.glob("*.ipynb")))
    stale = []
    for path, text in exercise_files().items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

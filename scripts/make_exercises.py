"""Generate `exercises/` from `solutions/`: one source for both, and never lose a learner's answers.

    python scripts/make_exercises.py [option]

    (no option)  bring every exercise up to date, except one holding answers
    --check      exit 1 (and name the files) if an exercise is out of date
    --reset 03   put exercise 03 back as handed out (its answers are replaced)
    --force      regenerate every exercise, answers or not
    --execute    first re-run the solutions (scripts/execute_solutions.py)

In a solution notebook, the code a learner writes sits between two marker lines.
The region starts with comment lines: they are the hint the exercise keeps.

    def feed(self, chunk):                      def feed(self, chunk):
        ### BEGIN SOLUTION                          # A CR at the end of a chunk may be half a CRLF.
        # A CR at the end of a chunk ...     ->     raise NotImplementedError("your code here")
        ...the solution...
        ### END SOLUTION

A markdown cell may ask the learner a question to answer in words: its answer
sits between two lines of their own, `<!-- BEGIN SOLUTION -->` and
`<!-- END SOLUTION -->`. The exercise shows, in their place, a line asking for
the learner's answer (MARKDOWN_STUB); the cell is a learner cell, as below.

Everything else is copied as it is: markdown, set-up cells, check cells and
their tags, cell ids, notebook metadata. Outputs and execution counts are
cleared (exercise notebooks are committed unexecuted). The exercise is a pure
function of the solution, so running this script twice changes nothing.

A cell that had a region is a *learner cell*: the learner writes in it. It
carries, in its metadata, the digest of the stub it was generated with
(`exercise_stub`). That digest tells the two ways its text can differ from
today's stub apart: the learner wrote in it (its text no longer matches its own
digest), or the solution's hint has changed since (its digest is not today's).
So an exercise is *out of date* only when what the learner does not write has
changed: a markdown, set-up or check cell, a tag, or the stub of a learner
cell. Answers, outputs, cells the learner added and metadata Jupyter adds on
saving are the learner's and are never compared. Bringing an exercise up to
date rewrites it whole, so it is refused while it holds answers (`--reset` or
`--force` say yes to losing them).

Exercises renamed (RENAMED, in streaming_lib/tools/progress.py: the exercises
were renumbered into lesson order) leave a learner's copy under its old name
where it is: nothing deletes, overwrites or checks it, `make progress` does not
run it, and this script names it, with the exercise's new name, each time it
runs, so that the learner can copy their answers across and delete it.

Deliberately not handled: hidden tests, grading, solution-only cells, merging
answers into a changed exercise (nbgrader does the first three if we ever need
them; for the last, copy your answers out, `--reset`, and paste them back).
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

from streaming_lib.tools.progress import RENAMED

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = ROOT / "solutions"
EXERCISES_DIR = ROOT / "exercises"

BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[ \t]*$")
END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
STUB = 'raise NotImplementedError("your code here")'
MARKDOWN_BEGIN = re.compile(r"^<!-- BEGIN SOLUTION -->[ \t]*$")  # a markdown cell's answer
MARKDOWN_END = re.compile(r"^<!-- END SOLUTION -->[ \t]*$")
MARKDOWN_STUB = "- *(your answer here: double-click this cell to write in it)*"
STUB_KEY = "exercise_stub"  # learner cell metadata: the digest of the stub it was generated with
EXERCISE_NAME = re.compile(
    r"^\d\d_\w+\.ipynb$"
)  # what the generator writes; "01_x-Copy1.ipynb" is the learner's


class MarkerError(ValueError):
    """A solution's markers are unbalanced, or a region has no hint."""


def solution_regions(
    source: str, markers: tuple[re.Pattern[str], re.Pattern[str]] = (BEGIN, END)
) -> list[tuple[int, int, str]]:
    """(first line, last line, indent) of every marked region of a cell's source, markers included.

    `markers`: the (begin, end) line patterns; a code cell's by default,
    (MARKDOWN_BEGIN, MARKDOWN_END) for a markdown cell.

    >>> solution_regions(
    ...     "x = 1\\n    ### BEGIN SOLUTION\\n    # hint\\n    y = 2\\n    ### END SOLUTION"
    ... )
    [(1, 4, '    ')]
    """
    begin, end = markers
    regions, start, indent = [], None, ""
    for number, line in enumerate(source.split("\n")):
        if match := begin.match(line):
            if start is not None:
                raise MarkerError(
                    f"line {number + 1}: BEGIN SOLUTION inside a region (begun line {start + 1})"
                )
            start, indent = number, match.groupdict().get("indent") or ""
        elif end.match(line):
            if start is None:
                raise MarkerError(f"line {number + 1}: END SOLUTION without BEGIN SOLUTION")
            regions.append((start, number, indent))
            start = None
    if start is not None:
        raise MarkerError(f"line {start + 1}: BEGIN SOLUTION never ended")
    return regions


def replace_regions(
    source: str,
    replace: Callable[[list[str], str], list[str]],
    markers: tuple[re.Pattern[str], re.Pattern[str]] = (BEGIN, END),
) -> str:
    """`source` with every marked region (markers included) replaced by `replace(body, indent)`."""
    lines = source.split("\n")
    for first, last, indent in reversed(solution_regions(source, markers)):
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
        raise MarkerError(
            "a solution region must start with a comment: the hint the exercise keeps"
        )
    return hint + [indent + STUB]


def strip_solutions(source: str) -> str:
    """A code cell's source with each solution region replaced by its stub."""
    return replace_regions(source, stub)


def strip_answers(source: str) -> str:
    """A markdown cell's source with each answer region replaced by MARKDOWN_STUB.

    >>> strip_answers("Why?\\n\\n<!-- BEGIN SOLUTION -->\\nBecause.\\n<!-- END SOLUTION -->")
    'Why?\\n\\n- *(your answer here: double-click this cell to write in it)*'
    """
    return replace_regions(
        source, lambda body, indent: [MARKDOWN_STUB], (MARKDOWN_BEGIN, MARKDOWN_END)
    )


def digest(source: str) -> str:
    """A short fingerprint (16 hex digits of SHA-256) of a cell's source.

    >>> digest("x = 1")
    '8ff436def1451285'
    """
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def make_exercise(solution: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """The exercise notebook for a solution notebook.

    A new notebook: the solution is not changed.
    """
    exercise = copy.deepcopy(solution)
    for number, cell in enumerate(exercise.cells, 1):
        if cell.cell_type == "markdown":
            try:
                if solution_regions(cell.source, (MARKDOWN_BEGIN, MARKDOWN_END)):
                    cell.source = strip_answers(cell.source)
                    cell.metadata[STUB_KEY] = digest(cell.source)
            except MarkerError as error:
                raise MarkerError(f"{name}, cell {number}: {error}") from None
        if cell.cell_type != "code":
            continue
        try:
            if solution_regions(cell.source):
                cell.source = strip_solutions(cell.source)
                cell.metadata[STUB_KEY] = digest(cell.source)
            # A stub must leave valid Python: the learner starts from it. IPython turns
            # magics such as `%xmode Minimal` into Python first, as the kernel does.
            ast.parse(TransformerManager().transform_cell(cell.source))
        except (MarkerError, SyntaxError) as error:
            raise MarkerError(f"{name}, cell {number}: {error}") from None
        cell.outputs = []
        cell.execution_count = None
        cell.metadata.pop("execution", None)
    return exercise


def render(notebook: nbformat.NotebookNode) -> str:
    """The file text of a notebook, exactly as `nbformat.write` would save it."""
    return nbformat.writes(notebook) + "\n"


def exercise_files(
    solutions_dir: Path = SOLUTIONS_DIR, exercises_dir: Path = EXERCISES_DIR
) -> dict[Path, str]:
    """What exercises/ should hold: {path: file text}, one per solution notebook."""
    files = {}
    for path in sorted(solutions_dir.glob("*.ipynb")):
        solution = nbformat.read(path, as_version=4)
        files[exercises_dir / path.name] = render(make_exercise(solution, path.name))
    return files


# -- what is the learner's, and what is out of date ------------------------------------------


def answers(exercise: nbformat.NotebookNode, generated: nbformat.NotebookNode) -> list[str]:
    """What the learner wrote in `exercise` that regenerating it would lose, one phrase each (str).

    A learner cell whose text is no longer the stub it was generated with holds an
    answer; a cell that is not in the generated notebook was added by the learner
    (empty code cells, which Jupyter adds freely, do not count).
    """
    ids = {cell.id for cell in generated.cells}
    found = []
    for cell in exercise.cells:
        if cell.get("id") not in ids:
            if cell.source.strip():
                found.append(f"cell {cell.get('id')!r}, which you added")
        elif STUB_KEY in cell.metadata and digest(cell.source) != cell.metadata[STUB_KEY]:
            found.append(f"your answer in cell {cell.id!r}")
    return found


def differences(exercise: nbformat.NotebookNode, generated: nbformat.NotebookNode) -> list[str]:
    """How `exercise` differs from `generated` in what a learner does not write.

    One phrase (str) each.

    Compared: the cells the generator makes (by id, in order), their types, tags and
    text, except that a learner cell's text counts only through the digest of the
    stub it was generated with. Not compared: outputs, execution counts, other
    metadata, and cells the learner added. [] means up to date.
    """
    cells = {cell.get("id"): cell for cell in exercise.cells}
    found = []
    for want in generated.cells:
        have = cells.get(want.id)
        if have is None:
            found.append(f"cell {want.id!r} is missing")
        elif have.cell_type != want.cell_type:
            found.append(
                f"cell {want.id!r} is a {have.cell_type} cell, not a {want.cell_type} cell"
            )
        elif STUB_KEY in want.metadata:
            if have.metadata.get(STUB_KEY) != want.metadata[STUB_KEY]:
                found.append(f"the stub of cell {want.id!r} has changed")
        elif have.source != want.source:
            found.append(f"cell {want.id!r} has changed")
        elif have.metadata.get("tags", []) != want.metadata.get("tags", []):
            found.append(f"the tags of cell {want.id!r} have changed")
    order = [
        cell.get("id")
        for cell in exercise.cells
        if cell.get("id") in {want.id for want in generated.cells}
    ]
    if not found and order != [want.id for want in generated.cells]:
        found.append("the cells are in another order")
    return found


def stale_files(
    solutions_dir: Path = SOLUTIONS_DIR, exercises_dir: Path = EXERCISES_DIR
) -> dict[Path, list[str]]:
    """{exercise path: its differences} for every exercise out of date (missing, extra, or changed).

    Answers are not differences: a filled-in exercise of today's solution is up to date.
    """
    expected = exercise_files(solutions_dir, exercises_dir)
    stale = {}
    for path, text in expected.items():
        if not path.exists():
            stale[path] = ["the file is missing"]
        elif found := differences(
            nbformat.read(path, as_version=4), nbformat.reads(text, as_version=4)
        ):
            stale[path] = found
    for path in sorted(exercises_dir.glob("*.ipynb")):
        if path not in expected and EXERCISE_NAME.match(path.name) and path.stem not in RENAMED:
            stale[path] = [f"there is no solutions/{path.name} any more"]
    return stale


def find_exercise(name: str, paths: Sequence[Path]) -> Path:
    """The one path among `paths` that `name` names.

    `name` is like "04", "04_live_preview" or "exercises/04_live_preview.ipynb".
    """
    stem = Path(name).name.removesuffix(".ipynb")
    matches = [path for path in paths if path.stem == stem or path.stem.split("_")[0] == stem]
    if len(matches) != 1:
        known = ", ".join(path.stem for path in paths)
        raise SystemExit(
            f"--reset {name}: {'no' if not matches else 'more than one'} exercise of that name "
            f"(there are: {known})"
        )
    return matches[0]


def renamed_copies(exercises_dir: Path = EXERCISES_DIR) -> dict[Path, Path]:
    """{old path: new path} for every exercise file still under a name RENAMED has retired.

    Such a file is the learner's: it is never deleted, overwritten or checked.
    """
    return {
        exercises_dir / f"{old}.ipynb": exercises_dir / f"{new}.ipynb"
        for old, new in RENAMED.items()
        if (exercises_dir / f"{old}.ipynb").exists()
    }


def shown(path: Path) -> str:
    """A path as the messages show it: from the repository root when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def update(
    solutions_dir: Path = SOLUTIONS_DIR,
    exercises_dir: Path = EXERCISES_DIR,
    *,
    check: bool = False,
    force: bool = False,
    reset: Sequence[str] = (),
) -> int:
    """Bring exercises/ up to date (or, with `check`, only say what is out of date).

    Returns the exit status.

    An exercise holding answers is left as it is, with a message saying how to
    replace it, unless `force` or it is named in `reset` (which also rewrites it
    when it is up to date: back to the stub, as handed out). Returns 1 if any
    exercise is left out of date, else 0.
    """
    if check:
        stale = stale_files(solutions_dir, exercises_dir)
        for path, found in stale.items():
            print(f"out of date: {shown(path)} ({'; '.join(found)})")
        return 1 if stale else 0
    expected = exercise_files(solutions_dir, exercises_dir)
    chosen = {find_exercise(name, list(expected)) for name in reset}
    status = 0
    for path, text in expected.items():
        if reset and path not in chosen:
            continue
        if path.exists() and path.read_text(encoding="utf-8") == text:
            if path in chosen:
                print(f"reset: {shown(path)} (it was as handed out already)")
            continue
        generated = nbformat.reads(text, as_version=4)
        existing = nbformat.read(path, as_version=4) if path.exists() else None
        found = differences(existing, generated) if existing else ["the file is missing"]
        kept = answers(existing, generated) if existing else []
        if path in chosen or force or (found and not kept):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            lost = f" (replaced {', '.join(kept)})" if kept else ""
            print(f"{'reset' if path in chosen else 'wrote'}: {shown(path)}{lost}")
        elif found:
            print(
                f"not overwritten: {shown(path)} is out of date ({'; '.join(found)}), "
                f"but it holds {', '.join(kept)}.\n"
                "  To replace it with the new exercise, losing those answers "
                "(copy them out first):\n"
                f"  python scripts/make_exercises.py --reset {path.stem[:2]}",
                file=sys.stderr,
            )
            status = 1
        # else: only outputs or metadata differ (the learner ran it): nothing to do
    for old, new in renamed_copies(exercises_dir).items():
        print(
            f"kept: {shown(old)}, your copy from before the exercises were put in lesson order "
            f"(now {shown(new)}); nothing reads or changes it: copy your answers across, "
            "then delete it"
        )
    return status


def main(
    argv: list[str] | None = None,
    solutions_dir: Path = SOLUTIONS_DIR,
    exercises_dir: Path = EXERCISES_DIR,
) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; fail if an exercise is out of date"
    )
    parser.add_argument(
        "--reset",
        nargs="+",
        default=[],
        metavar="NN",
        help="put these exercises back as handed out, answers or not",
    )
    parser.add_argument(
        "--force", action="store_true", help="regenerate every exercise, even one holding answers"
    )
    parser.add_argument(
        "--execute", action="store_true", help="re-run the solution notebooks first"
    )
    args = parser.parse_args(argv)
    if args.execute:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from execute_solutions import execute_all

        execute_all(sorted(solutions_dir.glob("*.ipynb")))
    return update(
        solutions_dir, exercises_dir, check=args.check, force=args.force, reset=args.reset
    )


if __name__ == "__main__":
    sys.exit(main())

"""How far a learner is: run every exercise's checks and print one row per exercise.

    python -m streaming_lib progress            every exercise in exercises/
    python -m streaming_lib progress 03 05      just these
    make progress                               the same, from the repository root
    python -m streaming_lib progress --lang zh  the Chinese edition, exercises/zh/, with the
    make progress-zh                            table in Chinese (`--dir exercises/zh` too)

Each exercise notebook runs top to bottom in a fresh `python3` kernel (nbclient),
in the exercises' folder, errors allowed, so that every check gets its turn. A
check is a cell tagged `check`; its first line names it, `# Check N: what it
checks` (in the Chinese edition `# 检查 N：它检查什么`, named "检查 N"). A check
passes when its cell runs without raising. The table says, for
each exercise, the lesson it practises (from the `**Lesson:** [notebook 02](...)` label
at the top of the notebook; `**对应：** [第 02 课](...)` in Chinese), the checks
passed of all its checks, and the first failure: the check (or, when the
learner's own cell raised first, that cell) and the first line of its message.

It runs the notebooks as last saved, and writes nothing back: the learner's
notebooks stay as they are. The table is
the same from run to run for the same answers (no timings, no paths); the
progress bar, on stderr, shows only on a terminal and is gone when the run ends.

Only the exercises of today's names run: a learner's copy of an exercise under
a name it had before the exercises were renumbered into lesson order (RENAMED)
is theirs, and left alone (`scripts/make_exercises.py` names it).

Not handled: grading, hidden tests, timing. A cell that runs longer than
TIMEOUT seconds stops that exercise's run: the table says so, and its checks
not finished count as failing.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError
from tqdm import tqdm

from .i18n import PROGRESS, words

# The course repository, this file being streaming_lib/tools/progress.py (the package is installed
# editable).
ROOT = Path(__file__).resolve().parents[2]
EXERCISES_DIR = ROOT / "exercises"
TIMEOUT = 120  # seconds per cell: every check of a right answer takes a few
KERNEL_STARTS = 3  # a kernel that lost the race for its ports is started again, twice at most
LOST_PORT_RACE = "Kernel died before replying to kernel_info"  # jupyter_client's words for it
MESSAGE_WIDTH = 72  # characters of the first failure shown in the table

# A check cell's first line: "# Check 2: what it checks", or in Chinese "# 检查 2：它检查什么"
# (a full-width colon).
CHECK_LINE = re.compile(r"^# (?P<name>(?:Check|检查) \d+)\s*[:：]\s*(?P<what>.*)$")
# In the exercise's first cell: "**Lesson:** [notebook 02](../notebooks/02_chunks_to_lines.ipynb)",
# in Chinese "**对应：** [第 02 课](...)".
# (Before the renumbering the label was "**Practises:** [02 · From network chunks to lines](...)";
# a Chinese copy made before the terminology pass says 课程 where it now says 对应.)
LESSON = re.compile(r"\*\*(?:Lesson|Practises|对应|课程)[:：]\*\*\s*\[(?P<lesson>[^\]]+)\]")
PRACTISES = LESSON  # the old name
EXERCISE_NAME = re.compile(r"^\d\d_\w+\.ipynb$")  # "01_line_splitter.ipynb"; not "...-Copy1.ipynb"

# The exercises were renumbered to follow the lessons: {old name: new name}. A file still under
# an old name is a learner's copy: nothing runs, checks, overwrites or deletes it.
RENAMED = {
    "04_line_splitter": "01_line_splitter",
    "01_thinking_blocks": "02_thinking_blocks",
    "02_partial_json": "03_partial_json",
    "03_live_preview": "04_live_preview",
}


def check_name(cell: nbformat.NotebookNode) -> str | None:
    """The name of a check cell, from its first line ("Check 2"); None for any other cell.

    >>> source = "# Check 2: a CR at the end of a chunk.\\nassert True"
    >>> check_name(nbformat.v4.new_code_cell(source, metadata={"tags": ["check"]}))
    'Check 2'
    >>> check_name(nbformat.v4.new_code_cell("# 检查 2：行尾。", metadata={"tags": ["check"]}))
    '检查 2'
    """
    if cell.cell_type != "code" or "check" not in cell.metadata.get("tags", []):
        return None
    match = CHECK_LINE.match(cell.source.split("\n", 1)[0])
    return match["name"] if match else f"the check in cell {cell.get('id')!r}"


def lesson(notebook: nbformat.NotebookNode) -> str:
    """The lesson an exercise practises (str, "notebook 02"), from the link of its first cell's
    **Lesson:** label; "" if none.

    >>> label = "**Lesson:** [notebook 02](../notebooks/02_chunks_to_lines.ipynb) · **Time:** ..."
    >>> lesson(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(label)]))
    'notebook 02'
    >>> zh = "**对应：** [第 02 课](../../notebooks/zh/02_chunks_to_lines.ipynb) · **难度：** ★☆☆"
    >>> lesson(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(zh)]))
    '第 02 课'
    """
    match = LESSON.search(notebook.cells[0].source) if notebook.cells else None
    return match["lesson"] if match else ""


practises = lesson  # the old name


def shorten(text: str, width: int = MESSAGE_WIDTH) -> str:
    """The first line of `text`, cut to `width` characters with an ellipsis.

    >>> shorten("a long sentence\\nand more", 8)
    'a long …'
    """
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass(frozen=True)
class Result:
    """One exercise's standing: `passed` checks of `total`; `failure` the first error ("" when
    none)."""

    name: str  # the notebook's stem, "01_line_splitter"
    lesson: str  # the lesson it practises, "notebook 02"
    passed: int
    total: int
    failure: str  # "Check 1: NotImplementedError: your code here"
    failed_check: str = (
        ""  # the first failing check's first line, "Check 1: every kind of line ending, ..."
    )

    @property
    def practises(self) -> str:
        """The old name of `lesson`."""
        return self.lesson


def result(
    name: str, executed: nbformat.NotebookNode, stopped: str = "", lang: str = "en"
) -> Result:
    """The standing of an exercise from its executed notebook (run with errors allowed).

    `stopped`: why the run ended before the last cell ("" if it did not); the failure
    shown when no cell raised before that. `lang`: the language of the words around
    the error ("your cell ..."; the error's own message is as raised).
    """
    checks = [cell for cell in executed.cells if check_name(cell)]
    # A check passes only if it ran: a run cut short (a timeout, a dead kernel) leaves the rest
    # unrun.
    failed = [
        cell
        for cell in checks
        if cell.execution_count is None or any(out.output_type == "error" for out in cell.outputs)
    ]
    failure, failed_check = "", ""
    if failed:
        failed_check = failed[0].source.split("\n", 1)[0].lstrip("# ")
    for cell in executed.cells:
        error = next((out for out in cell.get("outputs", []) if out.output_type == "error"), None)
        if error is not None:
            say = words(PROGRESS, lang)
            where = check_name(cell) or say["your_cell"].format(id=cell.get("id"))
            # A check's AssertionError says what is wrong in words; any other error needs its name.
            said = (
                error.evalue
                if error.ename == "AssertionError" and error.evalue
                else f"{error.ename}: {error.evalue}"
            )
            if (
                stopped and error.ename == "KeyboardInterrupt"
            ):  # how nbclient stops a cell that runs too long
                said = stopped
            # An error with no message ends with no colon.
            failure = shorten(say["failure"].format(where=where, said=said).rstrip(": ："))
            break
    failure = failure or shorten(stopped)
    return Result(
        name, lesson(executed), len(checks) - len(failed), len(checks), failure, failed_check
    )


def width(text: str) -> int:
    """The columns `text` takes in a terminal: a wide (CJK) character takes two.

    >>> width("检查 1"), width("Check 1")
    (6, 7)
    """
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def table(results: list[Result], lang: str = "en") -> str:
    """The progress table (str, lines joined by newlines), and a last line of totals, in
    `lang` ("en" or "zh"; see `i18n.PROGRESS`)."""
    say = words(PROGRESS, lang)
    rows = [(say["exercise"], say["lesson"], say["checks"], say["first_failure"])]
    rows += [
        (
            r.name,
            r.lesson,
            say["passed"].format(passed=r.passed, total=r.total),
            r.failure or say["all_pass"],
        )
        for r in results
    ]
    widths = [max(width(row[column]) for row in rows) for column in range(3)]
    lines = [
        # Three padded columns, then the last (row[3]) as it is.
        "  ".join(
            cell + " " * (column - width(cell)) for cell, column in zip(row, widths, strict=False)
        )
        + "  "
        + row[3]
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * column for column in widths) + "  " + "-" * width(rows[0][3]))
    done = sum(r.passed == r.total for r in results)
    passed, total = sum(r.passed for r in results), sum(r.total for r in results)
    lines.append(
        "\n" + say["totals"].format(done=done, count=len(results), passed=passed, total=total)
    )
    if unfinished := next((r for r in results if r.failure), None):
        what = unfinished.failed_check or unfinished.failure
        lines.append(say["next"].format(name=unfinished.name, what=what))
    return "\n".join(line.rstrip() for line in lines)


async def execute(paths: list[Path], folder: Path) -> list[tuple[nbformat.NotebookNode, str]]:
    """Run the notebooks at `paths` (cwd `folder`), one kernel per CPU at a time, with a progress
    bar.

    Returns (notebook with its outputs, why its run stopped early or "") for each path.
    """
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    # The kernel imports streaming_lib from this repository, installed or not.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    cells = sum(cell.cell_type == "code" for notebook in notebooks for cell in notebook.cells)
    bar_format = (
        "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} cells"  # no timings: nothing varies
    )
    limit = asyncio.Semaphore(os.cpu_count() or 1)
    with tqdm(
        total=cells, desc="running the checks", bar_format=bar_format, leave=False, disable=None
    ) as bar:

        async def run(notebook: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, str]:
            def client() -> NotebookClient:
                return NotebookClient(
                    notebook,
                    timeout=TIMEOUT,
                    kernel_name="python3",
                    allow_errors=True,
                    record_timing=False,
                    resources={"metadata": {"path": str(folder)}},
                    on_cell_executed=lambda **_: bar.update(),
                )

            async with limit:
                try:
                    # The kernel's own start-up warnings would break into the table: not shown.
                    for attempt in range(1, KERNEL_STARTS + 1):
                        try:
                            await client().async_execute(env=env, stderr=subprocess.DEVNULL)
                            break
                        except RuntimeError as error:
                            # Another process took one of the free ports jupyter_client chose
                            # for the kernel: it died before it answered, no cell ran. Again.
                            if LOST_PORT_RACE not in str(error) or attempt == KERNEL_STARTS:
                                raise
                except CellTimeoutError:
                    return notebook, f"CellTimeoutError: ran longer than {TIMEOUT} seconds"
                except Exception as error:  # DeadKernelError, ...: report it, run the others
                    return notebook, f"{type(error).__name__}: {str(error).strip().splitlines()[0]}"
                return notebook, ""

        return await asyncio.gather(*(run(notebook) for notebook in notebooks))


def exercise_paths(folder: Path, names: Sequence[str] = ()) -> list[Path]:
    """The exercise notebooks of `folder` (NN_name.ipynb, not a name RENAMED has retired), or
    those `names` names ("03" or "03_partial_json")."""
    paths = sorted(
        path
        for path in folder.glob("*.ipynb")
        if EXERCISE_NAME.match(path.name) and path.stem not in RENAMED
    )
    if not names:
        return paths
    chosen = [path for path in paths if path.stem in names or path.stem[:2] in names]
    if missing := [
        name for name in names if not any(name in (path.stem, path.stem[:2]) for path in chosen)
    ]:
        raise ValueError(
            f"no exercise {', '.join(missing)} in {folder} (there are: "
            f"{', '.join(p.stem for p in paths)})"
        )
    return chosen


def run(folder: Path = EXERCISES_DIR, names: Sequence[str] = (), lang: str = "en") -> list[Result]:
    """Run the checks of the exercises in `folder` (all, or those `names` names); one Result each,
    in name order, its words in `lang`.

    Raises ValueError if `folder` holds no exercise of those names.
    """
    paths = exercise_paths(folder, names)
    if not paths:
        raise ValueError(f"no exercise notebooks (NN_name.ipynb) in {folder}")
    executed = asyncio.run(execute(paths, folder))
    return [
        result(path.stem, notebook, stopped, lang)
        for path, (notebook, stopped) in zip(paths, executed, strict=True)
    ]


def lesson_number(label: str) -> str:
    """The two digits of a lesson label ("notebook 02", "第 02 课"): "02"; "" if none.

    >>> lesson_number("notebook 02"), lesson_number("第 02 课"), lesson_number("")
    ('02', '02', '')
    """
    match = re.search(r"\d\d", label)
    return match[0] if match else ""


def as_json(results: list[Result]) -> str:
    """The results as one JSON object (str), for `progress --json` and `class-report`:

        {"exercises": [{"name": "01_line_splitter", "lesson": "02", "passed": 3, "total": 5,
                        "failure": "Check 4: ...", "failed_check": "Check 4: ..."}, ...],
         "done": 1, "count": 6, "passed": 20, "total": 31}

    `lesson` is the practised lesson's number ("" when the exercise names none); `done` the
    exercises passing all their checks. Sorted keys, so the same answers give the same text.
    """
    exercises = [
        {
            "name": r.name,
            "lesson": lesson_number(r.lesson),
            "passed": r.passed,
            "total": r.total,
            "failure": r.failure,
            "failed_check": r.failed_check,
        }
        for r in results
    ]
    summary = {
        "exercises": exercises,
        "done": sum(r.passed == r.total for r in results),
        "count": len(results),
        "passed": sum(r.passed for r in results),
        "total": sum(r.total for r in results),
    }
    return json.dumps(summary, ensure_ascii=False, sort_keys=True, indent=1)

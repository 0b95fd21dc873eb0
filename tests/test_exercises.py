"""Exercises and solutions from one source, and checks that can fail.

- `exercises/` is what `scripts/make_exercises.py` makes of `solutions/`, in all that a
  learner does not write: filled-in answers never make it out of date, and neither
  `make exercises` nor anything else overwrites them unless asked (`--reset`, `--force`);
- `make progress` (`python -m streaming_lib progress`) runs every exercise's checks and
  shows, per exercise, the checks passed and the first failure, under the check's name;
- check cells are named `# Check N: ...`, numbered from 1 in the order of the tasks they
  check, and nbval reports a failing one under that name;
- every exercise as handed out (nothing filled in) fails, and fails in a check cell
  with NotImplementedError or AssertionError: its set-up cells run;
- for every exercise, the usual mistakes, put in place of the solution, are rejected
  by an AssertionError in the check cells listed for them, and in no other cell;
  together the mistakes make every check cell of every exercise fail.

Running the solutions under strict nbval is the second half of `make test`.
Kernels are slow, so every notebook run the selected tests need is started at once
by one fixture, one kernel per CPU at a time.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from streaming_lib.__main__ import main as course_command
from streaming_lib.tools import progress

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR, EXERCISES_DIR = ROOT / "solutions", ROOT / "exercises"
SOLUTIONS = sorted(SOLUTIONS_DIR.glob("[0-9][0-9]_*.ipynb"))
NAMES = [path.stem for path in SOLUTIONS]


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_exercises = load_script("make_exercises")
execute_solutions = load_script("execute_solutions")


def read(path):
    return nbformat.read(path, as_version=4)


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def is_check(cell):
    return "check" in cell.metadata.get("tags", [])


def check_ids(notebook):
    return {cell.id for cell in notebook.cells if is_check(cell)}


def errors(notebook):
    """{cell id: exception name} for every cell that raised, in order."""
    return {
        cell.id: output.ename
        for cell in code_cells(notebook)
        for output in cell.outputs
        if output.output_type == "error"
    }


def error_report(notebook):
    """Every error of an executed notebook, one line each, for failure messages."""
    return "\n".join(
        f"  {cell.id}: {output.ename}: {output.evalue[:300]}"
        for cell in code_cells(notebook)
        for output in cell.outputs
        if output.output_type == "error"
    )


# -- the generator ----------------------------------------------------------------------


def test_the_exercises_are_up_to_date_with_the_solutions_in_all_that_a_learner_does_not_write():
    stale = make_exercises.stale_files()
    assert not stale, "run `make exercises`:\n" + "\n".join(
        f"  {path.name}: {'; '.join(why)}" for path, why in stale.items()
    )


def test_generating_twice_gives_the_same_bytes():
    first = make_exercises.exercise_files()
    assert make_exercises.exercise_files() == first


def test_a_region_becomes_its_hint_and_a_stub_at_the_markers_indentation():
    source = (
        "def f(x):\n"
        "    ### BEGIN SOLUTION\n"
        "    # Double it.\n"
        "    return 2 * x\n"
        "    ### END SOLUTION\n"
        "\n"
        "f(1)"
    )
    assert make_exercises.strip_solutions(source) == (
        'def f(x):\n    # Double it.\n    raise NotImplementedError("your code here")\n\nf(1)'
    )


def test_only_the_leading_comments_of_a_region_are_kept():
    source = (
        "    ### BEGIN SOLUTION\n"
        "    # hint\n"
        "    x = 1  # not a hint\n"
        "    # nor this\n"
        "    ### END SOLUTION"
    )
    assert (
        make_exercises.strip_solutions(source)
        == '    # hint\n    raise NotImplementedError("your code here")'
    )


@pytest.mark.parametrize(
    "source",
    [
        "### BEGIN SOLUTION\n# hint\nx = 1",
        "# hint\nx = 1\n### END SOLUTION",
        "### BEGIN SOLUTION\n### BEGIN SOLUTION\n# hint\n### END SOLUTION",
        "### BEGIN SOLUTION\nx = 1\n### END SOLUTION",
    ],
    ids=["never-ended", "never-begun", "nested", "no-hint"],
)
def test_broken_markers_and_regions_without_a_hint_are_refused(source):
    with pytest.raises(make_exercises.MarkerError):
        make_exercises.strip_solutions(source)


def test_a_stub_that_leaves_invalid_python_is_refused():
    # The markers sit less indented than the body they cut out: the stub would leave
    # `def f():` empty.
    source = "def f():\n### BEGIN SOLUTION\n    # hint\n    return 1\n### END SOLUTION"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    with pytest.raises(make_exercises.MarkerError, match="cell 1"):
        make_exercises.make_exercise(notebook)


# -- the notebooks as committed -----------------------------------------------------------


def exercise(name):
    """The exercise as handed out (made from its solution, as `make exercises` would write it)."""
    return make_exercises.make_exercise(read(SOLUTIONS_DIR / f"{name}.ipynb"), name)


# The label at the top of every exercise: its lesson (a link that works), difficulty and minutes.
LABEL = re.compile(
    r"^\*\*Lesson:\*\* \[notebook (?P<lesson>\d\d)\]"
    r"\(\.\./notebooks/(?P<file>(?P=lesson)_\w+\.ipynb)\)"
    r" · \*\*Difficulty:\*\* [★☆]{3}( Challenge)? · \*\*Time:\*\* about \d+ minutes$",
    re.M,
)


def test_there_are_six_exercises_in_the_order_of_the_lessons():
    assert NAMES == [
        "01_line_splitter",
        "02_thinking_blocks",
        "03_partial_json",
        "04_live_preview",
        "05_failing_well",
        "06_usage_accounting",
    ]
    lessons = [LABEL.search(read(path).cells[0].source)["lesson"] for path in SOLUTIONS]
    assert lessons == sorted(lessons)


@pytest.mark.parametrize("name", NAMES)
def test_each_notebook_says_how_to_check_it_and_its_lesson_difficulty_and_time(name):
    intro = read(SOLUTIONS_DIR / f"{name}.ipynb").cells[0]
    assert intro.cell_type == "markdown"
    assert intro.source.startswith(f"# Exercise {int(name[:2])} · ")
    assert f"`.venv/bin/pytest --nbval-lax exercises/{name}.ipynb`" in intro.source
    label = LABEL.search(intro.source)
    assert label, f"{name}: no **Lesson:** ... · **Difficulty:** ... · **Time:** ... label"
    assert (ROOT / "notebooks" / label["file"]).exists()
    assert progress.lesson(read(SOLUTIONS_DIR / f"{name}.ipynb")) == f"notebook {label['lesson']}"


@pytest.mark.parametrize("name", NAMES)
def test_each_solution_has_regions_checks_and_hints(name):
    notebook = read(SOLUTIONS_DIR / f"{name}.ipynb")
    assert any(make_exercises.solution_regions(cell.source) for cell in code_cells(notebook))
    assert len(check_ids(notebook)) >= 3
    assert any(
        cell.cell_type == "markdown" and "<summary>Hint" in cell.source for cell in notebook.cells
    )
    # Regions sit inside functions, so an exercise's set-up cells run without them.
    for cell in code_cells(notebook):
        for _, _, indent in make_exercises.solution_regions(cell.source):
            assert indent, (
                f"{name}: a solution region at the top level of a cell would fail before the checks"
            )


@pytest.mark.parametrize("name", NAMES)
def test_solutions_are_committed_executed_top_to_bottom_without_errors(name):
    notebook = read(SOLUTIONS_DIR / f"{name}.ipynb")
    assert notebook.metadata.kernelspec.name == "python3"
    counts = [cell.execution_count for cell in code_cells(notebook)]
    assert counts == list(range(1, len(counts) + 1))
    assert not errors(notebook)
    assert all(cell.outputs for cell in code_cells(notebook) if is_check(cell)), (
        "a check should say what it checked"
    )


@pytest.mark.parametrize("name", NAMES)
def test_exercises_are_made_without_outputs(name):
    notebook = exercise(name)
    assert all(not cell.outputs and cell.execution_count is None for cell in code_cells(notebook))


@pytest.mark.parametrize("name", NAMES)
def test_exercises_show_short_tracebacks_as_the_lessons_do(name):
    setup = next(cell for cell in code_cells(exercise(name)) if cell.id == "setup")
    assert '\nget_ipython().InteractiveTB.set_mode("Minimal")' in setup.source  # silently


@pytest.mark.parametrize("name", NAMES)
def test_check_cells_are_numbered_in_order_from_1(name):
    checks = [cell for cell in read(SOLUTIONS_DIR / f"{name}.ipynb").cells if is_check(cell)]
    names = [progress.check_name(cell) for cell in checks]
    assert names == [f"Check {number}" for number in range(1, len(checks) + 1)]


def tasks_checked(notebook):
    """{check cell id: the tasks it runs}: a task is a cell the learner writes in, numbered in
    notebook order; a check runs a task when it uses a name that cell defines, directly or
    through helpers defined in other cells. As in Python, a function's names are looked up
    when it runs: through the definitions made by the cells above the check."""
    defined = {}  # name -> (the task of the cell defining it, if any; the names that cell uses)

    def reach(names):
        tasks, seen, todo = set(), set(), list(names)
        while todo:
            name = todo.pop()
            if name in defined and name not in seen:
                seen.add(name)
                tasks |= defined[name][0]
                todo += defined[name][1]
        return tasks

    checked, task = {}, 0
    for cell in code_cells(notebook):
        tree = ast.parse(TransformerManager().transform_cell(cell.source))
        names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
        # What the cell reads and does not set itself (a loop's `raw` is not an earlier cell's).
        used = {n.id for n in names if isinstance(n.ctx, ast.Load)} - {
            n.id for n in names if isinstance(n.ctx, ast.Store)
        }
        own = set()
        if make_exercises.solution_regions(cell.source):
            task += 1
            own = {task}
        if is_check(cell):
            checked[cell.id] = own | reach(used)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node]
            for target in targets:
                if isinstance(target, (ast.FunctionDef, ast.ClassDef, ast.Name)):
                    defined[getattr(target, "name", None) or target.id] = (own, used)
    return checked


@pytest.mark.parametrize("name", NAMES)
def test_checks_come_in_the_order_of_the_tasks_they_check(name):
    checked = tasks_checked(read(SOLUTIONS_DIR / f"{name}.ipynb"))
    assert all(checked.values()), f"a check that runs none of the learner's code: {checked}"
    last_task = [max(tasks) for tasks in checked.values()]
    assert last_task == sorted(last_task), f"checks out of task order: {checked}"


@pytest.mark.parametrize("name", NAMES)
def test_outputs_hold_no_machine_paths_addresses_or_timings(name):
    text = (SOLUTIONS_DIR / f"{name}.ipynb").read_text(encoding="utf-8")
    assert str(ROOT) not in text
    assert not re.search(
        r"(/tmp/|/home/|/Users/|site-packages| at 0x[0-9a-f]{6,}|\d+\.\d+ ?(s|ms|µs)\b)", text
    )


# -- wrong answers the checks must reject ----------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    """A wrong answer: the solution region containing `region` replaced by `code`
    (dedented; it takes the region's indentation), or changed by the `edits`
    (old, new) replacements. `fails`: the check cells that must reject it."""

    notebook: str
    name: str
    region: str
    fails: tuple[str, ...]
    code: str = ""
    edits: tuple[tuple[str, str], ...] = ()


MISTAKES = [
    Mistake(
        "02_thinking_blocks",
        "ignores signature_delta",
        'block["thinking"] +=',
        fails=("check-my-stream-sdk", "check-fixtures-sdk"),
        edits=(('block["signature"] = delta["signature"]', "pass"),),
    ),
    Mistake(
        "02_thinking_blocks",
        "writes a stream without signature_delta",
        "msg_by_hand",
        fails=("check-my-stream",),
        code="""
            events = read_fixture("thinking").split(b"\\n\\n")
            return b"\\n\\n".join(event for event in events if b"signature_delta" not in event)
        """,
    ),
    Mistake(
        "03_partial_json",
        "ends a string at the first quote, escaped or not",
        "jump over the escaped character",
        fails=("check-strings", "check-flat-prefixes", "check-every-prefix", "check-previews"),
        code="""
            end = text.find('"', i + 1)
            if end < 0:
                raise Incomplete
            return json.loads(text[i : end + 1]), end + 1
        """,
    ),
    Mistake(
        "03_partial_json",
        "gives nothing for an object that is not closed yet",
        "result[key] = item",
        fails=(
            "check-strings",
            "check-flat-prefixes",
            "check-nesting",
            "check-scalars",
            "check-every-prefix",
            "check-previews",
        ),
        edits=(("return result, len(text)", "raise"),),
    ),
    Mistake(
        "03_partial_json",
        "gives nothing for an array that is not closed yet",
        "result.append(item)",
        fails=("check-nesting", "check-scalars"),
        edits=(("return result, len(text)", "raise"),),
    ),
    Mistake(
        "03_partial_json",
        "takes a number at the very end for an unfinished one",
        "0123456789+-.eE",
        fails=("check-scalars", "check-every-prefix"),
        edits=(
            (
                "    if re.fullmatch(",
                "    if j == len(text):\n        raise Incomplete\n    if re.fullmatch(",
            ),
        ),
    ),
    Mistake(
        "03_partial_json",
        "reads every number as a float",
        "0123456789+-.eE",
        fails=("check-scalars", "check-every-prefix"),
        edits=(("json.loads(text[i:j]), j", "float(text[i:j]), j"),),
    ),
    Mistake(
        "03_partial_json",
        "parses each fragment alone",
        "received +=",
        fails=("check-previews",),
        code="""
            for fragment in fragments:
                yield parse_partial(fragment)
        """,
    ),
    Mistake(
        "04_live_preview",
        "a deny-list: refuses only max_tokens",
        'self.block_type != "tool_use"',
        fails=("check-allow-list",),
        edits=(
            ('if self.stop_reason != "tool_use":', 'if self.stop_reason in (None, "max_tokens"):'),
        ),
    ),
    Mistake(
        "04_live_preview",
        "allows execution at max_tokens",
        'self.block_type != "tool_use"',
        fails=("check-max-tokens", "check-allow-list"),
        edits=(('if self.stop_reason != "tool_use":', "if self.stop_reason is None:"),),
    ),
    Mistake(
        "04_live_preview",
        "runs calls the API runs itself",
        'self.block_type != "tool_use"',
        fails=("check-server-tools",),
        edits=(('if self.block_type != "tool_use":', "if self.block_type is None:"),),
    ),
    Mistake(
        "04_live_preview",
        "runs at message_delta, before message_stop",
        'self.block_type != "tool_use"',
        fails=("check-waits",),
        edits=(
            ("if not (self.block_stopped and self.message_stopped):", "if not self.block_stopped:"),
        ),
    ),
    Mistake(
        "04_live_preview",
        "executes as soon as the block stops",
        'self.block_type != "tool_use"',
        fails=("check-waits", "check-max-tokens", "check-allow-list"),
        edits=(
            ("if not (self.block_stopped and self.message_stopped):", "if not self.block_stopped:"),
            ('if self.stop_reason != "tool_use":', "if False:"),
        ),
    ),
    Mistake(
        "04_live_preview",
        "runs arguments that are only a preview",
        'self.block_type != "tool_use"',
        fails=("check-whole-json",),
        edits=(
            (
                'arguments = json.loads("".join(self.fragments))',
                'arguments = parse_partial_json("".join(self.fragments))',
            ),
            ("except json.JSONDecodeError:", "except PartialJSONError:"),
        ),
    ),
    Mistake(
        "04_live_preview",
        "runs a block that never stopped",
        'self.block_type != "tool_use"',
        fails=("check-whole-json",),
        edits=(
            (
                "if not (self.block_stopped and self.message_stopped):",
                "if not self.message_stopped:",
            ),
        ),
    ),
    Mistake(
        "04_live_preview",
        "skips the schema",
        'self.block_type != "tool_use"',
        fails=("check-schema",),
        edits=(
            (
                "return jsonschema.Draft202012Validator(WRITE_FILE_SCHEMA).is_valid(arguments)",
                "return True",
            ),
        ),
    ),
    Mistake(
        "04_live_preview",
        "previews without unfinished strings",
        "trailing_strings=True",
        fails=("check-preview", "check-max-tokens"),
        edits=(("trailing_strings=True", "trailing_strings=False"),),
    ),
    Mistake(
        "01_line_splitter",
        "splits on LF only",
        "LINE_END.finditer",
        fails=("check-endings", "check-cr-split", "check-every-split", "check-size"),
        code="""
            start = self.offset - len(self.pending)
            self.offset += len(chunk)
            data, lines, begin = self.pending + chunk, [], 0
            for end in re.finditer(rb"\\n", data):
                lines.append(self.line(data[begin : end.start()], start + begin))
                begin = end.end()
            self.pending = data[begin:]
            return lines
        """,
    ),
    Mistake(
        "01_line_splitter",
        "forgets a CR at the end of a chunk",
        "LINE_END.finditer",
        fails=("check-cr-split", "check-every-split", "check-size"),
        code="""
            start = self.offset - len(self.pending)
            self.offset += len(chunk)
            data, lines, begin = self.pending + chunk, [], 0
            for end in LINE_END.finditer(data):
                lines.append(self.line(data[begin : end.start()], start + begin))
                begin = end.end()
            self.pending = data[begin:]
            self.check_size(self.pending, start + begin)
            return lines
        """,
    ),
    Mistake(
        "01_line_splitter",
        "decodes each chunk on its own",
        "LINE_END.finditer",
        fails=("check-pending", "check-every-split", "check-strict", "check-size"),
        code="""
            self.offset += len(chunk)
            if self.after_cr and chunk[:1] == b"\\n":
                chunk = chunk[1:]
                self.after_cr = False
            if chunk:
                self.after_cr = chunk.endswith(b"\\r")
            text = self.pending.decode("utf-8") + chunk.decode("utf-8", errors="replace")
            *lines, rest = re.split(r"\\r\\n|\\r|\\n", text)
            self.pending = rest.encode("utf-8")
            return lines
        """,
    ),
    Mistake(
        "01_line_splitter",
        "replaces invalid UTF-8 instead of raising",
        "UnicodeDecodeError.start",
        fails=("check-strict",),
        edits=(('return raw.decode("utf-8")', 'return raw.decode("utf-8", errors="replace")'),),
    ),
    Mistake(
        "01_line_splitter",
        "counts offsets in the chunk, not in the stream",
        "LINE_END.finditer",
        fails=("check-strict", "check-size"),
        edits=(("start = self.offset - len(self.pending)", "start = -len(self.pending)"),),
    ),
    Mistake(
        "01_line_splitter",
        "has no size limit",
        "max_line_bytes None: no limit",
        fails=("check-size",),
        code="""
            pass
        """,
    ),
    Mistake(
        "05_failing_well",
        "swallows the error event",
        "raise APIStreamError",
        fails=("check-error-event",),
        edits=(
            (
                'if event["type"] == "error":',
                'if event["type"] == "error":\n            continue  # ignored',
            ),
        ),
    ),
    Mistake(
        "05_failing_well",
        "raises without the partial message",
        "raise APIStreamError",
        fails=("check-error-event", "check-cut"),
        edits=(("partial=acc.message", "partial=None"),),
    ),
    Mistake(
        "05_failing_well",
        "returns what arrived when the stream is cut",
        "raise APIStreamError",
        fails=("check-cut",),
        edits=(("if not finished:", "if False:"),),
    ),
    Mistake(
        "05_failing_well",
        "reads each chunk as a stream of its own",
        "raise APIStreamError",
        fails=("check-complete",),
        edits=(
            (
                "enumerate(iter_sse(chunks), 1)",
                "enumerate((sse for chunk in chunks for sse in iter_sse([chunk])), 1)",
            ),
        ),
    ),
    Mistake(
        "06_usage_accounting",
        "adds up output_tokens",
        "a running total",
        fails=("check-streams", "check-absent", "check-conversation"),
        code="""
            usage = {}
            for sse in iter_sse([raw]):
                event = json.loads(sse.data)
                if event["type"] == "message_start":
                    usage = dict(event["message"]["usage"])
                elif event["type"] == "message_delta":
                    for field, value in event["usage"].items():
                        if field == "output_tokens":
                            usage[field] += value  # "more tokens came out"
                        elif value is not None:
                            usage[field] = value
            return usage
        """,
    ),
    Mistake(
        "06_usage_accounting",
        "copies null counts too",
        "a running total",
        fails=("check-absent",),
        edits=(("if value is not None:", "if True:"),),
    ),
    Mistake(
        "06_usage_accounting",
        "counts the conversation's input once",
        "dict.fromkeys(TOKEN_FIELDS, 0)",
        fails=("check-conversation",),
        code="""
            total = dict.fromkeys(TOKEN_FIELDS, 0)
            for number, raw in enumerate(streams):
                usage = stream_usage(raw)
                for field in TOKEN_FIELDS:
                    if field == "input_tokens" and number > 0:
                        continue  # "the prompt was already counted"
                    total[field] += usage.get(field) or 0
            return total
        """,
    ),
]


def with_mistake(notebook, mistake):
    """A copy of a solution notebook with one region replaced by the mistake."""
    notebook = nbformat.from_dict(notebook)
    found = []
    for cell in code_cells(notebook):
        lines = cell.source.split("\n")
        for first, last, indent in reversed(make_exercises.solution_regions(cell.source)):
            body = "\n".join(lines[first + 1 : last])
            if mistake.region not in body:
                continue
            found.append(cell.id)
            if mistake.code:
                body = textwrap.indent(textwrap.dedent(mistake.code).strip("\n"), indent)
            for old, new in mistake.edits:
                assert old in body, f"{mistake.name}: {old!r} is not in the region any more"
                body = body.replace(old, new)
            lines[first : last + 1] = body.split("\n")
        cell.source = "\n".join(lines)
    assert len(found) == 1, (
        f"{mistake.name}: {mistake.region!r} should be in exactly one region, found {len(found)}"
    )
    return notebook


@dataclass(frozen=True)
class Job:
    """One notebook run: the exercise as handed out, or a solution with a mistake in it."""

    name: str
    mistake: Mistake | None = None

    def notebook(self):
        if self.mistake is None:  # as handed out: the learner's own copy may be filled in
            return exercise(self.name), EXERCISES_DIR
        return with_mistake(read(SOLUTIONS_DIR / f"{self.name}.ipynb"), self.mistake), SOLUTIONS_DIR


@pytest.fixture(scope="module")
def executed(request):
    """{job: executed notebook} for every job the selected tests of this module need.

    They are run at once.
    """
    params = [item.callspec.params for item in request.session.items if hasattr(item, "callspec")]
    jobs = sorted({p["job"] for p in params if isinstance(p.get("job"), Job)}, key=repr)
    notebooks = asyncio.run(
        execute_solutions.run_all([job.notebook() for job in jobs], allow_errors=True)
    )
    return Runs(zip(jobs, notebooks, strict=True))


class Runs(dict):
    """{job: executed notebook}, with a short repr for failure reports."""

    def __repr__(self):
        return f"<{len(self)} executed notebooks>"


@pytest.mark.parametrize("job", [Job(name) for name in NAMES], ids=NAMES)
def test_an_unfilled_exercise_fails_at_a_check_cell_not_before(job, executed):
    raised = errors(executed[job])
    assert raised, "the exercise passes with nothing filled in"
    first_cell, first_error = next(iter(raised.items()))
    assert first_cell in check_ids(executed[job]), (
        f"a cell raised before any check ran:\n{error_report(executed[job])}"
    )
    assert first_error in ("NotImplementedError", "AssertionError"), error_report(executed[job])


@pytest.mark.parametrize(
    "job",
    [Job(m.notebook, m) for m in MISTAKES],
    ids=[m.notebook + "-" + re.sub(r"\W+", "-", m.name) for m in MISTAKES],
)
def test_a_wrong_answer_is_rejected_by_its_checks(job, executed):
    raised = errors(executed[job])
    assert raised == dict.fromkeys(job.mistake.fails, "AssertionError"), (
        f"{job.mistake.name}: expected an AssertionError in exactly {job.mistake.fails}, "
        f"got:\n{error_report(executed[job])}"
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_check_cell_rejects_at_least_one_wrong_answer(name):
    rejected = {cell for mistake in MISTAKES if mistake.notebook == name for cell in mistake.fails}
    assert rejected == check_ids(read(SOLUTIONS_DIR / f"{name}.ipynb"))


# -- a learner's answers are never lost ---------------------------------------------------------


def solved(name):
    """The exercise as a learner who got it right leaves it: each learner cell holds the
    solution's code (markers dropped), and Jupyter has saved outputs and metadata."""
    notebook, solution = exercise(name), read(SOLUTIONS_DIR / f"{name}.ipynb")
    answers = {cell.id: cell.source for cell in code_cells(solution)}
    for cell in code_cells(notebook):
        if make_exercises.STUB_KEY in cell.metadata:
            cell.source = "\n".join(
                line for line in answers[cell.id].split("\n") if "### " not in line
            )
        cell.execution_count = 1
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
        cell.metadata["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00Z"}
    notebook.cells.append(nbformat.v4.new_code_cell("print('my own scratch cell')"))
    return notebook


@pytest.fixture
def course(tmp_path):
    """A copy of solutions/ and the exercises as handed out, in a temporary folder.

    Returns (solutions, exercises).
    """
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    for path in SOLUTIONS:
        (solutions / path.name).write_bytes(path.read_bytes())
    assert make_exercises.main([], solutions, exercises) == 0
    return solutions, exercises


def save(notebook, path):
    path.write_text(make_exercises.render(notebook), encoding="utf-8")


def edit_solution(path, cell_id, old, new):
    notebook = read(path)
    cell = next(cell for cell in notebook.cells if cell.get("id") == cell_id)
    assert old in cell.source
    cell.source = cell.source.replace(old, new)
    save(notebook, path)


def test_a_filled_in_exercise_is_up_to_date_and_make_exercises_keeps_it(course, capsys):
    solutions, exercises = course
    path = exercises / "04_live_preview.ipynb"
    save(solved("04_live_preview"), path)
    filled = path.read_bytes()
    assert make_exercises.stale_files(solutions, exercises) == {}
    assert make_exercises.main(["--check"], solutions, exercises) == 0
    assert make_exercises.main([], solutions, exercises) == 0
    assert path.read_bytes() == filled
    assert capsys.readouterr().out == ""


def test_make_exercises_regenerates_untouched_exercises_and_refuses_to_overwrite_answers(
    course, capsys
):
    solutions, exercises = course
    save(solved("04_live_preview"), exercises / "04_live_preview.ipynb")
    filled = (exercises / "04_live_preview.ipynb").read_bytes()
    # The author changes a check of exercise 2 and a hint of exercise 4.
    edit_solution(
        solutions / "02_thinking_blocks.ipynb",
        "check-my-stream",
        "# Check 2: your stream",
        "# Check 2: the stream",
    )
    edit_solution(
        solutions / "04_live_preview.ipynb", "view", "# Allow, never deny", "# Allow; never deny"
    )
    stale = make_exercises.stale_files(solutions, exercises)
    assert {path.name: why for path, why in stale.items()} == {
        "02_thinking_blocks.ipynb": ["cell 'check-my-stream' has changed"],
        "04_live_preview.ipynb": ["the stub of cell 'view' has changed"],
    }
    assert make_exercises.main([], solutions, exercises) == 1
    out, err = capsys.readouterr()
    assert out == "wrote: " + str(exercises / "02_thinking_blocks.ipynb") + "\n"
    assert "not overwritten: " + str(exercises / "04_live_preview.ipynb") in err
    assert "your answer in cell 'view'" in err
    assert "which you added" in err
    assert "python scripts/make_exercises.py --reset 04" in err
    assert (exercises / "04_live_preview.ipynb").read_bytes() == filled
    assert list(make_exercises.stale_files(solutions, exercises)) == [
        exercises / "04_live_preview.ipynb"
    ]


def test_reset_puts_back_only_the_named_exercise_as_handed_out(course, capsys):
    solutions, exercises = course
    for name in ("04_live_preview", "01_line_splitter"):
        save(solved(name), exercises / f"{name}.ipynb")
    filled = (exercises / "01_line_splitter.ipynb").read_bytes()
    assert make_exercises.main(["--reset", "04"], solutions, exercises) == 0
    assert "reset: " + str(exercises / "04_live_preview.ipynb") in capsys.readouterr().out
    expected = make_exercises.exercise_files(solutions, exercises)
    assert (exercises / "04_live_preview.ipynb").read_text(encoding="utf-8") == expected[
        exercises / "04_live_preview.ipynb"
    ]
    assert (exercises / "01_line_splitter.ipynb").read_bytes() == filled
    with pytest.raises(SystemExit, match="no exercise of that name"):
        make_exercises.main(["--reset", "07"], solutions, exercises)


def test_force_regenerates_every_exercise_answers_or_not(course):
    solutions, exercises = course
    save(solved("01_line_splitter"), exercises / "01_line_splitter.ipynb")
    assert make_exercises.main(["--force"], solutions, exercises) == 0
    expected = make_exercises.exercise_files(solutions, exercises)
    assert all(path.read_text(encoding="utf-8") == text for path, text in expected.items())


def test_an_exercise_generated_before_its_hint_changed_is_out_of_date_even_untouched(course):
    solutions, exercises = course
    edit_solution(
        solutions / "01_line_splitter.ipynb",
        "splitter",
        "# The stream has ended",
        "# The stream is over",
    )
    assert make_exercises.main(["--check"], solutions, exercises) == 1
    assert make_exercises.main([], solutions, exercises) == 0  # no answers in it: regenerated
    assert make_exercises.stale_files(solutions, exercises) == {}


def test_a_missing_exercise_or_one_left_from_a_removed_solution_is_out_of_date(course):
    solutions, exercises = course
    (exercises / "03_partial_json.ipynb").unlink()
    (exercises / "07_gone.ipynb").write_bytes((exercises / "02_thinking_blocks.ipynb").read_bytes())
    (exercises / "02_thinking_blocks-Copy1.ipynb").write_bytes(
        (exercises / "02_thinking_blocks.ipynb").read_bytes()
    )
    stale = make_exercises.stale_files(solutions, exercises)
    assert sorted(path.name for path in stale) == ["03_partial_json.ipynb", "07_gone.ipynb"]


def test_a_learners_copy_under_a_name_from_before_the_renumbering_is_kept_and_named(course, capsys):
    solutions, exercises = course
    # A learner filled in the line splitter when it was exercise 04, and kept an untouched 02.
    old_filled, old_untouched = (
        exercises / "04_line_splitter.ipynb",
        exercises / "02_partial_json.ipynb",
    )
    save(solved("01_line_splitter"), old_filled)
    old_untouched.write_bytes((exercises / "03_partial_json.ipynb").read_bytes())
    kept = {path: path.read_bytes() for path in (old_filled, old_untouched)}
    assert make_exercises.stale_files(solutions, exercises) == {}
    assert make_exercises.main(["--check"], solutions, exercises) == 0
    assert make_exercises.main([], solutions, exercises) == 0
    assert make_exercises.main(["--force"], solutions, exercises) == 0
    assert {path: path.read_bytes() for path in kept} == kept
    out = capsys.readouterr().out
    assert (
        f"kept: {old_filled}, your copy from before the exercises were put in lesson order" in out
    )
    assert f"(now {exercises / '01_line_splitter.ipynb'})" in out
    assert make_exercises.renamed_copies(exercises) == {
        old_filled: exercises / "01_line_splitter.ipynb",
        old_untouched: exercises / "03_partial_json.ipynb",
    }
    # `--reset 02` names today's exercise 02 only.
    assert make_exercises.find_exercise(
        "02", list(make_exercises.exercise_files(solutions, exercises))
    ) == (exercises / "02_thinking_blocks.ipynb")
    assert [p.name for p in progress.exercise_paths(exercises, ["02"])] == [
        "02_thinking_blocks.ipynb"
    ]
    assert [p.stem for p in progress.exercise_paths(exercises)] == NAMES


def test_a_written_answer_to_a_question_is_the_learners_and_never_overwritten(course, capsys):
    solutions, exercises = course
    path = exercises / "04_live_preview.ipynb"
    notebook = read(path)
    answer = next(cell for cell in notebook.cells if cell.get("id") == "design-answer")
    assert answer.source.endswith(make_exercises.MARKDOWN_STUB)
    assert "model answer" not in answer.source
    answer.source = answer.source.replace(make_exercises.MARKDOWN_STUB, "- the fragments so far")
    save(notebook, path)
    written = path.read_bytes()
    assert make_exercises.stale_files(solutions, exercises) == {}
    edit_solution(
        solutions / "04_live_preview.ipynb", "design-answer", "**Your answer:**", "**Yours:**"
    )
    assert make_exercises.main([], solutions, exercises) == 1
    assert "your answer in cell 'design-answer'" in capsys.readouterr().err
    assert path.read_bytes() == written


# -- make progress ----------------------------------------------------------------------------


def progress_table(folder, capsys, *names):
    assert course_command(["progress", "--dir", str(folder), *names]) == 0
    out = capsys.readouterr().out
    assert str(folder) not in out
    return out


def row(table, name):
    return next(line for line in table.splitlines() if line.startswith(name + " "))


def check_count(name):
    return len(check_ids(read(SOLUTIONS_DIR / f"{name}.ipynb")))


def test_progress_on_the_exercises_as_handed_out_shows_no_check_passing(course, capsys):
    _, exercises = course
    table = progress_table(exercises, capsys)
    for name in NAMES:
        lesson = progress.lesson(read(SOLUTIONS_DIR / f"{name}.ipynb"))
        assert re.fullmatch(
            rf"{name} +{re.escape(lesson)} +0 of {check_count(name)}  "
            r"Check 1: NotImplementedError: your code here",
            row(table, name),
        )
    assert f"0 of 6 exercises done; 0 of {sum(map(check_count, NAMES))} checks pass." in table
    assert (
        "Next: 01_line_splitter, Check 1: every kind of line ending, each stream in one chunk."
        in table
    )


def test_progress_on_solved_exercises_shows_every_check_passing(course, capsys):
    _, exercises = course
    for name in NAMES:
        save(solved(name), exercises / f"{name}.ipynb")
    table = progress_table(exercises, capsys)
    for name in NAMES:
        assert re.search(
            rf" {check_count(name)} of {check_count(name)}  all pass$", row(table, name)
        )
    assert "6 of 6 exercises done" in table and "Next:" not in table


def test_progress_gives_credit_for_the_partial_json_challenge_stage_by_stage(course, capsys):
    _, exercises = course
    notebook, solution = exercise("03_partial_json"), read(SOLUTIONS_DIR / "03_partial_json.ipynb")
    stage_1 = {
        cell.id: cell.source for cell in solution.cells if cell.get("id") in ("strings", "objects")
    }
    assert len(stage_1) == 2
    for cell in notebook.cells:
        if cell.get("id") in stage_1:
            cell.source = "\n".join(
                line for line in stage_1[cell.id].split("\n") if "### " not in line
            )
    save(notebook, exercises / "03_partial_json.ipynb")
    table = progress_table(exercises, capsys, "03")
    assert re.search(
        r" 2 of 6  Check 3: NotImplementedError: your code here$", row(table, "03_partial_json")
    )
    assert (
        "Next: 03_partial_json, Check 3: arrays, and objects and arrays inside each other" in table
    )


def test_progress_names_the_first_failing_check_and_counts_the_others(course, capsys):
    _, exercises = course
    [mistake] = [m for m in MISTAKES if m.name == "forgets a CR at the end of a chunk"]
    save(
        with_mistake(read(SOLUTIONS_DIR / "01_line_splitter.ipynb"), mistake),
        exercises / "01_line_splitter.ipynb",
    )
    table = progress_table(exercises, capsys, "01")
    assert row(table, "01_line_splitter").endswith(
        " 3 of 6  Check 3: a CRLF split across chunks: chunk 2 (b'\\ndata: {}\\r') should c…"
    )
    assert "02_thinking_blocks" not in table
    assert "Next: 01_line_splitter, Check 3: a CR at the end of one chunk" in table


def test_progress_blames_the_learners_own_cell_when_it_fails_before_the_checks():
    notebook = exercise("06_usage_accounting")
    for cell in code_cells(notebook):
        if cell.id == "usage":
            cell.outputs = [
                nbformat.v4.new_output(
                    "error", ename="SyntaxError", evalue="invalid syntax (line 3)", traceback=[]
                )
            ]
        elif is_check(cell):
            cell.outputs = [
                nbformat.v4.new_output(
                    "error",
                    ename="NameError",
                    evalue="name 'stream_usage' is not defined",
                    traceback=[],
                )
            ]
    result = progress.result("06_usage_accounting", notebook)
    assert (result.passed, result.total) == (0, 3)
    assert result.failure == "your cell 'usage': SyntaxError: invalid syntax (line 3)"


def test_progress_refuses_an_exercise_that_does_not_exist(course, capsys):
    _, exercises = course
    with pytest.raises(SystemExit):
        course_command(["progress", "--dir", str(exercises), "07"])
    assert "no exercise 07" in capsys.readouterr().err


def test_progress_stops_a_check_that_runs_too_long_and_counts_it_failing(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "TIMEOUT", 1)
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )
    notebook.cells = [
        nbformat.v4.new_code_cell("# Check 1: fast\nassert True", metadata={"tags": ["check"]}),
        nbformat.v4.new_code_cell(
            "# Check 2: slow\nwhile True: pass", metadata={"tags": ["check"]}
        ),
        nbformat.v4.new_code_cell(
            "# Check 3: never reached\nassert True", metadata={"tags": ["check"]}
        ),
    ]
    save(notebook, tmp_path / "01_slow.ipynb")
    [result] = progress.run(tmp_path)
    assert (result.passed, result.total) == (1, 3)
    assert result.failure == "Check 2: CellTimeoutError: ran longer than 1 seconds"


def test_a_kernel_that_lost_the_race_for_its_ports_is_started_again(tmp_path, monkeypatch):
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )
    notebook.cells = [
        nbformat.v4.new_code_cell("# Check 1: runs\nassert True", metadata={"tags": ["check"]})
    ]
    save(notebook, tmp_path / "01_once.ipynb")
    real, starts = progress.NotebookClient.async_execute, []

    async def lost_the_first_race(client, **options):
        starts.append(1)
        if len(starts) == 1:  # as jupyter_client says it when the kernel died at start
            raise RuntimeError(progress.LOST_PORT_RACE)
        return await real(client, **options)

    monkeypatch.setattr(progress.NotebookClient, "async_execute", lost_the_first_race)
    [result] = progress.run(tmp_path)
    assert (result.passed, result.total, len(starts)) == (1, 1, 2)


# -- pytest --nbval-lax exercises/... ------------------------------------------------------------


def test_nbval_reports_a_failing_check_under_its_own_name_not_its_cell_number(course):
    _, exercises = course
    (exercises / "conftest.py").write_bytes((EXERCISES_DIR / "conftest.py").read_bytes())
    [mistake] = [m for m in MISTAKES if m.name == "forgets a CR at the end of a chunk"]
    save(
        with_mistake(read(SOLUTIONS_DIR / "01_line_splitter.ipynb"), mistake),
        exercises / "01_line_splitter.ipynb",
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval-lax",
            "-p",
            "no:cacheprovider",
            "--color=no",
            "exercises/01_line_splitter.ipynb",
        ],
        cwd=exercises.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    failed = re.findall(r"^FAILED (.+?) - ", run.stdout, re.M)
    assert failed == [
        "exercises/01_line_splitter.ipynb::Check 3",
        "exercises/01_line_splitter.ipynb::Check 4",
        "exercises/01_line_splitter.ipynb::Check 6",
    ], run.stdout
    assert (
        "Check 3: a CR at the end of one chunk, and its LF at the start of the next.\n"
        in run.stdout
    )
    assert "should complete the lines ['data: {}']" in run.stdout
    assert "Cell 5" not in run.stdout and "Cell 6" not in run.stdout


def test_a_failing_check_piped_to_a_file_reports_no_colour_codes(course):
    # nbval colours its report unless told `--color=no`, and the kernel's traceback
    # comes coloured by IPython: the repository's conftest.py removes both when the
    # output is not a terminal (here: captured).
    _, exercises = course
    for conftest in (ROOT / "conftest.py", EXERCISES_DIR / "conftest.py"):
        target = exercises.parent / conftest.relative_to(ROOT)
        target.write_bytes(conftest.read_bytes())
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "exercises/01_line_splitter.ipynb"],
        cwd=exercises.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "NotImplementedError: your code here" in run.stdout  # the unfilled exercise fails
    assert "\x1b" not in run.stdout + run.stderr

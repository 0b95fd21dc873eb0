"""The course notebooks, as committed: executed in order, clean, and shaped like lessons.

These tests read the .ipynb files as committed (`committed.py`: a learner's answers and
runs never count) and run nothing. `pytest --nbval notebooks`
(the second half of `make test`) re-runs every cell and compares the outputs;
`python scripts/execute_notebooks.py` refreshes them.
"""

import re
from pathlib import Path

import pytest
from committed import read as read_committed

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
COURSE = [
    "00_start_here",
    "01_sse_wire_format",
    "02_chunks_to_lines",
    "03_event_state_machine",
    "04_tool_use",
    "05_trust_but_verify",
    "06_in_production",
    "07_capstone",
]

# Absolute paths of the machine that ran the notebook: they would differ on every
# learner's machine and leak the author's. Relative paths like fixtures/x.sse are fine.
MACHINE_PATH = re.compile(
    r"(?<![\w.])(/tmp/|/work/|/root/|/home/|/Users/|/private/var/|[A-Za-z]:\\\\?Users)"
)
# Things that change from run to run and so can never match a stored output.
MEMORY_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{6,}")
TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}")
IGNORE_OUTPUT = "nbval-ignore-output"  # the cell tag nbval reads
# nbval's markers as comments in a cell's code: a learner would read them on every screen.
NBVAL_COMMENT = re.compile(r"^\s*#\s*NBVAL_", re.M)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def read(path):
    return read_committed(path)  # the course as committed, never a learner's run of it


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def tags(cell):
    return cell.metadata.get("tags", [])


def output_texts(cell):
    """Every piece of text a cell's outputs hold (images left out)."""
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            yield output.text
        elif output.output_type == "error":
            yield output.ename
            yield output.evalue
            yield from output.traceback
        else:
            for mime, value in output.get("data", {}).items():
                if not mime.startswith("image/") or mime == "image/svg+xml":
                    yield value if isinstance(value, str) else repr(value)


notebook_params = pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
# Every notebook a learner opens: the lessons, the bonus notebooks, and the Chinese edition.
EVERY_NOTEBOOK = sorted(
    p for p in NOTEBOOKS_DIR.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
every_notebook = pytest.mark.parametrize(
    "path",
    EVERY_NOTEBOOK,
    ids=[p.relative_to(NOTEBOOKS_DIR).with_suffix("").as_posix() for p in EVERY_NOTEBOOK],
)


def test_the_course_has_one_notebook_per_step_in_order():
    assert [p.stem for p in NOTEBOOKS] == COURSE


@every_notebook
def test_the_notebook_runs_on_the_python3_kernel(path):
    # Named as JupyterLab names it when it starts the kernel: opening the notebook
    # leaves its metadata as it is, so it does not show as unsaved.
    assert read(path).metadata.kernelspec == {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }


@every_notebook
def test_code_cells_were_executed_once_each_in_order_from_a_fresh_kernel(path):
    counts = [cell.execution_count for cell in code_cells(read(path))]
    assert counts == list(range(1, len(counts) + 1))


@every_notebook
def test_no_cell_fails_unless_it_is_tagged_raises_exception(path):
    for number, cell in enumerate(code_cells(read(path)), 1):
        failed = any(output.output_type == "error" for output in cell.outputs)
        assert failed == ("raises-exception" in tags(cell)), (
            f"code cell {number}: error={failed}, tags={tags(cell)}"
        )


# Every notebook of the course: the lessons and bonus notebooks, the exercises and their
# solutions, in both editions.
WITH_EXERCISES = EVERY_NOTEBOOK + sorted(
    p
    for folder in ("exercises", "solutions")
    for p in (NOTEBOOKS_DIR.parent / folder).rglob("*.ipynb")
    if ".ipynb_checkpoints" not in p.parts
)


@pytest.mark.parametrize(
    "path",
    WITH_EXERCISES,
    ids=[p.relative_to(NOTEBOOKS_DIR.parent).as_posix() for p in WITH_EXERCISES],
)
def test_nbval_markers_are_cell_tags_and_no_output_says_how_tracebacks_are_set(path):
    for number, cell in enumerate(code_cells(read(path)), 1):
        assert not NBVAL_COMMENT.search(cell.source), (
            f"code cell {number}: an nbval marker in its code, not in its tags"
        )
        for text in output_texts(cell):
            assert "Exception reporting mode" not in text, f"code cell {number}: {text!r}"


@every_notebook
def test_outputs_and_sources_hold_no_machine_paths(path):
    for number, cell in enumerate(read(path).cells, 1):
        for text in [cell.source, *output_texts(cell)]:
            found = MACHINE_PATH.search(text)
            assert not found, (
                f"cell {number}: machine path "
                f"{text[max(found.start() - 40, 0) : found.end() + 40]!r}"
            )


@every_notebook
def test_stored_outputs_hold_no_addresses_timestamps_or_warnings(path):
    for number, cell in enumerate(code_cells(read(path)), 1):
        if IGNORE_OUTPUT in tags(cell):
            continue
        for text in output_texts(cell):
            assert not MEMORY_ADDRESS.search(text), (
                f"code cell {number}: a memory address in {text!r}"
            )
            assert not TIMESTAMP.search(text), f"code cell {number}: a timestamp in {text!r}"
        streams = {o.name for o in cell.outputs if o.output_type == "stream"}
        assert "stderr" not in streams, f"code cell {number} writes to stderr (a warning?)"


@every_notebook
def test_widget_cells_keep_their_static_html_not_a_view_of_a_model_that_is_gone(path):
    # The model of a stored widget view lives only in the kernel that ran the
    # notebook: JupyterLab would show "model not found" in its place.
    for number, cell in enumerate(code_cells(read(path)), 1):
        for output in cell.outputs:
            assert WIDGET_VIEW not in output.get("data", {}), (
                f"code cell {number} stores a widget view"
            )
            if "StreamStepper(" in cell.source and output.output_type in (
                "display_data",
                "execute_result",
            ):
                assert "text/html" in output.data, (
                    f"code cell {number}: the stepper without its static page"
                )


@every_notebook
def test_nothing_that_varies_is_stored_in_metadata(path):
    notebook = read(path)
    assert "widgets" not in notebook.metadata, "widget state holds random model ids"
    for number, cell in enumerate(notebook.cells, 1):
        assert "execution" not in cell.metadata, f"cell {number} stores its execution timestamps"


@notebook_params
def test_the_notebook_opens_with_its_title_and_what_the_learner_will_be_able_to_do(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown"
    assert first.source.startswith(f"# {path.stem[:2]} · ")
    assert "What you will be able to do" in first.source


@notebook_params
def test_the_notebook_closes_with_a_recap_and_then_a_check_cell(path):
    cells = read(path).cells
    recap, check = cells[-2], cells[-1]
    assert recap.cell_type == "markdown" and recap.source.startswith("## Recap")
    assert check.cell_type == "code" and check.source.startswith("# Check")
    assert "assert " in check.source
    assert not any(output.output_type == "error" for output in check.outputs)


def test_start_here_links_to_every_notebook_and_to_the_exercises():
    start = read(NOTEBOOKS_DIR / "00_start_here.ipynb")
    text = "\n".join(cell.source for cell in start.cells if cell.cell_type == "markdown")
    for name in COURSE[1:]:
        assert f"]({name}.ipynb)" in text, f"no link to {name}.ipynb"
    assert "](../exercises" in text

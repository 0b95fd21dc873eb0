"""Re-execute the course notebooks in place, so their committed outputs are fresh.

    python scripts/execute_notebooks.py              # every lesson and bonus notebook
    python scripts/execute_notebooks.py 02 04_tool   # only those whose path starts so
    python scripts/execute_notebooks.py bonus/       # only the bonus notebooks
    python scripts/execute_notebooks.py zh/          # only the Chinese edition

For authors: run it after editing a notebook, then commit the notebook with its
outputs; `pytest --nbval` later checks that a fresh run reproduces them.

Each notebook runs in a fresh `python3` kernel with its own folder as the working
directory (as nbval runs it), top to bottom, as a learner would. Cells tagged `raises-exception`
may raise; any other error stops the run and leaves the file untouched.
Nothing that varies from run to run is written: no per-cell timings, no widget
state or widget views (their model ids are random: a widget cell keeps its
static HTML), execution counts 1..n.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TIMEOUT = 120  # seconds per cell; every cell should take a few seconds at most


def kernel_environment() -> None:
    """Make `streaming_lib` importable in the kernel, hashing deterministic, and the
    learner's own client (my_client/) a fresh folder of stubs.

    With `make`, streaming_lib is pip-installed (editable). In a bare checkout
    a kernel started in notebooks/ would not find it, so the repo root goes on
    its PYTHONPATH (the kernel inherits this process's environment).
    """
    os.environ["PYTHONHASHSEED"] = "0"
    # The lessons' `%%my_client` cells and `stage(...)` lines use a fresh folder of stubs,
    # never the author's own my_client/: the outputs are those of a learner starting out.
    if not os.environ.get("STREAMING_COURSE_MY_CLIENT"):
        folder = Path(tempfile.mkdtemp(prefix="streaming-course-")) / "my_client"
        os.environ["STREAMING_COURSE_MY_CLIENT"] = str(folder)
        atexit.register(shutil.rmtree, folder.parent, True)
    probe = (
        "import importlib.util, sys; sys.exit(importlib.util.find_spec('streaming_lib') is None)"
    )
    if subprocess.run([sys.executable, "-c", probe], cwd=NOTEBOOKS).returncode != 0:
        paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)


def select(prefixes: list[str]) -> list[Path]:
    """The notebooks whose path under notebooks/ starts with one of `prefixes` (all if none):
    the lessons (`NN_*.ipynb`), the bonus notebooks (`bonus/*.ipynb`), then the same in
    Chinese (`zh/...`, written by scripts/translate.py)."""
    notebooks = [
        *sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")),
        *sorted(NOTEBOOKS.glob("bonus/*.ipynb")),
        *sorted(NOTEBOOKS.glob("zh/[0-9][0-9]_*.ipynb")),  # the Chinese edition
        *sorted(NOTEBOOKS.glob("zh/bonus/*.ipynb")),
    ]
    if prefixes:
        notebooks = [
            nb
            for nb in notebooks
            if any(nb.relative_to(NOTEBOOKS).as_posix().startswith(p) for p in prefixes)
        ]
    return notebooks


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# The kernelspec as JupyterLab writes it when it starts the kernel: stored so, opening a
# notebook does not change its metadata (and mark it unsaved).
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def execute(path: Path) -> float:
    """Run one notebook in place; return the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        store_widget_state=False,
    )
    start = time.perf_counter()
    client.execute()
    notebook.metadata.pop("widgets", None)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
            for output in cell.outputs:
                # A widget's view points at a model that lives only in the running
                # kernel (under a random id): opened later, JupyterLab would show
                # "model not found". Without it the cell shows its static HTML.
                output.get("data", {}).pop(WIDGET_VIEW, None)
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def merge_streams(outputs: list) -> list:
    """Join consecutive pieces of the same stream (stdout, stderr) into one output.

    A cell that prints piece by piece (the typewriter) produces one output per
    flush. JupyterLab shows them as one block, but other renderers (nbconvert,
    GitHub) start a new line for each; joined, they look the same everywhere.
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.output_type == "stream"
            and previous is not None
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", help="notebook name prefixes, for example 02 or 04_tool"
    )
    args = parser.parse_args(argv)
    notebooks = select(args.names)
    if not notebooks:
        parser.error(f"no notebook matches {args.names}")
    kernel_environment()
    for path in notebooks:
        seconds = execute(path)
        print(f"executed {path.name} ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

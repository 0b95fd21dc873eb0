"""Run solution notebooks top to bottom and save them with their outputs.

    python scripts/execute_solutions.py                      every solutions/*.ipynb
    python scripts/execute_solutions.py solutions/04_*.ipynb  just these

Each notebook runs in a fresh `python3` kernel whose working directory is the
notebook's folder, with the repository root put first on PYTHONPATH so that
`import streaming_lib` works even where the package is not pip-installed.
Timing metadata is not recorded, so a re-run of unchanged code gives the same
file. Notebooks run in parallel, one kernel per CPU.

Afterwards, run `python scripts/make_exercises.py` to regenerate exercises/.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by path (tests)
from execute_notebooks import merge_streams  # noqa: E402  (one way to join printed pieces)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 300  # seconds per cell


def use_repo_root() -> None:
    """Put the repository root first on PYTHONPATH (inherited by every kernel started after)."""
    paths = [str(ROOT)] + [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(ROOT)
    ]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)


def client(
    notebook: nbformat.NotebookNode, folder: Path, *, allow_errors: bool = False
) -> NotebookClient:
    """An nbclient runner for `notebook` with the course's settings (cwd = `folder`)."""
    return NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        allow_errors=allow_errors,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )


async def run_all(
    jobs: list[tuple[nbformat.NotebookNode, Path]], *, allow_errors: bool = False
) -> list[nbformat.NotebookNode]:
    """Execute each (notebook, folder) pair, at most one kernel per CPU at a time.

    Returns the notebooks.
    """
    use_repo_root()
    limit = asyncio.Semaphore(os.cpu_count() or 1)

    async def run(notebook: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
        async with limit:
            return await client(notebook, folder, allow_errors=allow_errors).async_execute()

    return await asyncio.gather(*(run(nb, folder) for nb, folder in jobs))


def execute_all(paths: list[Path]) -> None:
    """Execute the notebooks at `paths` and save each in place.

    Raises on the first failing cell.
    """
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    executed = asyncio.run(
        run_all([(nb, path.parent) for nb, path in zip(notebooks, paths, strict=True)])
    )
    for path, notebook in zip(paths, executed, strict=True):
        notebook.metadata.get("language_info", {}).pop(
            "version", None
        )  # no machine detail in the file
        for cell in notebook.cells:  # a busy machine splits printed text at random points
            if cell.cell_type == "code":
                cell.outputs = merge_streams(cell.outputs)
        path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
        print(f"executed: {path.resolve().relative_to(ROOT)}")


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or sorted((ROOT / "solutions").glob("*.ipynb"))
    execute_all(paths)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

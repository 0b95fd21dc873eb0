"""The course as committed: what the tests that read lesson files judge.

A learner writes in the lessons (their answers, their runs of the cells), so the file on
disk is theirs; the tests judge the course as the repository holds it, git's HEAD, and
never the learner's copy. Outside a git checkout (an unpacked archive) the file is all
there is, and is read as it is.
"""

import functools
import subprocess
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def text(path: Path) -> str:
    """The committed text of `path` (a file in the repository), else the file's own."""
    resolved = Path(path).resolve()
    if resolved.is_relative_to(ROOT):
        committed = _committed(resolved.relative_to(ROOT).as_posix())
        if committed is not None:
            return committed
    return resolved.read_text(encoding="utf-8")  # not in git: a new file, a test's own


@functools.cache
def _committed(relative: str) -> str | None:
    shown = subprocess.run(
        ["git", "show", f"HEAD:{relative}"], cwd=ROOT, capture_output=True, check=False
    )
    return shown.stdout.decode("utf-8") if shown.returncode == 0 else None


def read(path: Path) -> nbformat.NotebookNode:
    """The committed notebook at `path` (nbformat 4), a fresh copy each time."""
    return nbformat.reads(text(Path(path)), as_version=4)

"""Three rules for every pytest run in this repository (`pytest tests`, `pytest --nbval
notebooks solutions`, and a learner's `pytest --nbval-lax exercises/...`).

1. The learner's own client, `my_client/`, is never read nor written.
   STREAMING_COURSE_MY_CLIENT points the lessons' `%%my_client` cells, their `stage(...)`
   lines and the `my-client` command at a fresh folder of stubs for this run (the
   notebooks' kernels inherit it), removed at the end. A run that sets it itself keeps its own.

2. Failure reports are plain text wherever they do not go to a terminal.
   nbval colours its reports (unless `--color=no`) and a notebook cell's traceback comes
   from the kernel already coloured by IPython, so a failing check piped to a file or a
   pager would show escape codes (`\\x1b[31m`). A report that pytest would print without
   colours (output not a terminal, `--color=no`, `NO_COLOR`) loses them; on a terminal
   nothing changes.

3. A notebook's kernel that lost the race for its ports starts again. jupyter_client picks
   free ports and hands them to the new kernel; another process (a second test run, a
   learner's JupyterLab) may bind one in between, and the kernel then dies before it
   answers `kernel_info`, before any cell ran. nbval's start is retried (twice at most)
   on exactly that error, as the lesson runs of tests/test_lessons.py are.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

# The library speaks English in the tests whatever the person running them has exported
# (the Chinese edition's notebooks say `set_language("zh")` themselves).
os.environ.pop("STREAMING_LIB_LANG", None)

ENVIRONMENT = "STREAMING_COURSE_MY_CLIENT"  # as streaming_lib.tools.my_client reads it
_made = None
if not os.environ.get(ENVIRONMENT):
    _made = Path(tempfile.mkdtemp(prefix="streaming-course-"))
    os.environ[ENVIRONMENT] = str(_made / "my_client")


LOST_PORT_RACE = "Kernel died before replying to kernel_info"  # jupyter_client's words


def retrying(start, attempts=3):
    """`start` (a function starting a kernel), started again when the kernel died before it
    replied, up to `attempts` times in all; any other error is raised at once."""

    def start_again_if_it_lost(*args, **kwargs):
        for attempt in range(1, attempts + 1):
            try:
                return start(*args, **kwargs)
            except RuntimeError as error:
                if LOST_PORT_RACE not in str(error) or attempt == attempts:
                    raise

    start_again_if_it_lost.retried = start
    return start_again_if_it_lost


def pytest_configure(config):
    try:
        import nbval.kernel
    except ImportError:  # a run without nbval: no notebook kernel to start
        return
    if not hasattr(nbval.kernel.start_new_kernel, "retried"):
        # RunningKernel looks start_new_kernel up in its module at each start.
        nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel)


def pytest_unconfigure(config):
    if _made is not None:
        shutil.rmtree(_made, ignore_errors=True)


# An ANSI control sequence: ESC [, parameters, one final letter (ECMA-48, CSI).
ANSI_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if isinstance(report.longrepr, str) and not item.config.get_terminal_writer().hasmarkup:
        report.longrepr = ANSI_SEQUENCE.sub("", report.longrepr)

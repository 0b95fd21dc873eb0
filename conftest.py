"""Two rules for every pytest run in this repository (`pytest tests`, `pytest --nbval
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

"""For every pytest run in this repository (`pytest tests`, `pytest --nbval notebooks
solutions`): the learner's own client, `my_client/`, is never read nor written.

STREAMING_COURSE_MY_CLIENT points the lessons' `%%my_client` cells, their `stage(...)`
lines and the `my-client` command at a fresh folder of stubs for this run (the
notebooks' kernels inherit it), removed at the end. A run that sets it itself keeps its own.
"""

import os
import shutil
import tempfile
from pathlib import Path

ENVIRONMENT = "STREAMING_COURSE_MY_CLIENT"  # as streaming_lib.tools.my_client reads it
_made = None
if not os.environ.get(ENVIRONMENT):
    _made = Path(tempfile.mkdtemp(prefix="streaming-course-"))
    os.environ[ENVIRONMENT] = str(_made / "my_client")


def pytest_unconfigure(config):
    if _made is not None:
        shutil.rmtree(_made, ignore_errors=True)

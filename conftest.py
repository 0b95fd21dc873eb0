"""Failure reports are plain text wherever they do not go to a terminal.

nbval colours its reports (unless `--color=no`) and a notebook cell's traceback
comes from the kernel already coloured by IPython, so a failing check piped to a
file or a pager would show escape codes (`\\x1b[31m`). Here a report that pytest
would print without colours (output not a terminal, `--color=no`, `NO_COLOR`)
loses them; on a terminal nothing changes. Applies to every run from this
repository: the tests, `--nbval` over notebooks and solutions, and a learner's
`--nbval-lax exercises/...`.
"""

from __future__ import annotations

import re

import pytest

# An ANSI control sequence: ESC [, parameters, one final letter (ECMA-48, CSI).
ANSI_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if isinstance(report.longrepr, str) and not item.config.get_terminal_writer().hasmarkup:
        report.longrepr = ANSI_SEQUENCE.sub("", report.longrepr)

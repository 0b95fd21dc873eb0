"""Single-fault mutants of the course's reference answers (`streaming_lib/tools/my_client/
reference/`), one module per file of `my_client/`: `lines.py` holds the mutants of
`reference/lines.py`, and so on. Each module defines `MUTANTS`, a list of `Mutant`;
`tests/test_mutants.py` applies each to a copy of the reference answers and asserts that
the file's lesson checks and `my-client` (or `--live`) both catch it."""

from typing import NamedTuple


class Mutant(NamedTuple):
    """One fault: `old`, an exact substring of `reference/<file>` found once, becomes `new`.

    `name` says the fault as a learner would make it ("the event type not reset at dispatch").
    """

    name: str
    file: str  # "lines.py", "sse.py", ...: the file of my_client/ it is a wrong answer for
    old: str
    new: str

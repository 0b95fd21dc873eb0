"""Single-fault mutants of the course's reference answers (`my_client/` files), one module
per file; `tests/test_mutants.py` proves each is caught by its lesson's checks and by
`python -m streaming_lib my-client` (or `--live`)."""

from typing import NamedTuple


class Mutant(NamedTuple):
    """One fault: `old` (an exact substring of the reference `file`) replaced by `new`."""

    name: str
    file: str
    old: str
    new: str

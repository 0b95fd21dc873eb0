"""Single-fault mutants of the reference `my_client/verdict.py` (lesson 04)."""

from . import Mutant

FILE = "verdict.py"

MUTANTS = [
    Mutant(
        "a server tool's call allowed",
        FILE,
        'block["type"] == "tool_use"',
        'block["type"].endswith("tool_use")',
    ),
    Mutant("no wait for the block's stop", FILE, "and index in acc.stopped", "and True"),
    Mutant(
        "an input that was not JSON allowed",
        FILE,
        "and index not in acc.input_errors",
        "and True",
    ),
    Mutant(
        "the schema ignored",
        FILE,
        "and (schema is None or schema_mismatch(block[\"input\"], schema) is None)",
        "and True",
    ),
    Mutant("no wait for message_stop", FILE, "and acc.complete", "and True"),
    Mutant(
        "any stop reason allowed",
        FILE,
        'and acc.message["stop_reason"] == "tool_use"',
        'and acc.message["stop_reason"] is not None',
    ),
]

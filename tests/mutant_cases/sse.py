"""Wrong answers for `my_client/sse.py` (lesson 01's `feed_line`), one fault each."""

from . import Mutant

RESET = "decoder.event_type, decoder.data_lines, decoder.retry = \"\", [], None"

MUTANTS = [
    Mutant(
        "every leading space of a data value stripped, not just one",
        "sse.py",
        "decoder.data_lines.append(value)",
        "decoder.data_lines.append(value.lstrip())",
    ),
    Mutant(
        "data lines joined without LF",
        "sse.py",
        "data = \"\\n\".join(decoder.data_lines)",
        "data = \"\".join(decoder.data_lines)",
    ),
    Mutant(
        "the event type not reset at dispatch",
        "sse.py",
        RESET,
        "decoder.data_lines, decoder.retry = [], None",
    ),
    Mutant(
        "the event's retry not reset at dispatch",
        "sse.py",
        RESET,
        "decoder.event_type, decoder.data_lines = \"\", []",
    ),
    Mutant(
        "the last event ID reset at dispatch",
        "sse.py",
        RESET,
        RESET + "\n        decoder.last_event_id = None",
    ),
    Mutant(
        "an id holding NUL accepted",
        "sse.py",
        "elif name == \"id\" and \"\\0\" not in value:",
        "elif name == \"id\":",
    ),
    Mutant(
        "retry read with int(): signs, spaces, points and fullwidth digits",
        "sse.py",
        "(milliseconds := retry_value(value)) is not None",
        "(milliseconds := int(value)) is not None",
    ),
    Mutant(
        "retry read with isdigit(): fullwidth digits accepted",
        "sse.py",
        "(milliseconds := retry_value(value)) is not None",
        "(milliseconds := int(value) if value.isdigit() else None) is not None",
    ),
    Mutant(
        "a blank line dispatches an event with an empty data buffer",
        "sse.py",
        "        if decoder.data_lines:\n",
        "        if True:\n",
    ),
    Mutant(
        "a comment read as a data line",
        "sse.py",
        "elif name == \"data\":",
        "elif name in (\"data\", \"\"):",
    ),
]

"""What the learner's client reports, said in the language in use (`streaming_lib.language`):
a stub's message, an error the learner's code raised.

Knows nothing of the stages: `__init__` (checks, `stage`), `chain` (`my-client`) and
`relaying` (lesson 07's checks) say their sentences with these.
"""

from __future__ import annotations

import re

from ...language import _


def named(error: BaseException) -> str:
    """An error as a learner reads it in a report: "KeyError: 'index'" (a stub's message
    in the language in use)."""
    return _("{kind}: {message}", kind=type(error).__name__, message=stub_words(str(error)))


# What every stub says: "write feed in my_client/lines.py (lesson 02)".
STUB_MESSAGE = re.compile(r"write (?P<function>\w+) in (?P<path>\S+) \(lesson (?P<lesson>\d+)\)")


def stub_words(message: str) -> str:
    """A stub's NotImplementedError message, to be shown in the language in use (a `Text`,
    English as a value); any other message as it is.

    >>> from streaming_lib.language import use_language
    >>> with use_language("zh"):
    ...     print(stub_words("write feed in my_client/lines.py (lesson 02)"))
    在 my_client/lines.py 里写出 feed（第 02 课）
    """
    match = STUB_MESSAGE.fullmatch(message)
    if match is None:
        return message
    return _("write {function} in {path} (lesson {lesson})", **match.groupdict())

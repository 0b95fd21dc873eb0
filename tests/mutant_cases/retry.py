"""Wrong answers for `my_client/retry.py` (lesson 06's `wait_before_retry`), one fault each."""

from . import Mutant

HEADERS = '(("retry-after-ms", 0.001), ("retry-after", 1.0))'
RULE = "status not in (408, 409, 429) and status < 500"

MUTANTS = [
    Mutant("retry-after ignored", "retry.py", HEADERS, '(("retry-after-ms", 0.001),)'),
    Mutant("retry-after-ms ignored", "retry.py", HEADERS, '(("retry-after", 1.0),)'),
    Mutant(
        "x-should-retry ignored",
        "retry.py",
        'told = headers.get("x-should-retry")',
        "told = None",
    ),
    Mutant("every 4xx retried, 400 and 401 too", "retry.py", RULE, "status < 400"),
    Mutant("a 429 never retried", "retry.py", "(408, 409, 429)", "(408, 409)"),
    Mutant(
        "the back-off one doubling ahead (1 s first)",
        "retry.py",
        "first_wait * 2 ** (attempt - 1)",
        "first_wait * 2**attempt",
    ),
    Mutant(
        "a connection that got no response not retried",
        "retry.py",
        "return backoff  # no answer came back",
        "return None  # no answer came back",
    ),
]

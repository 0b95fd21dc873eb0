"""Wrong answers for `my_client/client.py` (lesson 06's `stream_message`), one fault each."""

from . import Mutant

READ = "                    return read_message(response)\n"
RETRIED_AFTER_THE_BODY = """                    try:
                        return read_message(response)
                    except StreamError as error:  # a cut, an error event: tried again
                        wait = retry.wait_before_retry(httpx.ReadError(str(error)), attempt)
                        if wait is None or attempt > max_retries:
                            raise
                        sleep(wait)
                        continue
"""

MUTANTS = [
    Mutant("a retry after the body started", "client.py", READ, RETRIED_AFTER_THE_BODY),
    Mutant(
        "no read timeout",
        "client.py",
        "httpx.Timeout(read_timeout, connect=given.CONNECT_TIMEOUT)",
        "httpx.Timeout(None, connect=given.CONNECT_TIMEOUT)",
    ),
    Mutant(
        "the content-type unchecked",
        "client.py",
        "refused = given.not_an_event_stream(response)",
        "refused = None",
    ),
    Mutant(
        "the status unchecked: an error's body read as the stream",
        "client.py",
        "if response.status_code < 400:",
        "if True:",
    ),
    Mutant(
        "the partial message not kept",
        "client.py",
        "error.partial = accumulator.message",
        "error.partial = None",
    ),
    Mutant(
        "a stall reported as a cut (the body's own error dropped)",
        "client.py",
        "if body.error is not None:",
        "if False:",
    ),
    Mutant(
        "one retry fewer than max_retries",
        "client.py",
        "if attempt <= max_retries else None",
        "if attempt < max_retries else None",
    ),
]

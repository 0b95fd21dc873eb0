"""My retry policy (lesson 06): after a try that failed before the body, wait or give up."""

import httpx

MAX_WAIT = 8.0  # seconds: the longest back-off (the SDK's MAX_RETRY_DELAY)


def wait_before_retry(failure, attempt, first_wait=0.5):
    """Seconds (float) to wait before trying again, or None to give up, after try number
    `attempt` (1, 2, ...) failed before any byte of the body. `failure` is an httpx.Response
    with an error status (its headers read), or an httpx.TransportError (no response at all:
    the connection refused, cut or timed out)."""
    raise NotImplementedError("write wait_before_retry in my_client/retry.py (lesson 06)")

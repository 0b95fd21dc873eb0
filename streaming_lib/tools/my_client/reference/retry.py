"""My retry policy (lesson 06): after a try that failed before the body, wait or give up."""

import httpx

MAX_WAIT = 8.0  # seconds: the longest back-off (the SDK's MAX_RETRY_DELAY)


def wait_before_retry(failure, attempt, first_wait=0.5):
    """Seconds (float) to wait before trying again, or None to give up, after try number
    `attempt` (1, 2, ...) failed before any byte of the body. `failure` is an httpx.Response
    with an error status (its headers read), or an httpx.TransportError (no response at all:
    the connection refused, cut or timed out)."""
    backoff = min(first_wait * 2 ** (attempt - 1), MAX_WAIT)  # 0.5, 1, 2, 4, 8, 8, ... s
    if isinstance(failure, httpx.TransportError):
        return backoff  # no answer came back: sending the request again is safe
    status, headers = failure.status_code, failure.headers
    told = headers.get("x-should-retry")  # the server's own word comes first
    if told == "false" or (told != "true" and status not in (408, 409, 429) and status < 500):
        return None  # 400, 401, 403, 404, 413: the same request fails the same way
    for name, unit in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            wait = float(headers[name]) * unit  # the first header that is a number decides
        except (KeyError, ValueError):
            continue
        return wait if wait > 0 else backoff
    return backoff

"""My relay's streaming core (lesson 07): the upstream's body, piece by piece, to the page."""


async def relay(upstream):
    """Yield each piece (bytes) of `upstream`'s body as it arrives, untouched (`upstream`:
    an httpx.Response sent with stream=True); close `upstream` when its body ends, when it
    is cut, and when the page goes away (Starlette then stops this generator)."""
    try:
        async for piece in upstream.aiter_raw():  # each piece as it is read from the socket
            yield piece
    finally:  # the end, a cut, or Stop: the page is gone, so the upstream goes too
        await upstream.aclose()

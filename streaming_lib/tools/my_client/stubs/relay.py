"""My relay's streaming core (lesson 07): the upstream's body, piece by piece, to the page."""


async def relay(upstream):
    """Yield each piece (bytes) of `upstream`'s body as it arrives, untouched (`upstream`:
    an httpx.Response sent with stream=True); close `upstream` when its body ends, when it
    is cut, and when the page goes away (Starlette then stops this generator)."""
    raise NotImplementedError("write relay in my_client/relay.py (lesson 07)")
    yield b""  # never reached: a `yield` makes this function an async generator

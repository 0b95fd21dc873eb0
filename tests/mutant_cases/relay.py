"""Wrong answers for `my_client/relay.py` (lesson 07's `relay`), one fault each."""

from . import Mutant

CORE = """    try:
        async for piece in upstream.aiter_raw():  # each piece as it is read from the socket
            yield piece
    finally:  # the end, a cut, or Stop: the page is gone, so the upstream goes too
        await upstream.aclose()"""

MUTANTS = [
    Mutant(
        "the upstream not closed on Stop (closed only after its last piece)",
        "relay.py",
        CORE,
        """    async for piece in upstream.aiter_raw():
        yield piece
    await upstream.aclose()""",
    ),
    Mutant(
        "the whole body read before it is passed on",
        "relay.py",
        "async for piece in upstream.aiter_raw():",
        "for piece in [await upstream.aread()]:",
    ),
]

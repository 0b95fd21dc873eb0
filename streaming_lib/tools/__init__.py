"""Tools around the pipeline: the course's fixtures, the checks against the SDK, the front ends.

    fixtures.py        where the hand-made streams live: read_fixture, fixture_names, MAIN_FIXTURE
    sdk.py             the real `anthropic` SDK fed the same bytes, offline: the referee
    provider_fixtures.py  the other wires' streams (fixtures/providers/), Bedrock's frame encoder
    provider_sdk.py    the other wires' referees: each provider's own SDK, offline
    trace.py           `python -m streaming_lib trace`: one row per event
    stepper/           the notebooks' widget: every stage's state at every chunk
    block_progress.py  how far each content block has got, for trace and the stepper
    utf8.py            which bytes make which character, for the stepper
    progress.py        `python -m streaming_lib progress`: how far a learner is in the exercises

They read the pipeline's state; they decide nothing about the stream themselves.

    >>> from streaming_lib.tools.fixtures import read_fixture
    >>> read_fixture("fixture")[:21]     # every stream starts with its message_start
    b'event: message_start\\n'
"""

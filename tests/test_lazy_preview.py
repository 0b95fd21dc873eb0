"""A tool input's preview is paid for only when someone reads it.

The accumulator keeps each tool block's `input_json_delta` fragments; its
partial-JSON parser is made, and fed what arrived since, only when a preview
is read (`input_parsers`, `input_snapshot`, `input_changes`). Whatever the
reading pattern, each character is parsed once, and what a reader sees is what
a parser fed every fragment in turn would show at that point.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_lib import MessageAccumulator, PartialJSONError, aaccumulate, accumulate
from streaming_lib import accumulator as accumulator_module
from streaming_lib.fast import FastPartialJSONParser
from streaming_lib.partial_json import AppendString, PartialJSONParser
from streaming_lib.partial_json_strings import SURROGATE
from streaming_lib.tools.fixtures import chunked, read_fixture
from tests.test_accumulator import START, block_start, delta, fixture_events, stop
from tests.test_aio import stepped, trickle
from tests.test_fast_paths import json_texts

TOOL = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}


class CountingParser(FastPartialJSONParser):
    """The accumulator's parser, counting the parsers made and the characters fed."""

    made = 0
    characters = 0

    def __init__(self, **options) -> None:
        super().__init__(**options)
        CountingParser.made += 1

    def feed(self, fragment):
        CountingParser.characters += len(fragment)
        return super().feed(fragment)


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setattr(accumulator_module, "FastPartialJSONParser", CountingParser)
    monkeypatch.setattr(CountingParser, "made", 0)
    monkeypatch.setattr(CountingParser, "characters", 0)
    return CountingParser


def fragment_events(index, fragments):
    return [delta(index, type="input_json_delta", partial_json=text) for text in fragments]


def test_accumulate_makes_no_parser_for_a_tool_input(counting):
    message = accumulate(chunked(read_fixture(), 7))
    assert message["content"][1]["input"]["path"] == "calc.py"
    assert counting.made == 0


def test_aaccumulate_makes_no_parser_for_a_tool_input(counting):
    async def run():
        return await aaccumulate(trickle(chunked(read_fixture(), 7)))

    (message,) = stepped(aiter_once(run()))
    assert message["content"][1]["input"]["path"] == "calc.py"
    assert counting.made == 0


async def aiter_once(awaitable):
    yield await awaitable


def test_feeding_every_event_makes_no_parser_until_a_preview_is_read(counting):
    acc = MessageAccumulator()
    for event in fixture_events()[:13]:  # up to the fragment 'lc.py", "con'
        acc.feed(event)
    assert (1 in acc.input_parsers, list(acc.input_parsers), len(acc.input_parsers)) == (
        True,
        [1],
        1,
    )
    assert (counting.made, acc.input_parsers.made()) == (0, [])
    assert acc.input_snapshot(1) == {"path": "calc.py"}
    assert (counting.made, acc.input_parsers.made()) == (1, [1])


def test_a_block_that_is_not_a_tool_has_no_parser_to_read():
    acc = MessageAccumulator()
    for event in [START, block_start(0, {"type": "text", "text": ""})]:
        acc.feed(event)
    assert 0 not in acc.input_parsers
    with pytest.raises(KeyError):
        acc.input_parsers[0]


TEXT = json.dumps({"path": "a.py", "content": "x = 1\n" * 40, "mode": [1, 2.5, None, True]})
FRAGMENTS = [TEXT[at : at + 5] for at in range(0, len(TEXT), 5)]


@pytest.mark.parametrize("every", [1, 2, 7, 1000])
@pytest.mark.parametrize(
    "read", ["input_snapshot", "input_changes", "input_parsers", "unread_input_changes"]
)
def test_each_character_is_parsed_once_however_often_a_preview_is_read(counting, every, read):
    acc = MessageAccumulator()
    for event in [START, block_start(0, TOOL)]:
        acc.feed(event)
    for number, event in enumerate(fragment_events(0, FRAGMENTS), 1):
        acc.feed(event)
        if number % every == 0:
            {
                "input_snapshot": lambda: acc.input_snapshot(0, trailing_strings=True),
                "input_changes": lambda: acc.input_changes,
                "input_parsers": lambda: acc.input_parsers[0],
                "unread_input_changes": lambda: acc.unread_input_changes(0),
            }[read]()
    getattr(acc, read)(0) if read.startswith(("input_snapshot", "unread")) else acc.input_parsers[0]
    assert (counting.made, counting.characters) == (1, len(TEXT))  # the last ones read too
    assert acc.input_snapshot(0) == json.loads(TEXT)


def test_changes_first_asked_for_after_a_snapshot_cost_one_more_parse_of_the_text_so_far(
    counting,
):
    acc = MessageAccumulator()
    for event in [START, block_start(0, TOOL), *fragment_events(0, FRAGMENTS[:9])]:
        acc.feed(event)
    acc.input_snapshot(0)  # a parser without change records: a snapshot needs none
    assert acc.input_changes == [AppendString(path=("content",), text="1\nx ")]
    for event in fragment_events(0, FRAGMENTS[9:]):
        acc.feed(event)
        acc.input_changes  # noqa: B018
    assert (counting.made, counting.characters) == (2, len(TEXT) + len("".join(FRAGMENTS[:9])))


def test_never_read_a_preview_costs_no_parsing_at_all(counting):
    acc = MessageAccumulator()
    for event in [START, block_start(0, TOOL), *fragment_events(0, FRAGMENTS), stop(0)]:
        acc.feed(event)
    assert acc.message["content"][0]["input"] == json.loads(TEXT)
    assert (counting.made, counting.characters) == (0, 0)


def test_the_changes_of_the_last_fragment_are_the_same_read_before_or_after_a_snapshot():
    events = [START, block_start(0, TOOL), *fragment_events(0, FRAGMENTS[:9])]
    first, second = MessageAccumulator(), MessageAccumulator()
    for event in events:
        first.feed(event)
        second.feed(event)
    second.input_snapshot(0, trailing_strings=True)
    assert first.input_changes == second.input_changes != []


def reference(fragments):
    """A plain parser fed every fragment in turn: per fragment, (its changes, then
    the snapshots with and without trailing strings, or the error each raises)."""
    parser, seen = PartialJSONParser(), []
    for fragment in fragments:
        try:
            changes = [] if parser.error else parser.feed(fragment)
        except PartialJSONError:
            changes = []
        seen.append((changes, shown(parser, True), shown(parser, False)))
    return seen


def shown(parser_or_acc, trailing):
    try:
        if isinstance(parser_or_acc, MessageAccumulator):
            return "value", parser_or_acc.input_snapshot(0, trailing_strings=trailing)
        return "value", parser_or_acc.snapshot(trailing)
    except PartialJSONError as error:
        return "error", error.message, error.offset


@given(st.data(), json_texts.filter(lambda text: not SURROGATE.search(text)))
def test_a_preview_read_at_any_fragments_shows_what_a_parser_fed_every_fragment_shows(data, text):
    # (Lone surrogates left out: the accumulator mends them before any parser sees them.)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]  # some empty
    reads = data.draw(
        st.lists(
            st.sampled_from([None, "changes", "snapshot", "trailing", "both"]),
            min_size=len(fragments),
            max_size=len(fragments),
        )
    )
    wanted = reference(fragments)
    acc = MessageAccumulator()
    for event in [START, block_start(0, TOOL)]:
        acc.feed(event)
    for event, read, (changes, trailing, plain) in zip(
        fragment_events(0, fragments), reads, wanted, strict=True
    ):
        acc.feed(event)
        if read in ("changes", "both"):
            assert acc.input_changes == changes
        if read in ("trailing", "both"):
            assert shown(acc, True) == trailing
        if read == "snapshot":
            assert shown(acc, False) == plain
    assert shown(acc, True) == wanted[-1][1]


def merged(changes):
    """The changes with each run of `AppendString`s to one string as one, and empty ones
    dropped: what a display that applies them shows is the same."""
    out = []
    for change in changes:
        if type(change) is AppendString:
            if not change.text:
                continue
            if out and type(out[-1]) is AppendString and out[-1].path == change.path:
                out[-1] = AppendString(change.path, out[-1].text + change.text)
                continue
        out.append(change)
    return out


def is_json(text):
    try:
        json.loads(text)
    except ValueError:
        return False
    return not SURROGATE.search(text)


# (JSON only: a fragment that makes the text not JSON reports no change, so what
# was read with it in one call is not reported either; after that, nothing is.)
@given(st.data(), json_texts.filter(is_json))
def test_unread_changes_read_at_any_fragments_add_up_to_the_changes_of_every_fragment(data, text):
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    reads = data.draw(st.lists(st.booleans(), min_size=len(fragments), max_size=len(fragments)))
    acc, seen = MessageAccumulator(), []
    for event in [START, block_start(0, TOOL)]:
        acc.feed(event)
    for event, read in zip(fragment_events(0, fragments), reads, strict=True):
        acc.feed(event)
        if read:
            seen += acc.unread_input_changes(0)
    seen += acc.unread_input_changes(0)
    assert acc.unread_input_changes(0) == []  # nothing came since
    every = [change for changes, _, _ in reference(fragments) for change in changes]
    assert merged(seen) == merged(every)


def test_unread_changes_and_the_last_fragments_changes_are_read_apart():
    acc = MessageAccumulator()
    for event in [START, block_start(0, TOOL), *fragment_events(0, FRAGMENTS[:9])]:
        acc.feed(event)
    last = acc.input_changes
    assert merged(acc.unread_input_changes(0)) == merged(
        [change for changes, _, _ in reference(FRAGMENTS[:9]) for change in changes]
    )
    assert acc.input_changes == last  # the unread reader has a parser of its own
    for not_a_tool_block in (5, True, 0.0, "0"):  # 0 is the tool block; True and 0.0 are not
        with pytest.raises(KeyError):
            acc.unread_input_changes(not_a_tool_block)
        with pytest.raises(KeyError):
            acc.input_parsers[not_a_tool_block]  # noqa: B018
        assert not_a_tool_block not in acc.input_parsers

"""partial_json: jiter is the referee.

For every prefix of random documents (valid ones, and ones with a character
inserted, deleted or replaced) `parse_partial_json` must give what
`jiter.from_json(prefix.encode(), partial_mode=...)` gives, in both modes: the same
value (compared by `repr`, so 0, 0.0, -0.0 and NaN are told apart), or an error
with the same message at the same place. One rule is ours: a lone surrogate
escape (`\\ud83d` without its low half) is U+FFFD where jiter refuses it, so
jiter is shown the text with each such escape written `\\ufffd` (as long). The
incremental parser must agree with the one-shot function however the text is
cut, and its changes, applied in order, must rebuild the value.
"""

import doctest
import json
import re

import jiter
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_lib import partial_json
from streaming_lib.partial_json import (
    JITER_MAX_DEPTH,
    AppendString,
    EndValue,
    PartialJSONError,
    PartialJSONParser,
    SetValue,
    parse_partial_json,
)

MODES = {False: True, True: "trailing-strings"}  # our trailing_strings -> jiter's partial_mode
TOOL_INPUT = '{"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}'
CONTENT = "def add(a, b):\n    return a + b\n"


def jiter_position(text: str, offset: int) -> str:
    """Where jiter's message puts character `offset`: jiter counts bytes, lines from 1
    and columns from 1 (past the end: the length of the last line)."""
    data, index, newline = text.encode(), len(text[:offset].encode()), b"\n"
    if index >= len(data):
        return f"line {data.count(newline) + 1} column {len(data) - data.rfind(newline) - 1}"
    line_start = data.rfind(newline, 0, index + 1) + 1
    return f"line {data.count(newline, 0, index + 1) + 1} column {index + 1 - line_start}"


_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\.", re.S)
_LOW = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_UNDECIDED = re.compile(
    r"(\\(u[0-9a-fA-F]{0,3})?)?"
)  # the text ends where a low half may still come


def lone_halves_as_fffd(text: str) -> str:
    """`text` with every surrogate escape that is decidedly without its pair written `\\ufffd`."""
    out, escapes, paired_low = list(text), list(_ESCAPE.finditer(text)), -1
    for m in escapes:
        if m.start() == paired_low or len(m.group()) != 6:
            continue
        code = int(m.group()[2:], 16)
        if not 0xD800 <= code <= 0xDFFF:
            continue
        rest = text[m.end() :]
        if code < 0xDC00 and _LOW.match(rest):
            paired_low = m.end()
            continue
        if code < 0xDC00 and _UNDECIDED.fullmatch(rest):
            continue
        out[m.start() + 2 : m.end()] = "fffd"
    return "".join(out)


def jiter_says(text: str, trailing: bool) -> tuple[str, str]:
    try:
        return "value", repr(
            jiter.from_json(lone_halves_as_fffd(text).encode(), partial_mode=MODES[trailing])
        )
    except ValueError as error:
        return "error", str(error)


def we_say(text: str, trailing: bool) -> tuple[str, str]:
    try:
        return "value", repr(parse_partial_json(text, trailing_strings=trailing))
    except PartialJSONError as error:
        return "error", f"{error.message} at {jiter_position(text, error.offset)}"


def assert_every_prefix_agrees(document: str) -> None:
    for end in range(len(document) + 1):
        for trailing in (False, True):
            prefix = document[:end]
            assert we_say(prefix, trailing) == jiter_says(prefix, trailing), (prefix, trailing)


# -- random documents -----------------------------------------------------------

# Multi-byte and astral characters, characters that must be escaped, and the
# escapes a serializer may choose (upper-case hex, "\/", surrogate pairs).
TRICKY = ["a", " ", "é", "原", "😀", "𝄞", "\n", "\t", '"', "\\", "/", "\x00", "\x7f", "\u2028"]
ESCAPES = ["\\/", "\\u00E9", "\\u00e9", "\\uD83D\\uDE00", "\\ud834\\udd1e", "\\b", "\\f", "\\u0000"]
plain_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=6)
texts = plain_text | st.lists(st.sampled_from(TRICKY), max_size=6).map("".join)


@st.composite
def string_texts(draw) -> str:
    """A JSON string literal: text serialized either way, with extra escapes mixed in."""
    parts = draw(
        st.lists(
            texts.map(lambda t: json.dumps(t, ensure_ascii=draw(st.booleans()))[1:-1])
            | st.sampled_from(ESCAPES),
            max_size=4,
        )
    )
    return '"' + "".join(parts) + '"'


number_texts = st.from_regex(
    r"-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
)
literal_texts = st.sampled_from(
    [
        "true",
        "false",
        "null",
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-0",
        "12345678901234567890123",
    ]
)
spaces = st.sampled_from(["", "", " ", "\n  ", "\t", "\r\n"])
keys = st.sampled_from(['"a"', '"b"', '""']) | string_texts()  # small keys repeat often


def containers(children):
    arrays = st.builds(
        lambda items, sp: "[" + sp + ("," + sp).join(items) + sp + "]",
        st.lists(children, max_size=4),
        spaces,
    )
    objects = st.builds(
        lambda pairs, sp: "{" + sp + ("," + sp).join(f"{k}{sp}:{sp}{v}" for k, v in pairs) + "}",
        st.lists(st.tuples(keys, children), max_size=4),
        spaces,
    )
    return arrays | objects


written_documents = st.recursive(
    string_texts() | number_texts | literal_texts, containers, max_leaves=10
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**25), 10**25) | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=10,
)
dumped_documents = st.builds(
    json.dumps, json_values, ensure_ascii=st.booleans(), indent=st.sampled_from([None, 1])
)
documents = written_documents | dumped_documents

# What a mutation may insert: structure, pieces of escapes, literals and numbers.
DEBRIS = list('[]{},:"\\ 0123456789-+.eEtfnNIxé') + [
    "\\u",
    "\\ud83d",
    "\\ude00",
    "\\u00",
    "\\ud83d\\u",
    "😀",
    "\x01",
    "tru",
    "1.",
    "-",
    "\n",
]


@st.composite
def broken_documents(draw) -> str:
    text = draw(documents)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        debris = draw(st.sampled_from(DEBRIS))
        text = draw(
            st.sampled_from(
                [
                    text[:at] + debris + text[at:],
                    text[:at] + text[at + 1 :],
                    text[:at] + debris + text[at + 1 :],
                ]
            )
        )
    return text


def replay(changes, tree: dict) -> None:
    """Apply change records to tree["value"], as a UI would."""
    for change in changes:
        keys = ("value", *change.path)
        node = tree
        for key in keys[:-1]:
            node = node[key]
        if isinstance(change, SetValue):
            if isinstance(node, list) and keys[-1] == len(node):
                node.append(change.value)
            else:
                node[keys[-1]] = change.value
        elif isinstance(change, AppendString):
            node[keys[-1]] += change.text


@given(documents)
def test_every_prefix_of_a_random_document_matches_jiter_in_both_modes(document):
    assert_every_prefix_agrees(document)


@given(broken_documents())
def test_every_prefix_of_a_broken_document_matches_jiter_errors_included(document):
    assert_every_prefix_agrees(document)


def snapshot_says(parser: PartialJSONParser, text: str, trailing: bool) -> tuple[str, str]:
    """`parser.snapshot()` in the form of `we_say`; `text` is everything fed so far."""
    try:
        return "value", repr(parser.snapshot(trailing))
    except PartialJSONError as error:
        return "error", f"{error.message} at {jiter_position(text, error.offset)}"


@given(documents)
def test_feeding_a_document_in_two_pieces_equals_parsing_it_whole_for_every_cut(document):
    for cut in range(len(document) + 1):
        parser = PartialJSONParser()
        parser.feed(document[:cut])
        for trailing in (False, True):
            assert snapshot_says(parser, document[:cut], trailing) == we_say(
                document[:cut], trailing
            )
        parser.feed(document[cut:])
        assert snapshot_says(parser, document, False) == we_say(document, False)


@given(documents | broken_documents(), st.lists(st.integers(0, 200), max_size=8), st.booleans())
def test_any_fragments_give_the_one_shot_value_and_changes_that_rebuild_it(
    document, cuts, snapshots
):
    cuts = sorted({min(cut, len(document)) for cut in cuts} | {len(document)})
    parser, tree, start = PartialJSONParser(), {}, 0
    for cut in cuts:
        try:
            changes = parser.feed(document[start:cut])
        except PartialJSONError as error:
            for trailing in (False, True):
                assert snapshot_says(parser, document[:cut], trailing) == jiter_says(
                    document[:cut], trailing
                )
            assert parser.error is error and parser.position == cut
            return
        start = cut
        replay(changes, tree)
        for trailing in (False, True):
            assert snapshot_says(parser, document[:cut], trailing) == jiter_says(
                document[:cut], trailing
            )
        # The changes follow the trailing-strings view, but a number only counts once
        # the character after it has arrived: "1" may still become "12".
        if "value" in tree and not document[:cut][-1:].isdigit():
            assert repr(tree["value"]) == repr(parser.snapshot(True))
        if snapshots:  # a snapshot between feeds must not disturb the changes
            snapshot_says(parser, document[:cut], True)


# -- the tool input of the course -------------------------------------------------


def test_every_prefix_of_the_write_file_tool_input_matches_jiter():
    assert_every_prefix_agrees(TOOL_INPUT)
    assert parse_partial_json('{"path": "calc.py", "con') == {"path": "calc.py"}
    cut = TOOL_INPUT.index("\\n")  # the first escape: a backslash, then "n"
    for end, content in [
        (cut, "def add(a, b):"),
        (cut + 1, "def add(a, b):"),
        (cut + 2, "def add(a, b):\n"),
    ]:
        assert parse_partial_json(TOOL_INPUT[:end], trailing_strings=True) == {
            "path": "calc.py",
            "content": content,
        }
        assert parse_partial_json(TOOL_INPUT[:end]) == {"path": "calc.py"}


@pytest.mark.parametrize("size", [1, 2, 3, 5, 16])
def test_appended_strings_concatenate_to_the_final_string(size):
    parser, appended = PartialJSONParser(), {}
    for start in range(0, len(TOOL_INPUT), size):
        changes = parser.feed(TOOL_INPUT[start : start + size])
        paths = [change.path for change in changes if isinstance(change, AppendString)]
        assert len(paths) == len(set(paths))  # at most one AppendString per string per feed
        for change in changes:
            if isinstance(change, AppendString):
                appended[change.path] = appended.get(change.path, "") + change.text
    assert appended == {("path",): "calc.py", ("content",): CONTENT}
    assert parser.done and parser.snapshot() == json.loads(TOOL_INPUT)


def test_changes_say_when_strings_and_containers_start_and_end():
    parser = PartialJSONParser()
    assert parser.feed('{"a": [tr') == [SetValue((), {}), SetValue(("a",), [])]
    assert parser.feed('ue, "x') == [
        SetValue(("a", 0), True),
        SetValue(("a", 1), ""),
        AppendString(("a", 1), "x"),
    ]
    assert parser.feed('"], "a": 1') == [EndValue(("a", 1)), EndValue(("a",))]
    assert parser.snapshot() == {"a": 1} and not parser.done
    assert parser.feed("} trailing text is ignored") == [SetValue(("a",), 1), EndValue(())]
    assert parser.done and parser.feed("[") == []


# -- tricky prefixes, checked against jiter and pinned down ------------------------

E = PartialJSONError  # expected: an error
TRICKY_PREFIXES = [
    # text, strict value, trailing-strings value
    ("", E, E),
    (" \n", E, E),
    ("tru", E, E),
    ("true", True, True),
    ("nulll", None, None),  # text after the value is ignored
    ("-", E, E),
    ("1.", E, E),
    ("1e", E, E),
    ("1e-", E, E),
    ("1", 1, 1),
    ("-0", 0, 0),
    ("-0.0", -0.0, -0.0),
    ("1e400", float("inf"), float("inf")),
    (
        "123456789012345678901234567890",
        123456789012345678901234567890,
        123456789012345678901234567890,
    ),
    ("1 2", 1, 1),
    ('"ab', E, "ab"),
    ('"ab\\', E, "ab"),
    ('"ab\\u12', E, "ab"),
    ('"ab\\ud83d', E, "ab"),
    ('"ab\\ud83d\\ude00', E, "ab😀"),
    ('"ab\\u12"', E, "ab"),  # jiter reads four characters after \u first
    ("[tru", [], []),
    ("[1.", [], []),
    ("[-", [], []),
    ("[1e5", [100000.0], [100000.0]),
    ("[1", [1], [1]),
    ("[1,", [1], [1]),
    ("[-I", [], []),
    ("[-Infinity", [float("-inf")], [float("-inf")]),
    ('{"a', {}, {}),
    ('{"a":', {}, {}),
    ('{"a": "x', {}, {"a": "x"}),
    ('{"a": [1], "a": "x', {"a": [1]}, {"a": "x"}),
    ('{"a": [1], "a": [', {"a": []}, {"a": []}),
    ('{"a": 1, "b": 2, "a": 3}', {"a": 3, "b": 2}, {"a": 3, "b": 2}),
    ("[1 x", [1], [1]),  # junk after a value ends the container
    ("[[1}, 2]", [[1]], [[1]]),
    ('[[{"a": 1], 2]', [[{"a": 1}], 2], [[{"a": 1}], 2]),
    ("[0x]", [0], [0]),
]


@pytest.mark.parametrize(("text", "strict", "trailing"), TRICKY_PREFIXES)
def test_a_tricky_prefix_gives_what_jiter_gives(text, strict, trailing):
    for mode, expected in ((False, strict), (True, trailing)):
        assert we_say(text, mode) == jiter_says(text, mode)
        if expected is E:
            with pytest.raises(PartialJSONError):
                parse_partial_json(text, trailing_strings=mode)
        else:
            assert repr(parse_partial_json(text, trailing_strings=mode)) == repr(expected)


def test_an_unfinished_escape_is_cut_in_trailing_strings_mode():
    for tail in [
        "\\",
        "\\u",
        "\\u00",
        "\\u00e",
        "\\ud83d",
        "\\ud83d\\",
        "\\ud83d\\u",
        "\\ud83d\\ude0",
    ]:
        assert parse_partial_json('["x' + tail, trailing_strings=True) == ["x"]
        assert parse_partial_json('["x' + tail) == []
    assert parse_partial_json('["x\\u00e9', trailing_strings=True) == ["xé"]


# -- errors ------------------------------------------------------------------------

INVALID = [
    # text, message, character offset
    ("]", "expected value", 0),
    ("[1,]", "trailing comma", 3),
    ('{"a": 1, }', "trailing comma", 9),
    ("[,", "expected value", 1),
    ("{1: 2}", "key must be a string", 1),
    ('{"a" 1}', "expected `:`", 5),
    ('{"a": }', "expected value", 6),
    ("[tx", "expected ident", 2),
    ("nan", "expected ident", 1),
    ("01", "invalid number", 1),
    ("-x", "invalid number", 1),
    ("1.e5", "invalid number", 2),
    ('"\\x"', "invalid escape", 2),
    ('"\\u12g4"', "invalid escape", 5),
    ('"a\tb"', "control character (\\u0000-\\u001F) found while parsing a string", 2),
    ('["é😀", x', "expected value", 7),  # characters, where jiter counts bytes
    ("[" + "1" * 4301, "number out of range", 4302),
]


@pytest.mark.parametrize(("text", "message", "offset"), INVALID)
def test_invalid_json_raises_at_the_offset_of_the_problem(text, message, offset):
    with pytest.raises(PartialJSONError) as caught:
        parse_partial_json(text)
    assert (caught.value.message, caught.value.offset) == (message, offset)
    assert str(caught.value) == f"{message} at offset {offset}"
    assert we_say(text, False) == jiter_says(text, False)


def test_an_error_in_a_later_fragment_has_the_global_offset_and_sticks():
    parser = PartialJSONParser()
    parser.feed('{"a": [1, 2')
    with pytest.raises(PartialJSONError) as caught:
        parser.feed(", ]}")
    assert caught.value.offset == 13 and parser.error is caught.value and parser.position == 15
    for again in (lambda: parser.feed("3"), parser.snapshot):
        with pytest.raises(PartialJSONError) as repeated:
            again()
        assert repeated.value is caught.value


def test_no_value_yet_is_an_error_at_the_end_of_the_text():
    parser = PartialJSONParser()
    assert parser.feed("  ") == []
    with pytest.raises(PartialJSONError) as caught:
        parser.snapshot()
    assert (caught.value.message, caught.value.offset) == ("EOF while parsing a value", 2)
    parser.feed('"ab')
    assert parser.snapshot(trailing_strings=True) == "ab" and parser.error is None


def test_a_lone_surrogate_character_in_a_string_is_rejected():
    # Such text cannot be UTF-8 encoded, so jiter never sees it; we reject it where it is.
    with pytest.raises(PartialJSONError) as caught:
        parse_partial_json('["ab\ud83d', trailing_strings=True)
    assert (caught.value.message, caught.value.offset) == ("invalid unicode code point", 4)
    assert parse_partial_json("[1 \ud83d") == [1]  # after a value: junk that ends the list


def test_without_change_tracking_feed_returns_nothing_but_snapshots_still_work():
    parser = PartialJSONParser(track_changes=False)
    assert parser.feed(TOOL_INPUT[:40]) == []
    assert parser.snapshot(trailing_strings=True) == {"path": "calc.py", "content": "def add("}
    assert parser.feed(TOOL_INPUT[40:]) == [] and parser.done and parser.position == len(TOOL_INPUT)


# -- nesting -----------------------------------------------------------------------


def test_nesting_deeper_than_jiter_allows_fails_where_jiter_fails():
    for text in ["[" * 100_000, '{"a": ' * 100_000, "[" * JITER_MAX_DEPTH + "[1"]:
        assert we_say(text, False) == jiter_says(text, False)
        assert we_say(text, False)[1].startswith("recursion limit exceeded")
    assert we_say("[" * (JITER_MAX_DEPTH + 1), True) == jiter_says(
        "[" * (JITER_MAX_DEPTH + 1), True
    )


def test_nesting_100000_deep_works_without_a_depth_limit_and_never_recurses():
    depth = 100_000
    value = parse_partial_json("[" * depth + '"x', trailing_strings=True, max_depth=None)
    for _ in range(depth - 1):
        assert len(value) == 1
        value = value[0]
    assert value == ["x"]
    text = '{"k": ' * depth + "1" + "}" * depth
    parser = PartialJSONParser(max_depth=None, track_changes=False)
    for start in range(0, len(text), 1000):
        parser.feed(text[start : start + 1000])
    assert parser.done
    value = parser.snapshot()
    for _ in range(depth):
        value = value["k"]
    assert value == 1


def test_the_docstring_examples_run():
    results = doctest.testmod(partial_json)
    assert results.attempted > 0 and results.failed == 0


# -- allow_inf_nan=False: only values JSON has, as a tool's input at its stop ---------


def strict_json_says(text: str, trailing: bool) -> tuple[str, str]:
    parser = PartialJSONParser(allow_inf_nan=False, track_changes=False)
    try:
        parser.feed(text)
        return "value", repr(parser.snapshot(trailing))
    except PartialJSONError as error:
        return "error", f"{error.message} at {jiter_position(text, error.offset)}"


@pytest.mark.parametrize(
    "text", ["NaN", "[1, Na", "[-Infinity]", "[-In", '{"a": Infinity}', "[1.5e3, -0]", "1e-400"]
)
def test_without_inf_nan_the_literals_fail_as_jiter_fails_them(text):
    for mode in (False, True):
        try:
            jiter_value = (
                "value",
                repr(jiter.from_json(text.encode(), partial_mode=MODES[mode], allow_inf_nan=False)),
            )
        except ValueError as error:
            jiter_value = ("error", str(error))
        assert strict_json_says(text, mode) == jiter_value


@pytest.mark.parametrize("text", ["[1e400]", '{"n": -1e400}', "[1e40", "1" * 400 + ".0"])
def test_without_inf_nan_a_number_too_large_for_a_float_is_out_of_range_where_jiter_gives_inf(text):
    # jiter gives inf even with allow_inf_nan=False; a value JSON cannot hold.
    for mode in (False, True):
        if text == "[1e40":  # not out of range yet: 1e40, and more digits only add to it
            assert strict_json_says(text, mode) == ("value", "[1e+40]")
            assert strict_json_says(text + "0", mode)[0] == "error"
            continue
        said, why = strict_json_says(text, mode)
        assert said == "error" and why.startswith("number out of range"), why

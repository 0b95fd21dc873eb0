"""The lessons' checks: one line per check, and a result too long to show whole names
where it first differs from the answer, so a learner sees what is wrong."""

import doctest

from streaming_lib.tools import lesson_check
from streaming_lib.tools.fixtures import read_fixture
from streaming_lib.tools.lesson_check import check

RAW = read_fixture("fixture")


def line_of(compute, expected, what="the rule", capsys=None):
    check(what, compute, expected)
    return capsys.readouterr().out


def test_the_modules_examples_hold():
    assert doctest.testmod(lesson_check).failed == 0


def test_a_usage_added_up_is_named_inside_a_message_that_starts_alike(capsys):
    right = {
        "id": "msg",
        "content": [{"type": "text", "text": "x" * 200}],
        "usage": {"output_tokens": 58},
    }
    wrong = {**right, "usage": {"output_tokens": 59}}
    line = line_of(lambda: wrong, right, capsys=capsys)
    assert line.endswith("; first difference: ['usage']['output_tokens'] is 59, expected 58\n")


def test_an_extra_blank_line_is_named_by_its_place_in_a_long_list(capsys):
    lines = RAW.decode().split("\n")[:-1]
    line = line_of(lambda: ["", *lines], lines, capsys=capsys)
    assert line.endswith("; first difference: [0] is '', expected 'event: message_start'\n")


def test_a_long_text_that_differs_is_shown_from_just_before_the_first_difference(capsys):
    text = RAW.decode()
    cut = 1000
    wrong = text[:cut] + "\ufffd" + text[cut + 1 :]
    line = line_of(lambda: wrong, text, capsys=capsys)
    assert f"; first difference: [{cut - 10}:{cut + 20}] is {wrong[cut - 10 : cut + 20]!r}" in line


def test_a_missing_key_and_a_short_list_are_said_so(capsys):
    right = {"a": "y" * 200, "b": 1}
    assert line_of(lambda: {"a": "y" * 200}, right, capsys=capsys).endswith(
        "; first difference: ['b'] is missing, expected 1\n"
    )
    lines = [str(n) * 50 for n in range(5)]
    assert line_of(lambda: lines[:3], lines, capsys=capsys).endswith(
        "; first difference: 3 items, expected 5\n"
    )
    message = {"id": "m" * 200, "content": []}  # a list inside a dict: its key is named
    assert line_of(lambda: {**message, "content": [1, 2]}, message, capsys=capsys).endswith(
        "; first difference: ['content'] has 2 items, expected 0\n"
    )


def test_a_short_result_keeps_its_one_plain_line(capsys):
    assert line_of(lambda: ["a", "", "b"], ["a", "b"], capsys=capsys) == (
        "✘ the rule: got ['a', '', 'b'], expected ['a', 'b']\n"
    )


def test_a_chinese_label_names_the_first_difference_in_chinese(capsys):
    lines = [str(n) * 50 for n in range(5)]
    line = line_of(lambda: lines[:3], lines, what="逐字节", capsys=capsys)
    assert line.endswith("；第一处不同：有 3 项，应为 5 项\n")

"""The UTF-8 helper: where characters are, and which bytes ending a chunk begin one.

A character begun by the last bytes of a chunk is one still arriving.
"""

import itertools
import random

import pytest

from streaming_lib.tools.utf8 import characters, unfinished_character

# Second bytes that cover every range a lead byte may demand (e0: a0-bf, ed: 80-9f,
# f0: 90-bf, f4: 80-8f, the others: 80-bf); later bytes may be any of 80-bf.
SECOND = bytes([0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF])


def oracle(data):
    """(waiting bytes, missing count) found by brute force: the suffix of `data` that some
    completion turns into exactly one valid character, and that completion's length."""
    for size in (3, 2, 1):
        tail = data[-size:]
        if len(tail) < size:
            continue
        for missing in (1, 2, 3):
            for second in SECOND:
                completion = (
                    (bytes([second]) + b"\x80" * (missing - 1)) if size == 1 else b"\x80" * missing
                )
                try:
                    if len((tail + completion).decode("utf-8")) == 1:
                        return tail, missing
                except UnicodeDecodeError:
                    pass
    return b"", 0


VALID = "aé原😀\u0800\ud7ff\ue000\U0010ffff".encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("cut", range(len(VALID) + 1))
def test_a_valid_text_cut_anywhere_waits_for_exactly_the_rest_of_the_cut_character(cut):
    head = VALID[:cut]
    waiting, missing = unfinished_character(head)
    whole = len(
        head.decode("utf-8", "ignore").encode()
    )  # the bytes of the whole characters in `head`
    assert waiting == head[whole:]
    assert missing == (
        len(VALID[whole:].decode("utf-8", "ignore")[:1].encode()) - len(waiting) if waiting else 0
    )


@pytest.mark.parametrize("lead", [0xC0, 0xC1, 0xF5, 0xF8, 0xFE, 0xFF, 0x80, 0xBF])
def test_a_byte_that_can_start_no_character_waits_for_nothing(lead):
    assert unfinished_character(b"data: " + bytes([lead])) == (b"", 0)


@pytest.mark.parametrize(
    "start",
    [b"\xe0\x80", b"\xe0\x9f", b"\xf0\x80", b"\xf0\x8f", b"\xf4\x90", b"\xed\xa0", b"\xed\xbf"],
)
def test_an_overlong_surrogate_or_too_large_start_waits_for_nothing(start):
    assert unfinished_character(start) == (b"", 0)
    assert unfinished_character(b"x" + start) == (b"", 0)


def test_every_string_of_interesting_bytes_agrees_with_a_brute_force_search():
    alphabet = [
        0x61,
        0x80,
        0x8F,
        0x90,
        0x9F,
        0xA0,
        0xBF,
        0xC0,
        0xC2,
        0xDF,
        0xE0,
        0xE5,
        0xED,
        0xEF,
        0xF0,
        0xF4,
        0xF5,
        0xFF,
    ]
    for size in range(5):
        for combination in itertools.product(alphabet, repeat=min(size, 3)):
            data = bytes(combination)
            assert unfinished_character(data) == oracle(data), data


def test_random_streams_agree_with_a_brute_force_search_at_every_split():
    rng = random.Random(7)
    pieces = [
        b"a",
        b"\xe5\x8e\x9f",
        b"\xf0\x9f\x98\x80",
        b"\xc3\xa9",
        b"\xc0",
        b"\xed\xa0\x80",
        b"\xff",
        b"\x80",
    ]
    for _ in range(200):
        data = b"".join(rng.choice(pieces) for _ in range(6))
        for cut in range(len(data) + 1):
            assert unfinished_character(data[:cut]) == oracle(data[:cut]), data[:cut]


def test_characters_cover_every_byte_and_decode_as_bytes_decode_does():
    rng = random.Random(3)
    for _ in range(300):
        data = bytes(
            rng.choice(b"a\r\n\x80\xc0\xc3\xa9\xe5\x8e\x9f\xed\xa0\xf0\x9f\x98\xff")
            for _ in range(30)
        )
        found = list(characters(data))
        assert b"".join(data[offset : offset + length] for offset, length, _ in found) == data
        assert [offset for offset, _, _ in found] == list(
            itertools.accumulate([0] + [length for _, length, _ in found[:-1]])
        )
        assert "".join(char for _, _, char in found if char) == data.decode("utf-8", "ignore")
        assert all(
            char is None or char.encode() == data[offset : offset + length]
            for offset, length, char in found
        )

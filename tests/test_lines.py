"""Stage 1, the line splitter: every line ending, every chunk boundary, UTF-8 and cost."""

import pytest

from streaming_lib import LineDecoder, SizeLimitError, SSEDecodeError, iter_lines
from streaming_lib.tools.fixtures import chunked, read_fixture


def lines_of(*chunks: bytes, strict: bool = False) -> list[str]:
    return list(iter_lines(chunks, strict=strict))


def every_split(raw: bytes):
    for cut in range(len(raw) + 1):
        yield raw[:cut], raw[cut:]


def test_lf_crlf_and_a_lone_cr_all_end_a_line():
    assert lines_of(b"a\nb\r\nc\rd\n") == ["a", "b", "c", "d"]


def test_a_crlf_split_across_two_chunks_is_one_line_ending():
    assert lines_of(b"a\r", b"\nb\n") == ["a", "b"]


def test_a_cr_at_the_end_of_a_chunk_ends_its_line_at_once():
    decoder = LineDecoder()
    assert decoder.feed(b"data: x\r") == ["data: x"]
    assert decoder.pending == b""
    assert decoder.feed(b"\n") == []


def test_cr_cr_is_two_line_endings_even_split():
    assert lines_of(b"a\r", b"\rb\n") == ["a", "", "b"]


def test_a_lf_after_a_cr_from_two_chunks_ago_is_a_new_line():
    assert lines_of(b"a\r", b"b", b"\n") == ["a", "b"]
    assert lines_of(b"a\r", b"", b"\nb\n") == ["a", "b"]


@pytest.mark.parametrize("raw", [b"a\r\nb\r\n\r\nc\r\n", b"x\ry\r\rz\r", b"\r\n\n\r\r\n"])
def test_every_split_point_of_mixed_line_endings_gives_the_same_lines(raw):
    whole = lines_of(raw)
    for head, tail in every_split(raw):
        assert lines_of(head, tail) == whole, (head, tail)


def test_the_final_unterminated_line_comes_out_at_flush():
    decoder = LineDecoder()
    assert decoder.feed(b"a\nrest") == ["a"]
    assert decoder.pending == b"rest"
    assert decoder.flush() == ["rest"]
    assert decoder.flush() == []


def test_a_four_byte_character_split_at_every_offset_is_decoded_whole():
    raw = "data: 🧪!\n".encode()
    for head, tail in every_split(raw):
        assert lines_of(head, tail) == ["data: 🧪!"]
    assert lines_of(*chunked(raw, 1)) == ["data: 🧪!"]


def test_pending_holds_half_a_character_as_bytes():
    decoder = LineDecoder()
    assert decoder.feed("原".encode()[:2]) == []
    assert decoder.pending == b"\xe5\x8e"


def test_a_byte_order_mark_at_the_start_is_dropped_once():
    assert lines_of(b"\xef\xbb\xbfa\n\xef\xbb\xbfb\n") == ["a", "\ufeffb"]


def test_a_byte_order_mark_split_across_chunks_is_still_dropped():
    assert lines_of(b"\xef", b"\xbb", b"\xbfdata: x\n") == ["data: x"]


def test_invalid_utf8_becomes_the_replacement_character():
    assert lines_of(b"a\xffb\n") == ["a\ufffdb"]


def test_a_truncated_sequence_is_one_replacement_character():
    assert lines_of(b"\xe5\x8e\n") == ["\ufffd"]


def test_strict_mode_names_the_byte_offset_of_invalid_utf8():
    with pytest.raises(SSEDecodeError) as caught:
        lines_of(b"ok\n", b"bad \xff here\n", strict=True)
    assert caught.value.offset == 7
    assert "byte offset 7" in str(caught.value)


def test_strict_offsets_count_a_crlf_split_across_chunks():
    with pytest.raises(SSEDecodeError) as caught:
        lines_of(b"ok\r", b"\n\xff\n", strict=True)
    assert caught.value.offset == 4


def test_u2028_inside_a_line_does_not_end_it():
    assert lines_of("a\u2028b\u0085c\n".encode()) == ["a\u2028b\u0085c"]


def test_the_fixture_gives_the_same_lines_at_every_chunk_size():
    raw = read_fixture()
    whole = lines_of(raw)
    assert whole[0] == "event: message_start"
    for size in (1, 2, 3, 7, 64):
        assert lines_of(*chunked(raw, size)) == whole


def test_the_fixture_split_in_two_at_every_offset_gives_the_same_lines():
    raw = read_fixture()
    whole = lines_of(raw)
    for head, tail in every_split(raw):
        assert lines_of(head, tail) == whole


def test_one_big_chunk_of_many_lines_is_decoded_once_not_once_per_tail():
    # Linear cost: each byte goes through the UTF-8 decoder once, however many
    # lines share the chunk (re-slicing the tail per line would be quadratic).
    decoded = []

    class CountingDecoder(LineDecoder):
        def _decode(self, raw, offset):
            decoded.append(len(raw))
            return super()._decode(raw, offset)

    chunk = b"data: 0123456789\n" * 10_000
    assert len(CountingDecoder().feed(chunk)) == 10_000
    assert sum(decoded) == len(chunk)


def test_a_long_line_in_small_chunks_is_gathered_in_place():
    decoder = LineDecoder()
    for piece in chunked(b"x" * 5000, 16):
        assert decoder.feed(piece) == []
    assert len(decoder.pending) == 5000
    assert decoder.feed(b"\n") == ["x" * 5000]


def test_strict_mode_keeps_the_lines_before_a_bad_byte_whatever_the_chunking():
    raw = b"a\nb\nc \xff\nd\n"
    for size in (1, 3, len(raw)):
        got = []
        with pytest.raises(SSEDecodeError) as caught:
            for line in iter_lines(chunked(raw, size), strict=True):
                got.append(line)
        assert got == ["a", "b"] and caught.value.offset == 6, size


def test_a_stream_of_only_a_byte_order_mark_has_no_lines():
    assert lines_of(b"\xef\xbb\xbf") == []
    assert lines_of(b"\xef\xbb", b"\xbf") == []


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_chunks_that_are_bytes_like_give_the_lines_bytes_give(kind):
    raw = b"\xef\xbb\xbfdata: caf\xc3\xa9\r\n\r\nevent: x\ndata: \xe5\x8e\x9f\n\n"
    for size in (1, 3, 7, len(raw)):
        chunks = [raw[i : i + size] for i in range(0, len(raw), size)]
        expected = list(iter_lines(chunks))
        assert list(iter_lines([kind(chunk) for chunk in chunks])) == expected
        decoder = LineDecoder()
        assert [
            line for chunk in chunks for line in decoder.feed(kind(chunk))
        ] + decoder.flush() == expected


@pytest.mark.parametrize("chunk", ["data: x\n", 5, None])
def test_a_chunk_that_is_not_bytes_is_a_type_error_that_says_so(chunk):
    with pytest.raises(TypeError, match="a chunk must be bytes, not"):
        list(iter_lines([b"data: a\n", chunk]))
    with pytest.raises(TypeError, match="a chunk must be bytes, not"):
        LineDecoder().feed(chunk)


def test_passing_the_stream_itself_instead_of_its_chunks_says_what_to_pass():
    with pytest.raises(TypeError, match=r"pass a list of chunks, \[raw\], not raw itself"):
        list(iter_lines(b"data: x\n\n"))


# -- a limit on line length (ours: hostile input must not fill memory) -----------


def chunkings_of(raw: bytes):
    """`raw` whole, in chunks of 1, 2 and 7 bytes, and cut at ten random places."""
    import random

    yield [raw]
    for size in (1, 2, 7):
        yield chunked(raw, size)
    for seed in range(10):
        cuts = sorted(random.Random(seed).sample(range(1, len(raw)), min(10, len(raw) - 1)))
        yield [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


def lines_until_error(chunks, **options):  # -> (lines given, the error raised)
    got = []
    with pytest.raises(SizeLimitError) as caught:
        for lines in LineDecoder(**options).feed_all(chunks):
            got += lines
    return got, caught.value


def test_a_line_longer_than_the_limit_is_refused_at_its_first_byte_whatever_the_chunks():
    raw = b"a\r\nbb\n" + b"x" * 11 + b"\rz\n"
    for chunks in chunkings_of(raw):
        got, error = lines_until_error(chunks, max_line_bytes=10)
        assert got == ["a", "bb"] and (error.offset, error.limit) == (6, 10)
        assert str(error) == "the line at byte offset 6 is longer than the size limit, 10 bytes"


def test_a_line_as_long_as_the_limit_is_taken():
    raw = b"a\n" + b"x" * 10 + b"\r\n" + b"y" * 10
    for chunks in chunkings_of(raw):
        assert [
            line for lines in LineDecoder(max_line_bytes=10).feed_all(chunks) for line in lines
        ] == ["a", "x" * 10, "y" * 10]


def test_an_unterminated_last_line_longer_than_the_limit_is_refused_at_flush():
    decoder = LineDecoder(max_line_bytes=4)
    assert decoder.feed(b"ab\ncdefg") == ["ab"]
    with pytest.raises(SizeLimitError) as caught:
        decoder.flush()
    assert caught.value.offset == 3


def test_a_stream_that_never_ends_a_line_is_refused_before_it_is_held_whole():
    sent = 0

    def endless():  # as if 200 MB came without a line ending, 1 KiB at a time
        nonlocal sent
        for _ in range(200_000):
            sent += 1
            yield b"x" * 1024

    decoder = LineDecoder(max_line_bytes=64 * 1024)
    with pytest.raises(SizeLimitError) as caught:
        list(decoder.feed_each(endless()))
    assert caught.value.offset == 0 and sent == 65  # the chunk that passed the limit, and no more
    assert len(decoder.pending) == 64 * 1024  # what was held: the limit, not the stream
    with pytest.raises(SizeLimitError):  # a decoder that refused a line stays refused
        decoder.feed(b"\n")


def test_a_bad_byte_before_a_long_line_is_reported_first_in_strict_mode():
    raw = b"ok\n\xff\n" + b"x" * 20 + b"\n"
    for chunks in chunkings_of(raw):
        with pytest.raises(SSEDecodeError) as caught:
            list(LineDecoder(strict=True, max_line_bytes=8).feed_all(chunks))
        assert caught.value.offset == 3


def test_no_limit_takes_any_line():
    decoder = LineDecoder(max_line_bytes=None)
    assert decoder.max_line_bytes is None and decoder.feed(b"x" * 100_000 + b"\n") == [
        "x" * 100_000
    ]
    assert LineDecoder().max_line_bytes == 16 * 2**20  # the default


@pytest.mark.parametrize(
    ("limit", "error"),
    [(True, TypeError), (1.5, TypeError), ("100", TypeError), (0, ValueError), (-1, ValueError)],
)
def test_a_size_limit_is_a_whole_number_of_bytes_or_none(limit, error):
    from streaming_lib import SSEDecoder, accumulate

    with pytest.raises(error, match="size limit"):
        LineDecoder(max_line_bytes=limit)
    with pytest.raises(error, match="size limit"):
        SSEDecoder(max_event_bytes=limit)
    with pytest.raises(error, match="size limit"):
        accumulate([b"data: x\n\n"], max_event_bytes=limit)

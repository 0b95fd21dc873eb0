"""The benchmarks run end to end on tiny sizes (a smoke test: no timing is ever asserted)."""

import doctest
import json
import socket
from dataclasses import replace

import pytest

import benchmarks.__main__ as cli
from benchmarks import overhead, streams, timing
from benchmarks.__main__ import Settings, run, write
from benchmarks.report import size_text, targets, text
from streaming_lib import accumulate

TINY = Settings(
    preview_sizes=[1024, 2048, 4096],
    pipeline_size=8192,
    decode_size=8192,
    chunk_sizes=[1, 64, 4096, 8192],
    frontend_sizes=[2048, 4096, 8192],
    overhead_sizes=[2048, 4096, 8192],
    overhead_repeats=1,
    shape_size=2048,
    repeats=1,
    repeats_1_byte=1,
    sdk_budget=1000.0,
)


@pytest.fixture(scope="module")
def results():
    return run(TINY, log=lambda line: None)


def test_the_helpers_docstring_examples_hold():
    for module in (timing, streams, overhead):
        results = doctest.testmod(module)
        assert results.attempted > 0 and results.failed == 0


def test_a_tool_stream_carries_an_input_of_the_asked_size_in_16_character_fragments():
    message = accumulate(streams.tool_stream(4096))
    tool_input = message["content"][1]["input"]
    raw_input = "".join(streams.tool_fragments(4096))
    assert json.loads(raw_input) == tool_input and 3500 < len(raw_input.encode()) <= 4096
    assert {len(f) for f in streams.tool_fragments(4096)[:-1]} == {streams.FRAGMENT_CHARS}
    assert (
        "\n" in tool_input["content"]
        and '"' in tool_input["content"]
        and not tool_input["content"].isascii()
    )


def test_a_text_stream_is_about_the_asked_size_and_only_text():
    raw = streams.text_stream(8192)
    assert 8192 <= len(raw) < 8192 + 200
    assert [block["type"] for block in accumulate(raw)["content"]] == ["text"]


def test_slope_is_one_for_linear_and_two_for_quadratic_times():
    sizes = [1, 2, 4, 8]
    assert timing.slope(sizes, [3 * s for s in sizes]) == pytest.approx(1)
    assert timing.slope(sizes, [3 * s * s for s in sizes]) == pytest.approx(2)


def test_a_mixed_stream_is_about_the_asked_size_with_a_thinking_a_text_and_a_tool_block():
    raw = streams.mixed_stream(64 * 1024)
    assert 0.9 * 64 * 1024 < len(raw) <= 1.05 * 64 * 1024
    message = accumulate(raw)
    assert [block["type"] for block in message["content"]] == ["thinking", "text", "tool_use"]
    assert message["content"][2]["input"]["path"] == "records.py"


def test_a_paired_ratio_is_the_median_of_the_turn_by_turn_ratios():
    assert timing.paired_ratio([3.0, 2.0, 50.0], [1.0, 1.0, 1.0]) == 3.0
    assert timing.paired_ratio([1.0, 4.0], [1.0, 2.0]) == 1.5


def test_interleaved_best_runs_each_contender_its_own_number_of_times():
    calls = []
    best = timing.interleaved_best(
        {"a": (lambda: calls.append("a"), 3), "b": (lambda: calls.append("b") or 7, 1)}
    )
    assert calls == ["a", "b", "a", "a"] and best["b"][1] == 7 and best["a"][0] >= 0


def test_every_benchmark_fills_its_rows(results):
    assert [row["size"] for row in results["preview"]["rows"]] == TINY.preview_sizes
    assert [row["chunk_bytes"] for row in results["decode"]["rows"]] == TINY.chunk_sizes
    assert results["pipeline"]["ours_s"] > 0 and results["pipeline"]["sdk_s"] > 0
    assert set(results["preview"]["slopes"]) == {
        "ours_changes",
        "ours_snapshots",
        "ours_snapshots_no_trailing",
        "sdk",
        "sdk_top",
    }
    assert [(row["stream"], row["size"]) for row in results["frontends"]["rows"]] == [
        (kind, size) for kind in ("text", "tool") for size in TINY.frontend_sizes
    ]
    assert all(
        row["trace_peak_bytes"] > 0 and row["stepper_output_bytes"] > 0
        for row in results["frontends"]["rows"]
    )
    assert [(row["stream"], row["size"]) for row in results["overhead"]["rows"]] == [
        (kind, size) for kind in ("text", "tool", "mixed") for size in TINY.overhead_sizes
    ]
    assert all(
        row["accumulate_peak_bytes"] > 0
        and row["aaccumulate_s"] > 0
        and row["snapshots_ratio"] > 0
        and row["accumulate_jiter_ratio"] > 0
        and row["changes_ratio"] > 0
        for row in results["overhead"]["rows"]
    )
    assert [row["shape"] for row in results["overhead"]["shapes"]] == list(streams.SHAPES)
    assert all(row["trailing_lower_ratio"] > 0 for row in results["overhead"]["shapes"])


def test_every_shape_of_tool_input_streams_in_fragments_of_its_width_to_its_json():
    for shape, (make, width) in streams.SHAPES.items():
        raw = streams.shaped_tool_stream(8192, shape)
        events = [json.loads(line[6:]) for line in raw.split(b"\n") if line.startswith(b"data: ")]
        fragments = [
            e["delta"]["partial_json"] for e in events if e.get("delta", {}).get("partial_json")
        ]
        assert {len(f) for f in fragments[:-1]} == {width}, shape
        assert accumulate(raw)["content"][0]["input"] == json.loads(make(8192)), shape


def test_the_jiter_bound_reads_what_the_plain_bound_reads():
    for raw in (streams.text_stream(4096), streams.tool_stream(4096), streams.mixed_stream(8192)):
        chunks = [raw[i : i + 7] for i in range(0, len(raw), 7)]
        assert overhead.jiter_bound(chunks) == overhead.lower_bound(chunks)


def test_the_lower_bound_reads_the_text_and_tool_input_that_accumulate_builds():
    for raw in (streams.text_stream(4096), streams.tool_stream(4096), streams.mixed_stream(8192)):
        message = accumulate(raw)
        pieces = overhead.lower_bound([raw[i : i + 7] for i in range(0, len(raw), 7)])
        text = "".join(
            block.get("text") or block.get("thinking") or "" for block in message["content"]
        )
        assert pieces.startswith(text)
        tools = [block["input"] for block in message["content"] if block["type"] == "tool_use"]
        assert not tools or [json.loads(pieces[len(text) :])] == tools


def test_the_machine_is_described_without_its_name(results):
    assert {"cpu_count", "python", "anthropic", "jiter"} <= set(results["machine"])
    assert len(results["load_average_at_start"]) == 3
    assert socket.gethostname() not in json.dumps(results)


def test_the_table_shows_every_benchmark_and_every_target_with_a_mark(results):
    report = text(results)
    for title in (
        "1 and 2. Live preview",
        "3. Whole pipeline",
        "4. Bytes to events",
        "5 and 6. Front ends",
        "7. accumulate",
        "Targets",
    ):
        assert title in report
    assert len(results["targets"]) == 18
    assert "7. accumulate vs the jiter bound, every stream and size" in report
    assert all(target["passed"] in (True, False) for target in results["targets"])
    assert report.count("✔") + report.count("✘") == 18


def test_an_sdk_run_over_budget_is_extrapolated_and_says_so():
    results = run(replace(TINY, sdk_budget=0.0), names=("preview",), log=lambda line: None)
    rows = results["preview"]["rows"]
    assert [row["sdk_extrapolated"] for row in rows] == [False, False, True]
    assert "(extrapolated)" in text(results)
    assert "SDK time extrapolated" in [t["note"] for t in targets(results)][0]


def test_write_makes_the_json_and_the_plots_the_chinese_one_included(results, tmp_path):
    paths = write(results, tmp_path)
    assert sorted(path.name for path in paths) == [
        "decode_throughput.png",
        "preview_scaling.png",
        "preview_scaling.zh.png",
        "results.json",
    ]
    assert (
        json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["targets"]
        == results["targets"]
    )
    for name in ("decode_throughput.png", "preview_scaling.png", "preview_scaling.zh.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")


def test_the_command_line_runs_one_benchmark_and_writes_where_told(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "QUICK", TINY)
    assert cli.main(["--quick", "--only", "pipeline", "--out", str(tmp_path)]) == 0
    assert "3. Whole pipeline" in capsys.readouterr().out
    assert set(json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))) >= {
        "pipeline",
        "targets",
    }


def test_the_front_end_benchmarks_run_alone_and_print_without_writing(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(cli, "QUICK", TINY)
    monkeypatch.setattr(cli, "RESULTS_DIR", tmp_path)
    assert cli.main(["--quick", "--only", "frontends"]) == 0
    report = capsys.readouterr().out
    assert "5 and 6. Front ends" in report and "1 and 2." not in report
    assert report.count("✔") + report.count("✘") == 4
    assert not list(tmp_path.iterdir())  # one group alone never overwrites the committed results


def test_a_tool_stream_of_a_size_has_a_body_of_about_that_size():
    for size in (64 * 1024, 256 * 1024):
        assert 0.95 * size < len(streams.tool_stream_of(size)) <= 1.05 * size


def test_sizes_print_in_binary_units():
    assert [size_text(n) for n in (1, 64, 4096, 16384, 1048576)] == [
        "1 B",
        "64 B",
        "4 KiB",
        "16 KiB",
        "1 MiB",
    ]


def test_an_sdk_run_predicted_to_be_slow_is_made_twice_and_a_fast_one_every_time(monkeypatch):
    from benchmarks import preview

    monkeypatch.setattr(preview, "SDK_SLOW", 0.0)  # every prediction counts as slow
    rows = preview.run([1024, 2048, 4096], repeats=3, sdk_budget=1000.0, log=lambda line: None)[
        "rows"
    ]
    # The first two sizes have no prediction yet (it needs two measured sizes).
    assert [row["sdk_runs"] for row in rows] == [
        3,
        3,
        preview.SDK_SLOW_RUNS,
    ] and preview.SDK_SLOW_RUNS == 2

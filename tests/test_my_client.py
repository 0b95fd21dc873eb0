"""The learner's own client: my_client/ made from stubs, never overwritten, its stages used
when they pass their checks, and the whole chain judged against the SDK on every fixture.

Every test here works in a folder of its own (tmp_path); none reads or writes the
learner's my_client/ (the root conftest.py also points STREAMING_COURSE_MY_CLIENT away).
"""

import re
import shutil

import pytest

from streaming_lib.__main__ import main
from streaming_lib.tools import my_client
from streaming_lib.tools.my_client import REFERENCE, STAGES, STUBS, chain

FILES = sorted(path.name for path in STUBS.glob("*.py"))
ROOT = REFERENCE.parents[3]


def copy_of(source, target, names):
    """`target` made from stubs, with the files `names` taken from `source`."""
    my_client.ensure(target)
    for name in names:
        shutil.copy(source / f"{name}.py", target / f"{name}.py")
    return target


def test_a_stub_and_a_reference_answer_exist_for_every_stage_and_nothing_else():
    assert sorted(f"{name}.py" for name in STAGES) == FILES
    assert sorted(path.name for path in REFERENCE.glob("*.py")) == FILES


def test_ensure_makes_each_missing_file_from_its_stub_and_never_writes_over_one(tmp_path):
    where = tmp_path / "my_client"
    my_client.ensure(where)
    assert sorted(path.name for path in where.glob("*.py")) == ["__init__.py", *FILES]
    (where / "lines.py").write_text("# my answer\n", encoding="utf-8")
    (where / "sse.py").unlink()
    my_client.ensure(where)
    assert (where / "lines.py").read_text(encoding="utf-8") == "# my answer\n"
    assert (where / "sse.py").read_text(encoding="utf-8") == (STUBS / "sse.py").read_text()


def test_the_folder_is_the_one_the_environment_names(tmp_path, monkeypatch):
    monkeypatch.setenv(my_client.ENVIRONMENT, str(tmp_path / "elsewhere"))
    assert my_client.folder() == tmp_path / "elsewhere"


@pytest.mark.parametrize("name", STAGES)
def test_every_check_of_a_stage_fails_on_its_stub_and_all_pass_on_the_reference(name, tmp_path):
    spec = STAGES[name]
    stub = spec.build(my_client.load(name, my_client.ensure(tmp_path)))
    for check in spec.checks(stub):
        assert my_client.first_failure([check]) is not None, check[0]
    assert my_client.first_failure(spec.checks(spec.build(my_client.load(name, REFERENCE)))) is None


@pytest.mark.parametrize("name", STAGES)
def test_a_stub_raises_not_implemented_naming_its_function_and_its_file(name):
    text = (STUBS / f"{name}.py").read_text(encoding="utf-8")
    named = re.findall(
        rf'raise NotImplementedError\(\s*"write (\w+) in my_client/{name}.py \(lesson 0\d\)"', text
    )
    assert named and named == re.findall(r"^(?:async )?def (\w+)", text, re.M)


def test_stage_uses_the_learners_file_when_it_passes_and_the_librarys_otherwise(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines"])
    assert my_client.stage("lines", where).mine
    assert capsys.readouterr().out == "lines: yours, my_client/lines.py (its 11 checks pass)\n"
    sse = my_client.stage("sse", where)
    assert not sse.mine and sse.run(["data: a", ""])[0].data == "a"  # the library's works
    assert capsys.readouterr().out == (
        "sse: the library's, for now: write feed_line in my_client/sse.py (lesson 01)\n"
    )


def test_a_feed_that_resets_its_cr_flag_on_an_empty_chunk_is_not_used(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines"])
    text = (where / "lines.py").read_text(encoding="utf-8")
    wrong = text.replace(
        "    if chunk:  # an empty chunk changes nothing, not even after_cr\n        self.after_cr",
        "    if True:\n        self.after_cr",
    )
    assert wrong != text
    (where / "lines.py").write_text(wrong, encoding="utf-8")
    assert not my_client.stage("lines", where).mine
    assert "fails 'an empty chunk changes nothing'" in capsys.readouterr().out


def test_a_feed_that_keeps_its_cr_flag_after_the_lf_it_skipped_is_not_used(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines"])
    text = (where / "lines.py").read_text(encoding="utf-8")
    wrong = text.replace("    if chunk:  # an empty", "    if chunk[skip:]:  # an empty")
    assert wrong != text  # [b"a\r", b"\n", b"\n"]: the second LF is skipped too
    (where / "lines.py").write_text(wrong, encoding="utf-8")
    assert not my_client.stage("lines", where).mine
    assert "fails 'only one LF is skipped'" in capsys.readouterr().out


def test_a_cell_is_saved_as_its_file_unless_it_has_more_functions_still_to_write(tmp_path):
    where = my_client.ensure(tmp_path / "my_client")
    answer = (REFERENCE / "lines.py").read_text(encoding="utf-8")
    said, code = my_client.save_cell("lines.py", answer, where)
    assert said == "my_client/lines.py saved" and code == answer
    assert (where / "lines.py").read_text(encoding="utf-8") == answer
    stub = (STUBS / "lines.py").read_text(encoding="utf-8")
    said, code = my_client.save_cell("lines.py", stub, where)  # the lesson run again, unfilled
    assert said.startswith("my_client/lines.py kept") and code == answer
    assert (where / "lines.py").read_text(encoding="utf-8") == answer
    with pytest.raises(ValueError):
        my_client.save_cell("../outside.py", answer, where)


def test_the_library_passes_most_fixtures_and_those_are_the_ones_the_chain_runs():
    passed = chain.passed_by_the_library()
    assert len(passed) >= 20 and "fixture" in passed and "truncated" not in passed


def run_command(capsys, *arguments):
    status = main(["my-client", *arguments])
    return status, capsys.readouterr().out


def test_with_the_stubs_no_fixture_matches_and_the_first_function_to_write_is_named(
    tmp_path, capsys
):
    status, out = run_command(capsys, "--dir", str(tmp_path / "my_client"))
    total = len(chain.passed_by_the_library())
    assert status == 1
    stages = "0 of 5 stages pass their lesson's checks"
    assert f"\n0 of {total} fixtures pass every stage at every chunk size; {stages}\n" in out
    # lesson order, not the pipeline's: lesson 01 (sse.py) comes before lesson 02 (lines.py),
    # in every row as in the Next line
    assert out.endswith("Next: write feed_line in my_client/sse.py (lesson 01).\n")
    rows = out.splitlines()[2 : 2 + total]
    assert all(row.endswith("  write feed_line in my_client/sse.py (lesson 01)") for row in rows)
    assert "Traceback" not in out


def test_half_done_the_next_function_to_write_is_the_first_stub_on_the_way(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines", "sse"])
    status, out = run_command(capsys, "--dir", str(where))
    assert status == 1
    assert out.endswith("Next: write feed in my_client/accumulator.py (lesson 03).\n")


def test_the_reference_answers_match_the_sdk_on_every_fixture_at_every_chunk_size(capsys):
    status, out = run_command(capsys, "--reference")
    total = len(chain.passed_by_the_library())
    assert status == 0
    every = f"{total} of {total} fixtures pass every stage at every chunk size"
    assert out.endswith(f"\n{every}; 5 of 5 stages pass their lesson's checks\n")
    assert "✘" not in out


def test_a_wrong_usage_rule_is_named_as_the_first_difference_from_the_sdk(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", STAGES)
    text = (where / "accumulator.py").read_text(encoding="utf-8")
    added = "for key, value in totals.items():\n        usage[key] = usage.get(key, 0) + value"
    text = text.replace(
        'acc.message["usage"].update(totals)', f'usage = acc.message["usage"]\n    {added}'
    )
    (where / "accumulator.py").write_text(text, encoding="utf-8")
    status, out = run_command(capsys, "--dir", str(where))
    row = next(line for line in out.splitlines() if line.startswith("text_only "))
    assert status == 1 and "✘" in row and "message.usage." in row  # added, not overwritten


def test_the_summary_is_the_last_lines_alone_and_exits_1_below_m_as_the_table_does(
    tmp_path, capsys
):
    status, out = run_command(capsys, "--dir", str(tmp_path / "my_client"), "--summary")
    assert status == 1 and out.startswith("0 of ") and "fixture " not in out
    assert out.endswith("Next: write feed_line in my_client/sse.py (lesson 01).\n")
    status, out = run_command(capsys, "--reference", "--summary")
    assert status == 0 and "Next" not in out


def test_make_progress_is_a_report_each_command_runs_whatever_the_one_before_said():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("progress", "progress-zh"):
        recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
        assert recipe is not None, target
        commands = [line.strip() for line in recipe[1].splitlines() if "python" in line]
        assert len(commands) >= 2
        for command in commands:
            assert command.startswith("-") or command.endswith("|| true"), command


def test_a_later_lessons_stage_given_from_the_courses_answers_stands_in_for_its_stub(
    tmp_path, capsys
):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines", "sse", "accumulator"])
    # lesson 03: tool_input and verdict are lesson 04's
    assert chain.run(where, given=["tool_input", "verdict"]) == 0
    assert "tool_input: the course's answer here" in capsys.readouterr().out
    assert chain.run(where) == 1  # without it, the stub of tool_input fails the tool fixtures


def test_a_file_that_does_not_load_fails_every_fixture_by_name_without_a_traceback(
    tmp_path, capsys
):
    where = my_client.ensure(tmp_path / "my_client")
    (where / "sse.py").write_text("def feed_line(decoder, line)\n", encoding="utf-8")
    status, out = run_command(capsys, "--dir", str(where))
    assert status == 1 and "Traceback" not in out
    assert "my_client/sse.py does not load: SyntaxError" in out.splitlines()[2]
    assert out.endswith(
        "Next: my_client/sse.py does not load: SyntaxError: expected ':' (sse.py, line 1).\n"
    )


def test_a_wrong_stage_behind_a_later_stub_is_named_before_the_table(tmp_path, capsys):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines", "sse"])
    text = (where / "lines.py").read_text(encoding="utf-8")
    (where / "lines.py").write_text(text.replace("    if chunk:  # an", "    if True:  # an"))
    status, out = run_command(capsys, "--dir", str(where))
    failed = "lines: my_client/lines.py fails 'an empty chunk changes nothing' (lesson 02's checks)"
    assert status == 1 and out.startswith(failed + "\n")
    # the first thing to do in lesson order: fix lesson 02's stage, then write lesson 03's
    assert out.endswith(f"Next: {failed}.\n")


def test_every_rule_the_message_hides_has_a_fixture_the_chain_runs():
    passed = chain.passed_by_the_library()
    rules = ["crlf_data_lines", "data_spaces", "retry_values", "id_nul", "event_type_reset"]
    assert set(rules) <= set(passed)


def wrong(tmp_path, file, old, new):
    """The reference answers in a folder of their own, `old` replaced by `new` in `file`."""
    where = copy_of(REFERENCE, tmp_path / "my_client", STAGES)
    text = (where / file).read_text(encoding="utf-8")
    assert old in text
    (where / file).write_text(text.replace(old, new), encoding="utf-8")
    return where


def test_an_sse_stage_wrong_only_in_what_the_message_hides_is_named_by_its_events(tmp_path):
    where = wrong(tmp_path, "sse.py", '"\\0" not in value', "True")  # an id with NUL taken
    rows = {row.fixture: row for row in chain.rows(where)}
    assert rows["id_nul"].matches == [False] * 3 and rows["id_nul"].stage == "sse"
    assert rows["id_nul"].difference == (
        "events: event 3's id is '3\\x00' here, '2' in the library's"
    )
    assert all(all(row.matches) for name, row in rows.items() if name != "id_nul")


def test_a_quadratic_feed_gives_the_right_lines_and_is_named_by_its_work(tmp_path, capsys):
    old = "    if end <= skip:"
    new = "    self.pending.decode('utf-8', 'replace')  # all of it, at every chunk\n" + old
    where = wrong(tmp_path, "lines.py", old, new)
    rows = chain.rows(where)
    assert all(row.matches[-1] for row in rows)  # whole: one chunk, decoded once
    assert all(row.matches[:2] == [False, False] for row in rows)
    assert all(row.difference.startswith("lines: ") and "x the work for 4x" in row.difference
               for row in rows)
    assert chain.run(where, summary_only=True) == 1
    out = capsys.readouterr().out
    assert "fails 'linear work: one long line in 16-byte chunks' (lesson 02's checks)" in out


def test_a_lessons_checks_of_the_librarys_stage_print_no_tick_only_that_they_did_not_run(
    tmp_path, capsys
):
    where = copy_of(REFERENCE, tmp_path / "my_client", ["lines"])
    sse, lines = my_client.stage("sse", where), my_client.stage("lines", where)
    capsys.readouterr()
    checks = [("the library passes", lambda: 1, 1)]
    sse.check(checks)
    out = capsys.readouterr().out
    assert "✔" not in out and out.startswith("Not run: sse is the library's for now")
    lines.check(checks)
    assert capsys.readouterr().out == "✔ the library passes\nAll 1 checks pass.\n"


@pytest.mark.parametrize(
    "notebook, call",
    [
        ("01_sse_wire_format", "check_all(sse_checks(events_of(feed_line)))"),
        ("02_chunks_to_lines", "check_all(lines_checks(lines_of(feed)))"),
    ],
)
def test_a_lessons_check_cell_runs_the_very_checks_of_stage_and_my_client(notebook, call):
    for edition in ("notebooks", "notebooks/zh"):
        text = (ROOT / edition / f"{notebook}.ipynb").read_text(encoding="utf-8")
        assert call in text, (edition, notebook)


def test_a_feed_that_reads_retry_with_int_fails_lesson_01s_checks_and_my_client(tmp_path):
    where = wrong(tmp_path, "sse.py", "retry_value(value)", "int(value)")
    spec = STAGES["sse"]
    failed = my_client.first_failure(spec.checks(spec.build(my_client.load("sse", where))))
    assert failed is not None and "retry: only ASCII digits count" in failed
    rows = {row.fixture: row for row in chain.rows(where)}
    assert rows["retry_values"].difference.startswith("events: raised ValueError")
    assert chain.run(where, summary_only=True) == 1


LESSONS = sorted(
    [*(ROOT / "notebooks").glob("0[0-9]_*.ipynb"), *(ROOT / "notebooks").glob("zh/0*.ipynb")]
)


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_each_lessons_my_client_cell_is_the_stub_its_file_starts_from(path):
    """A cell `%%my_client NAME` holds what `my_client/NAME` starts as, code for code (the
    Chinese edition translates docstrings and comments only): a learner who writes in the
    cell gets the same file as one who writes in the stub."""
    from committed import read

    def code(text):
        text = re.sub(r'""".*?"""', "", text, flags=re.S)  # docstrings: translated
        text = re.sub(r"#.*", "", text)  # comments: translated
        text = re.sub(r'"[^"\n]*"', '""', text)  # error messages: translated
        return [line.rstrip() for line in text.splitlines() if line.strip()]

    cells = [cell.source for cell in read(path).cells if cell.source.startswith("%%my_client ")]
    assert cells or path.stem.startswith(("00", "05")), "a lesson with no task of my_client/"
    for cell in cells:
        first, body = cell.split("\n", 1)
        stub = (STUBS / first.split()[1]).read_text(encoding="utf-8")
        assert code(body) == code(stub), f"{path.name}: {first}"


def test_the_clients_error_body_is_read_to_64_kib_as_sent_and_as_decompressed():
    import gzip

    import httpx

    from streaming_lib.lab.api import MAX_ERROR_BYTES, error_body
    from streaming_lib.tools.my_client import given

    def reply(body, **headers):
        return httpx.Response(500, headers=headers, stream=httpx.ByteStream(body))

    big = b'{"error": {"type": "api_error", "message": "' + b"x" * 2**20 + b'"}}'
    assert len(error_body(reply(big))) == MAX_ERROR_BYTES
    bomb = gzip.compress(b" " * 50 * 2**20)  # 50 MiB of spaces in about 50 KiB
    assert len(error_body(reply(bomb, **{"content-encoding": "gzip"}))) <= MAX_ERROR_BYTES
    small = b'{"error": {"type": "overloaded_error", "message": "Overloaded"}}'
    error = given.status_error(reply(small, **{"content-type": "application/json"}))
    assert (error.status_code, error.error_type, error.error_message) == (
        500,
        "overloaded_error",
        "Overloaded",
    )

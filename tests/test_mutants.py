"""Mutants prove the checks bite: each single fault in a reference answer is caught twice.

For every mutant of `tests/mutant_cases/<file>.py` (a wrong answer for `my_client/<file>`),
a copy of the course's reference answers gets that one fault, and then
1. the file's lesson checks (`STAGES[stage].checks`, the very list the lesson's check cell
   and `stage()` run) must fail, and
2. the whole client's judge must fall below M: `my-client` on the fixtures for the stages it
   chains, `my-client --live` for the ones only a socket shows (`JUDGES` below).
Each assertion names what caught the mutant, or what let it through.

A file's mutants come in with its module in `mutant_cases/`; a module not written yet
contributes nothing. A file with mutants needs its line in `JUDGES`, and nothing else here.
"""

from __future__ import annotations

import importlib
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from mutant_cases import Mutant

from streaming_lib.tools import my_client
from streaming_lib.tools.my_client import REFERENCE, STAGES, chain, live

# The files of my_client/, in lesson order; each may have a module of mutants.
FILES = ["sse", "lines", "accumulator", "tool_input", "verdict", "retry", "client", "relay"]


def mutants_of(file: str) -> list[Mutant]:
    """The mutants of `my_client/<file>.py` (none until its module exists)."""
    try:
        module = importlib.import_module(f"mutant_cases.{file}")
    except ModuleNotFoundError as error:
        if error.name != f"mutant_cases.{file}":
            raise  # the module exists and is broken: say so
        return []
    return list(module.MUTANTS)


MUTANTS = [mutant for file in FILES for mutant in mutants_of(file)]


def below_m_on_the_fixtures(where: Path, capsys: pytest.CaptureFixture[str]) -> str | None:
    """`my-client` on the client in `where`: its summary line when it exits 1 with fewer
    than M of M fixtures passing every stage, or fewer than all its stages passing their
    lesson's checks (a rule no fixture shows), what caught the mutant; else None."""
    status = chain.run(where, summary_only=True)
    out = capsys.readouterr().out
    fixtures = re.search(r"(\d+) of (\d+) fixtures", out)
    stages = re.search(r"(\d+) of (\d+) stages pass their lesson's checks", out)
    assert fixtures is not None and stages is not None, out
    short = int(fixtures[1]) < int(fixtures[2]) or int(stages[1]) < int(stages[2])
    if status != 0 and short:
        return out.strip().replace("\n", " / ")
    return None


def below_m_over_a_socket(where: Path, capsys: pytest.CaptureFixture[str]) -> str | None:
    """`my-client --live` on the client in `where` (`live.below_m`): its summary line and
    the scenarios it failed when below M of M, else None."""
    return live.below_m(where)


Judge = Callable[[Path, pytest.CaptureFixture[str]], str | None]

# How the mutants of each file are caught beyond their lesson's checks: the whole client's
# judge, given the mutated client's folder. A file with mutants and no line here fails.
JUDGES: dict[str, Judge] = {
    "sse": below_m_on_the_fixtures,
    "lines": below_m_on_the_fixtures,
    "accumulator": below_m_on_the_fixtures,
    "tool_input": below_m_on_the_fixtures,
    "verdict": below_m_on_the_fixtures,
    "retry": below_m_over_a_socket,
    "client": below_m_over_a_socket,
    "relay": below_m_over_a_socket,
}


def mutated(mutant: Mutant, tmp_path: Path) -> Path:
    """A copy of the reference answers, with `mutant` applied to its file."""
    where = tmp_path / "my_client"
    shutil.copytree(REFERENCE, where)
    my_client.ensure(where)
    target = where / mutant.file
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
    return where


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_a_mutant_is_one_fault_at_one_place_of_a_reference_answer(mutant):
    text = (REFERENCE / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, f"{mutant.name}: `old` must be in {mutant.file} once"
    assert mutant.new != mutant.old
    assert Path(mutant.file).stem in FILES


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_fails_its_lessons_checks_and_the_whole_clients_judge(
    mutant, tmp_path, capsys
):
    stage = Path(mutant.file).stem
    assert stage in JUDGES, f"{mutant.file}: say in JUDGES how my-client catches its mutants"
    where = mutated(mutant, tmp_path)
    spec = STAGES[stage]
    try:
        by_checks = my_client.first_failure(spec.checks(spec.build(my_client.load(stage, where))))
    except Exception as error:  # a mutant that does not even load is caught by anything
        by_checks = f"{type(error).__name__}: {error}"
    by_judge = JUDGES[stage](where, capsys)
    caught = f"{mutant.name}: lesson checks: {by_checks}; judge: {by_judge}"
    assert by_checks is not None, f"not caught by its lesson's checks -- {caught}"
    assert by_judge is not None, f"not caught by the whole client's judge -- {caught}"


def test_at_least_30_mutants_spread_over_every_file_of_my_client():
    assert len(MUTANTS) >= 30
    assert {Path(mutant.file).stem for mutant in MUTANTS} == set(FILES)

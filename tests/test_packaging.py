"""The two ways to install the course agree, and the README's commands exist."""

import doctest
import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest

import streaming_lib

ROOT = Path(__file__).resolve().parent.parent


def requirement_names(requirements):
    return {
        re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower(): r.replace(" ", "") for r in requirements
    }


def environment_pip_list():
    lines = (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    start = lines.index("  - pip:")
    entries = [line.strip()[2:] for line in lines[start + 1 :] if line.strip().startswith("- ")]
    return [e for e in entries if not e.startswith("-e ")]


def test_environment_yml_installs_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert requirement_names(environment_pip_list()) == requirement_names(project["dependencies"])


def test_environment_yml_installs_the_course_package_itself():
    assert (
        "      - -e .[dev]" in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    )


def test_the_readme_shows_the_two_make_commands_and_the_makefile_has_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test"):
        assert f"make {target}" in readme
        assert re.search(rf"^{target}:", makefile, re.M)


def test_ci_calls_the_readmes_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


LIBRARY_MODULES = [
    module.name
    for module in pkgutil.walk_packages(streaming_lib.__path__, "streaming_lib.")
    if not module.name.endswith("__main__")
]


@pytest.mark.parametrize("name", LIBRARY_MODULES)
def test_every_library_module_has_docstring_examples_and_they_all_pass(name):
    results = doctest.testmod(importlib.import_module(name))
    assert results.attempted > 0, f"{name} has no docstring example to run"
    assert results.failed == 0

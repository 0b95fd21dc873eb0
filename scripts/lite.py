"""Lessons 01-04 and the exercises in the browser, with nothing installed: a JupyterLite site.

    python scripts/lite.py          # build build/site/lite/ (make lite)

Open `build/site/lite/lab/index.html?path=notebooks/02_chunks_to_lines.ipynb` from any
static web server (`python -m http.server -d build/site/lite`, then that path). JupyterLab
and its Python kernel run in the reader's browser: the kernel is Pyodide, CPython compiled to
WebAssembly, and every package the lessons import comes with the site, so a lesson opened
there downloads nothing from anywhere else.

What goes in:
- JupyterLab and the kernel: `jupyterlite-core` and `jupyterlite-pyodide-kernel`, and the
  widgets' lab extension (`jupyterlab_widgets`), all three from .venv;
- Pyodide, from its npm package `pyodide` (the interpreter and the standard library only);
- the packages, as wheels listed in Pyodide's lock file (`pyodide-lock.json`), from which the
  kernel loads a package by name: what the kernel itself needs and what the course imports
  (`KERNEL`, `COURSE`), pure-Python wheels and the Pyodide builds of jiter and pydantic-core
  (`pyemscripten` platform tags, PEP 783) from PyPI, at the versions of constraints.txt;
  `streaming_lib` built from the commit, loaded as the kernel starts;
- the notebooks as committed (git HEAD, never a copy holding a learner's answers): lessons
  01-04 and the exercises, both editions, at their paths in the repository.

Two packages have no Pyodide build on PyPI. MarkupSafe (Jinja2's, for the stepper) is built
here without its optional C speedups, as its own setup does where no compiler works. rpds-py,
which jsonschema needs from 4.18 on, is compiled Rust: the browser gets jsonschema 4.17.3,
the last release without it (lesson 04's schema check and exercise 04 use it).

Downloads are kept in build/lite/ (a rebuild reuses them); the site is build/site/lite/,
which nothing else writes. Needs npm and PyPI while it builds, nothing when the site is used.
Not offered: lessons 00 and 05-07, which need sockets, a local server or subprocesses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "lite"  # downloads and staging, kept between builds
SITE = ROOT / "build" / "site" / "lite"

# The Pyodide release jupyterlite-pyodide-kernel 0.8.6 is made for (its PYODIDE_VERSION).
PYODIDE_VERSION = "314.0.6"
# What the kernel loads as it starts (the kernel's worker): micropip, then its own wheels
# (ipykernel, pyodide-kernel, piplite, shipped with it), which need comm, IPython and jedi.
KERNEL = ["micropip", "comm", "ipython", "jedi"]
# What the lessons and the exercises import besides streaming_lib. httpx2's metadata asks for
# its browser transport, httpx2-jsfetch, only on that platform: pip, running here, must be
# told. httpx, starlette and uvicorn are imported, never run, with the learner's client
# (`streaming_lib.tools.my_client`: its lesson-07 stage is a relay on a socket). jsonschema:
# see the module docstring.
COURSE = [
    "anthropic",
    "httpx2",
    "httpx2-jsfetch",
    "jiter",
    "pydantic",
    "ipywidgets",
    "jinja2",
    "jsonschema<4.18",
    "httpx",
    "starlette",
    "uvicorn",
]
# Pins of constraints.txt that do not hold in the browser (jsonschema 4.17.3 needs none of
# these; MarkupSafe is built here at its pinned version).
UNPINNED = {"jsonschema", "jsonschema-specifications", "referencing", "rpds-py", "markupsafe"}
# Required by ipywidgets' metadata, but they are the front end's: the lab extension is in
# the site, and the kernel's own widgetsnbextension stands in for the other.
FRONT_END_ONLY = {"jupyterlab-widgets", "widgetsnbextension"}
COURSE_PACKAGE = "streaming-course"
# The files offered, at their paths in the repository: lessons 01-04 and the exercises, in
# both editions, and the figure lesson 03 shows (in each language).
CONTENTS = [
    "notebooks/0[1-4]_*.ipynb",
    "notebooks/zh/0[1-4]_*.ipynb",
    "notebooks/event_states*.svg",
    "exercises/[0-9][0-9]_*.ipynb",
    "exercises/zh/[0-9][0-9]_*.ipynb",
]
# The learner's own client: one folder for both editions, at the root, as in a clone.
MY_CLIENT = "/drive/my_client"


def run(command: list[str], **options: Any) -> None:
    print("$", " ".join(str(part) for part in command), flush=True)
    subprocess.run(command, check=True, **options)


# -- the commit: what is published -----------------------------------------------------

BUILT_FROM = "commit.txt"  # in the site: the commit it shows ("working tree" without git)


def head_commit() -> str | None:
    """git HEAD's commit id, or None where there is no git history."""
    shown = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return shown.stdout.strip() if shown.returncode == 0 else None


def built_from(site: Path = SITE) -> str | None:
    """The commit the site in `site` shows, or None where no site was built."""
    stamp = site / BUILT_FROM
    return stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else None


def export_commit(commit: str | None, target: Path) -> Path:
    """The files of `commit`, written into `target` (a fresh folder); the working tree
    itself where there is no git history (commit None: a downloaded archive)."""
    if commit is None:
        print("no git history here: the site is built from the working tree")
        return ROOT
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryFile() as tar_file:
        tar_file.write(archive)
        tar_file.seek(0)
        with tarfile.open(fileobj=tar_file) as tar:
            tar.extractall(target, filter="data")
    return target


def stage_contents(source: Path, target: Path) -> list[Path]:
    """Copy the files offered (CONTENTS) from `source` into `target`, at the same relative
    paths; returns the files copied."""
    shutil.rmtree(target, ignore_errors=True)
    copied = []
    for pattern in CONTENTS:
        for path in sorted(source.glob(pattern)):
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
            copied.append(destination)
    return copied


# -- Pyodide and the wheels -------------------------------------------------------------


def fetch_pyodide(cache: Path) -> Path:
    """The npm package `pyodide` at PYODIDE_VERSION, unpacked into `cache` (once)."""
    unpacked = cache / f"pyodide-{PYODIDE_VERSION}"
    if not (unpacked / "pyodide-lock.json").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            run(["npm", "pack", "--silent", f"pyodide@{PYODIDE_VERSION}"], cwd=scratch)
            with tarfile.open(Path(scratch) / f"pyodide-{PYODIDE_VERSION}.tgz") as archive:
                archive.extractall(scratch, filter="data")
            shutil.rmtree(unpacked, ignore_errors=True)
            shutil.move(Path(scratch) / "package", unpacked)  # npm packs into package/
    return unpacked


def browser_environment(lock_info: dict[str, str]) -> dict[str, str]:
    """PEP 508 marker values inside Pyodide (its lock file's `info`: python, arch)."""
    python = lock_info["python"]
    environment = {key: str(value) for key, value in default_environment().items()}
    environment.update(
        sys_platform="emscripten",
        platform_system="Emscripten",
        platform_machine=lock_info["arch"],
        os_name="posix",
        implementation_name="cpython",
        platform_python_implementation="CPython",
        implementation_version=python,
        python_full_version=python,
        python_version=".".join(python.split(".")[:2]),
        platform_release="",
        platform_version="",
    )
    return environment


def pinned(constraints: Path) -> list[str]:
    """The pins (`name==version`) of a constraints file."""
    lines = constraints.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def fetch_wheels(target: Path, lock_info: dict[str, str]) -> list[Path]:
    """Every wheel of KERNEL and COURSE and of what they need in the browser, for Pyodide's
    platform, in `target`; skipped when `target` holds what the same request gave before.

    pip cannot resolve for another platform: it reads the markers of requirements (`;
    sys_platform != "emscripten"`) as they hold here. So this walks the requirements itself,
    level by level, with the browser's marker values, and has pip fetch each wheel alone
    (`--no-deps`) at its pin in constraints.txt (the newest that fits, where none). Then
    every requirement is checked against the versions fetched.
    """
    constraints = [
        line
        for line in pinned(ROOT / "constraints.txt")
        if canonicalize_name(line.split("==")[0]) not in UNPINNED
    ]
    python = "".join(lock_info["python"].split(".")[:2])  # "314"
    platform = f"pyemscripten_{lock_info['abi_version']}_{lock_info['arch']}"
    request = json.dumps([KERNEL, COURSE, constraints, platform, python], indent=1)
    stamp = target / "request.json"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == request:
        return sorted(target.glob("*.whl"))
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    pins = target / "constraints.txt"
    pins.write_text("\n".join(constraints) + "\n", encoding="utf-8")
    markupsafe = next(
        line
        for line in pinned(ROOT / "constraints.txt")
        if canonicalize_name(line.split("==")[0]) == "markupsafe"
    )
    # MarkupSafe without its C speedups: its setup falls back to pure Python when the
    # compiler fails, and CC=false is a compiler that always fails.
    run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-binary",
         "markupsafe", "--wheel-dir", str(target), markupsafe],
        env={**os.environ, "CC": "false"},
    )  # fmt: skip
    environment = browser_environment(lock_info)
    wanted = [Requirement(spec) for spec in KERNEL + COURSE]
    fetched: set[str] = {canonicalize_name(wheel_metadata(w)[0]) for w in target.glob("*.whl")}
    while wanted:
        level: dict[str, SpecifierSet] = {}
        for requirement in wanted:
            name = canonicalize_name(requirement.name)
            if name not in fetched and name not in FRONT_END_ONLY:
                level[name] = level.get(name, SpecifierSet()) & requirement.specifier
        before = set(target.glob("*.whl"))
        if level:
            run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--dest", str(target), "--only-binary", ":all:", "--platform", platform,
                 "--python-version", python, "--implementation", "cp", "--abi", f"cp{python}",
                 "--constraint", str(pins), *(f"{name}{spec}" for name, spec in level.items())]
            )  # fmt: skip
        fetched |= set(level)
        wanted = [
            requirement
            for wheel in set(target.glob("*.whl")) - before
            for requirement in in_browser(wheel_metadata(wheel)[2], environment)
        ]
    wheels = sorted(target.glob("*.whl"))
    check_versions(wheels, environment)
    stamp.write_text(request, encoding="utf-8")
    return wheels


def in_browser(requirements: list[Requirement], environment: dict[str, str]) -> list[Requirement]:
    """The requirements (without extras asked for) whose markers hold in the browser."""
    return [
        requirement
        for requirement in requirements
        if requirement.marker is None or requirement.marker.evaluate({**environment, "extra": ""})
    ]


def check_versions(wheels: list[Path], environment: dict[str, str]) -> None:
    """Raise SystemExit naming every requirement of `wheels` (in the browser) that no wheel
    meets: missing, or at a version outside its specifier."""
    metadata = [wheel_metadata(wheel) for wheel in wheels]
    versions = {canonicalize_name(name): version for name, version, *_ in metadata}
    unmet = []
    for name, version, requirements, _ in metadata:
        for requirement in in_browser(requirements, environment):
            have = versions.get(canonicalize_name(requirement.name))
            if canonicalize_name(requirement.name) in FRONT_END_ONLY:
                continue
            if have is None or not requirement.specifier.contains(have, prereleases=True):
                unmet.append(f"{name} {version} needs {requirement}; fetched: {have or 'none'}")
    if unmet:
        raise SystemExit("the wheels fetched do not fit together:\n" + "\n".join(unmet))


def build_course_wheel(source: Path, target: Path) -> Path:
    """streaming_lib as a wheel (its fixtures inside), built from `source` into `target`."""
    shutil.rmtree(target, ignore_errors=True)
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
         str(target), str(source)])  # fmt: skip
    return next(target.glob("*.whl"))


def wheel_metadata(wheel: Path) -> tuple[str, str, list[Requirement], list[str]]:
    """A wheel's (name, version, requirements, top-level import names)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = BytesParser().parsebytes(archive.read(info))
    imports = sorted(
        {
            name.split("/")[0].removesuffix(".py")
            for name in names
            if ("/" in name or name.endswith(".py"))
            and not name.split("/")[0].endswith((".dist-info", ".data"))
        }
    )
    requirements = [Requirement(text) for text in metadata.get_all("Requires-Dist") or []]
    return metadata["Name"], metadata["Version"], requirements, imports


def lock_file(wheels: list[Path], course_wheel: Path, lock_info: dict[str, str]) -> dict[str, Any]:
    """Pyodide's lock file for exactly these wheels: each package with its file, checksum,
    import names and the packages it needs in the browser (Pyodide loads those first)."""
    environment = browser_environment(lock_info)
    packages = {}
    for wheel in [*wheels, course_wheel]:
        name, version, requirements, imports = wheel_metadata(wheel)
        if wheel == course_wheel:  # its metadata lists the whole local course (JupyterLab...)
            requirements = [Requirement(spec) for spec in COURSE]
        depends = {canonicalize_name(r.name) for r in in_browser(requirements, environment)}
        packages[canonicalize_name(name)] = {
            "name": name,
            "version": version,
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            "package_type": "package",
            "imports": imports,
            "depends": sorted(depends - FRONT_END_ONLY),
            "unvendored_tests": False,
        }
    return {"info": lock_info, "packages": dict(sorted(packages.items()))}


def assemble_pyodide(npm_package: Path, wheels: list[Path], lock: dict[str, Any]) -> Path:
    """A Pyodide distribution, as `jupyter lite build --pyodide` takes a folder: the npm
    package's runtime files, the wheels and their lock file, in WORK/pyodide/pyodide/."""
    distribution = WORK / "pyodide"
    files = distribution / "pyodide"
    shutil.rmtree(distribution, ignore_errors=True)
    files.mkdir(parents=True)
    for path in npm_package.iterdir():
        if path.suffix not in {".map", ".ts", ".html", ".md"} and path.name != "pyodide-lock.json":
            shutil.copy2(path, files / path.name)
    for wheel in wheels:
        shutil.copy2(wheel, files / wheel.name)
    (files / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    return distribution


# -- the site ---------------------------------------------------------------------------


def lite_config(target: Path) -> Path:
    """The folder of `jupyter-lite.json`: the kernel preloads the course (so that a lesson's
    first cell, which starts with IPython magics Pyodide does not read for imports, finds
    it), and the learner's client lives in one folder at the root of the browser's files."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    kernel = {
        "loadPyodideOptions": {
            "packages": [COURSE_PACKAGE],
            "env": {"HOME": "/home/pyodide", "STREAMING_COURSE_MY_CLIENT": MY_CLIENT},
        }
    }
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Streaming course",
            "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": kernel},
        },
    }
    (target / "jupyter-lite.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return target


def build(site: Path = SITE) -> Path:
    """Build the site into `site`; returns it."""
    commit = head_commit()
    source = export_commit(commit, WORK / "commit")
    contents = WORK / "contents"
    notebooks = stage_contents(source, contents)
    npm_package = fetch_pyodide(WORK / "npm")
    lock_info = json.loads((npm_package / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
    wheels = fetch_wheels(WORK / "wheels", lock_info)
    course_wheel = build_course_wheel(source, WORK / "course")
    lock = lock_file(wheels, course_wheel, lock_info)
    distribution = assemble_pyodide(npm_package, [*wheels, course_wheel], lock)
    config = lite_config(WORK / "config")
    shutil.rmtree(site, ignore_errors=True)
    run(
        [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(config),
         "--contents", str(contents), "--output-dir", str(site), "--pyodide", str(distribution),
         "--no-sourcemaps", "--LiteBuildConfig.cache_dir", str(WORK / "cache")],
        cwd=config,  # where doit keeps its record of what is built: new each time, as the site
    )  # fmt: skip
    (site / BUILT_FROM).write_text(f"{commit or 'working tree'}\n", encoding="utf-8")
    print(f"{len(notebooks)} files and {len(lock['packages'])} packages in {site}")
    return site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SITE, help="where to build the site")
    args = parser.parse_args(argv)
    build(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

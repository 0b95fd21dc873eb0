"""The README's two commands without `make` (Windows, or any machine without it).

    python scripts/course.py lab        # set up .venv on first use, then open the course
    python scripts/course.py lab --zh   # the same, opening the Chinese edition (中文版)
    python scripts/course.py lab --port 8890 --no-browser   # on a remote machine
    python scripts/course.py test       # set up .venv on first use, then run every test
    python scripts/course.py settings   # write JupyterLab's settings for this environment

It does what the Makefile does, with the standard library only: a virtual
environment in `.venv/` with the exact versions of `constraints.txt`, then
JupyterLab or pytest from it. `settings` is run by the set-up (and by Binder's
postBuild): it turns off JupyterLab's news and update pop-ups, which would cover
the first notebook, for the environment that runs it (its `overrides.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLDEST_PYTHON = (3, 11)  # pyproject.toml's requires-python
VENV = ROOT / ".venv"
FIRST_NOTEBOOK = "notebooks/00_start_here.ipynb"
FIRST_NOTEBOOK_ZH = "notebooks/zh/00_start_here.ipynb"  # the Chinese edition's (`lab --zh`)
# JupyterLab reads overrides.json from <environment>/share/jupyter/lab/settings.
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}


def venv_python() -> Path:
    """The interpreter of .venv: bin/python, or Scripts\\python.exe on Windows."""
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def run(*command: str | Path) -> None:
    """Run a command from the repository root; stop with its exit status if it fails."""
    status = subprocess.call([str(part) for part in command], cwd=ROOT)
    if status != 0:
        sys.exit(status)


def python_too_old(version: tuple[int, ...] = sys.version_info[:3]) -> str | None:
    """The one sentence to stop with when `version` is older than the course needs, else None.

    >>> print(python_too_old((3, 9, 18)))  # doctest: +ELLIPSIS
    The course needs Python 3.11 or newer, and this is Python 3.9.18: run this script with a ...
    >>> python_too_old((3, 12, 1)) is None
    True
    """
    if tuple(version[:2]) >= OLDEST_PYTHON:
        return None
    have = ".".join(str(part) for part in version[:3])
    return (
        f"The course needs Python {OLDEST_PYTHON[0]}.{OLDEST_PYTHON[1]} or newer, and this is "
        f"Python {have}: run this script with a newer python."
    )


def setup() -> Path:
    """Create .venv and install the course into it, once (as `make` does); its python.
    Stops with one sentence, before pip, if this Python is older than 3.11."""
    python = venv_python()
    marker = VENV / ".installed"
    inputs = [ROOT / "pyproject.toml", ROOT / "constraints.txt"]
    if marker.exists() and all(marker.stat().st_mtime >= p.stat().st_mtime for p in inputs):
        return python
    if (too_old := python_too_old()) is not None:
        sys.exit(too_old)
    print("Setting up .venv: JupyterLab, the anthropic, openai, google-genai and Bedrock SDKs")
    print("and about 145 other packages,")
    print("at the versions in constraints.txt. Once only; a few minutes.", flush=True)
    venv.create(VENV, with_pip=True)
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    # providers: the other wires' SDKs (the bonus lesson's referees); site: the website's Sphinx
    extras = ".[dev,providers,site]"
    run(python, "-m", "pip", "install", "--quiet", "-c", "constraints.txt", "-e", extras)
    run(python, "scripts/course.py", "settings")
    marker.touch()
    return python


def write_settings(prefix: Path) -> Path:
    """Write JupyterLab's overrides.json under the environment `prefix`; its path."""
    path = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    current.update(LAB_OVERRIDES)  # keep whatever else is set there
    path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
    return path


# JupyterLite's packages (for `make lite`) bring a JupyterLab extension meant for the
# in-browser lab only; in the course's own JupyterLab it cannot load and logs an error.
LITE_ONLY_EXTENSIONS = ("@jupyterlite/pyodide-kernel-extension",)


def disable_lite_extensions() -> None:
    """Disable the lite-only extensions in this environment's JupyterLab, with JupyterLab's
    own `jupyter labextension disable --level=sys_prefix`."""
    for name in LITE_ONLY_EXTENSIONS:
        subprocess.run(
            [sys.executable, "-m", "jupyter", "labextension", "disable", "--level=sys_prefix"]
            + [name],
            check=True,
            capture_output=True,
        )


def lab_command(
    python: Path, first: str = FIRST_NOTEBOOK, *, port: int | None = None, browser: bool = True
) -> list[str]:
    """JupyterLab serving the whole repository, opening `first` (root may run it), on
    `port` (None: JupyterLab's own choice), opening a browser unless `browser` is False."""
    command = [str(python), "-m", "jupyterlab", "--ServerApp.root_dir=."]
    command.append(f"--LabApp.default_url=/lab/tree/{first}")
    if port is not None:
        command.append(f"--ServerApp.port={port}")
    if not browser:
        command.append("--ServerApp.open_browser=False")
    if hasattr(os, "getuid") and os.getuid() == 0:  # as in a container
        command.append("--allow-root")
    return command


def test_commands(python: Path) -> list[list[str]]:
    """The README's test command: the tests, then every stored notebook output compared."""
    return [
        [str(python), "-m", "pytest", "tests"],
        [
            str(python),
            "-m",
            "pytest",
            "--nbval",
            "notebooks",
            "solutions",
            "--nbval-sanitize-with",
            "notebooks/sanitize.cfg",
        ],
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["lab", "test", "settings"])
    parser.add_argument(
        "--zh", action="store_true", help="lab: open the Chinese edition (notebooks/zh/)"
    )
    parser.add_argument("--port", type=int, help="lab: the port JupyterLab listens on")
    parser.add_argument(
        "--no-browser", action="store_true", help="lab: open no browser (a remote machine)"
    )
    args = parser.parse_args(argv)
    if args.command == "settings":
        print(f"wrote {write_settings(Path(sys.prefix)).relative_to(sys.prefix)}")
        disable_lite_extensions()
        return
    python = setup()
    if args.command == "lab":
        first = FIRST_NOTEBOOK_ZH if args.zh else FIRST_NOTEBOOK
        run(*lab_command(python, first, port=args.port, browser=not args.no_browser))
    else:  # both stages, even when the first fails; then the status of the first that failed
        statuses = [
            subprocess.call([str(part) for part in command], cwd=ROOT)
            for command in test_commands(python)
        ]
        sys.exit(next((status for status in statuses if status), 0))


if __name__ == "__main__":
    main()

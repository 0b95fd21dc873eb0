"""`python -m streaming_lib class-link`: the link that brings the course into every learner's
home on a JupyterHub.

The link is nbgitpuller's (its documentation: "link.html" and "topic/url-options"):

    HUB/hub/user-redirect/git-pull?repo=...&branch=...&targetpath=...&urlpath=...

JupyterHub's `user-redirect` sends each learner to their own server; there nbgitpuller clones
the course into the folder `targetpath` names (the repository's name: `streaming-course` for
`.../streaming-course.git`, where nbgitpuller's own default would keep the `.git`) or, when it
is there already, fetches and merges it by its own rules (a file the learner changed is kept
as theirs, a file they deleted comes back, a new file of theirs stays), then opens `urlpath`:
the lesson, in JupyterLab.

    python -m streaming_lib class-link --hub https://hub.example.edu
    python -m streaming_lib class-link --hub https://hub.example.edu --lesson 02 --lang zh

The repository is `--repo`, or else the clone's own `origin` remote; the branch is `--branch`
or, when not given, the one nbgitpuller picks (the remote's default). Nothing is sent
anywhere: the command prints the link.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from ..language import _

ROOT = Path(__file__).resolve().parents[2]  # the course's clone (an editable install)
LESSON_NUMBER = re.compile(r"^\d\d$")


class NoOrigin(LookupError):
    """The clone has no `origin` remote (or is no git clone), and no `--repo` was given."""


class BadLink(ValueError):
    """A part of the link is not usable: the hub's URL, the repository's, or the lesson."""


def origin(where: Path = ROOT) -> str:
    """The URL of the `origin` remote of the git clone at `where` (str).

    Raises NoOrigin, saying where, if `where` is no clone or has no `origin`."""
    try:
        done = subprocess.run(
            ["git", "-C", str(where), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:  # no git at all
        raise NoOrigin(
            _("cannot ask git for the origin of {path}: {why}", path=str(where), why=str(error))
        ) from None
    url = done.stdout.strip()
    if done.returncode != 0 or not url:
        raise NoOrigin(
            _(
                "{path} has no git remote named origin: pass the course's repository "
                "with --repo URL",
                path=str(where),
            )
        )
    return url


def folder_name(repo: str) -> str:
    """The folder nbgitpuller clones `repo` into, in each home: the URL's last part, without
    `.git` ("https://host/org/streaming-course.git" -> "streaming-course").

    >>> folder_name("https://example.org/org/streaming-course.git/")
    'streaming-course'
    >>> folder_name("git@example.org:org/course")
    'course'
    """
    last = re.split(r"[/:]", repo.rstrip("/"))[-1]
    return last[: -len(".git")] if last.endswith(".git") else last


def lesson_path(lesson: str, lang: str = "en", root: Path = ROOT) -> str:
    """The lesson `lesson` ("02") as a path inside the course ("notebooks/02_chunks_to_lines.
    ipynb"; with lang "zh", "notebooks/zh/02_chunks_to_lines.ipynb").

    Raises BadLink when `lesson` is not two digits or no lesson has that number."""
    if not LESSON_NUMBER.match(lesson):
        raise BadLink(_("--lesson {lesson}: give a lesson's two digits, such as 02", lesson=lesson))
    folder = Path("notebooks") if lang == "en" else Path("notebooks") / lang
    found = sorted((root / folder).glob(f"{lesson}_*.ipynb"))
    if not found:
        raise BadLink(
            _("--lesson {lesson}: no such lesson in {path}", lesson=lesson, path=str(folder))
        )
    return (folder / found[0].name).as_posix()


def class_link(
    hub: str,
    repo: str | None = None,
    branch: str | None = None,
    lesson: str = "00",
    lang: str = "en",
    root: Path = ROOT,
) -> str:
    """The nbgitpuller link (str) that pulls the course `repo` (None: `origin(root)`) at
    `branch` (None: nbgitpuller's default) into each learner's home on the JupyterHub at
    `hub` (its public URL, with any base URL, such as "https://hub.example.edu/course"),
    then opens lesson `lesson` ("00" to "07") of edition `lang` in JupyterLab.

    Raises BadLink for a hub URL that is not http(s) with a host, an empty repository or
    an unknown lesson, NoOrigin when `repo` is None and the clone has no origin.
    """
    parts = urlsplit(hub)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadLink(
            _("--hub {url}: give the hub's address, such as https://hub.example.edu", url=hub)
        )
    path = lesson_path(lesson, lang, root)  # before asking git: a wrong lesson says so first
    repo = origin(root) if repo is None else repo
    if not folder_name(repo):
        raise BadLink(_("--repo {url}: give the course's git repository", url=repo))
    query = {"repo": repo}
    if branch:
        query["branch"] = branch
    query["targetpath"] = folder_name(repo)
    query["urlpath"] = f"lab/tree/{folder_name(repo)}/{path}"
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"

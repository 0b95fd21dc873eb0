"""The class's hub configurations: Zero to JupyterHub's values checked against the chart's own
values schema (classroom/z2jh/values.schema.json, chart 4.4.0, merged with the chart's
defaults as Helm merges them), and the one-machine jupyterhub_config.py as JupyterHub reads
it: its culler, its limits, its single-user command.
"""

import copy
import json
import os
import pwd
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml
from traitlets.config.loader import PyFileConfigLoader

from streaming_lib.tools.classroom import class_link

ROOT = Path(__file__).resolve().parents[1]
Z2JH = ROOT / "classroom" / "z2jh"


def merged(defaults, given):
    """`given` over `defaults` as Helm merges values: maps key by key, anything else replaced,
    a null removing the default's key."""
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@pytest.fixture(scope="module")
def chart():
    schema = json.loads((Z2JH / "values.schema.json").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((Z2JH / "chart-values-4.4.0.yaml").read_text(encoding="utf-8"))
    ours = yaml.safe_load((Z2JH / "values.yaml").read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema), defaults, ours


def test_the_values_pass_the_charts_schema_with_the_charts_defaults(chart):
    validator, defaults, ours = chart
    assert not list(validator.iter_errors(defaults))  # the chart's own defaults pass
    errors = [error.message for error in validator.iter_errors(merged(defaults, ours))]
    assert errors == []


@pytest.mark.parametrize(
    "mistake",
    [
        {"singleuser": {"memroy": {"limit": "1G"}}},  # a misspelt key
        {"cull": {"timeout": "an hour"}},  # a wrong type
        {"singleuser": {"cpu": {"limit": [1]}}},
    ],
)
def test_a_mistake_in_the_values_fails_the_schema(chart, mistake):
    validator, defaults, ours = chart
    assert list(validator.iter_errors(merged(defaults, merged(ours, mistake))))


def test_the_values_limit_each_learner_cull_idle_servers_and_open_lesson_00_pulled(chart):
    _, _, ours = chart
    single = ours["singleuser"]
    assert single["memory"]["limit"] and single["cpu"]["limit"]
    assert ours["cull"]["enabled"] is True and ours["cull"]["timeout"] > 0
    repo = "https://git.example.edu/course/streaming-course.git"
    link = urlsplit(class_link("https://hub.example.edu", repo=repo))
    # The learner's server's own nbgitpuller path: what user-redirect sends each one to.
    assert single["defaultUrl"] == f"/git-pull?{link.query}"


def test_the_image_is_built_from_binder_with_the_course_environment():
    steps = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "pip install" in steps
    environment = yaml.safe_load((ROOT / "binder" / "environment.yml").read_text(encoding="utf-8"))
    assert environment["dependencies"]


def load_config(tmp_path, monkeypatch, **env):
    monkeypatch.setenv("COURSE_HUB_STATE", str(tmp_path / "state"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader("jupyterhub_config.py", str(ROOT / "classroom")).load_config()


def test_the_one_machine_hub_limits_each_learner_and_runs_the_idle_culler(tmp_path, monkeypatch):
    config = load_config(tmp_path, monkeypatch, COURSE_MEM_LIMIT="768M")
    assert config.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"
    assert config.JupyterHub.authenticator_class == "pam"
    assert config.Spawner.mem_limit == "768M" and config.Spawner.cpu_limit == 1.0
    [culler] = config.JupyterHub.services
    assert culler["command"][:3] == [sys.executable, "-m", "jupyterhub_idle_culler"]
    assert "--timeout=3600" in culler["command"]
    [role] = config.JupyterHub.load_roles
    assert role["services"] == ["idle-culler"] and "delete:servers" in role["scopes"]
    # The single-user server is the course environment's own.
    assert config.Spawner.cmd == [str(Path(sys.prefix) / "bin" / "jupyterhub-singleuser")]
    assert (tmp_path / "state").is_dir()


def test_a_rehearsal_hub_takes_any_name_and_runs_local_processes(tmp_path, monkeypatch):
    config = load_config(
        tmp_path,
        monkeypatch,
        COURSE_HUB_AUTH="dummy",
        COURSE_HUB_SPAWNER="local",
        COURSE_HUB_ADMINS="teacher, ta",
    )
    assert config.JupyterHub.authenticator_class == "dummy"
    assert config.JupyterHub.spawner_class == "jupyterhub.spawner.SimpleLocalProcessSpawner"
    template = config.SimpleLocalProcessSpawner.home_dir_template
    assert template == "/tmp/course-homes/{username}"
    spawner = type("Spawner", (), {"home_dir": "/tmp/course-homes/ada"})()
    where = config.Spawner.environment["STREAMING_COURSE_MY_CLIENT"](spawner)
    assert where == "/tmp/course-homes/ada/streaming-course/my_client"
    assert config.Authenticator.admin_users == {"teacher", "ta"}


def test_the_hub_pieces_the_config_names_are_installed_with_the_classroom_extra():
    pytest.importorskip("jupyterhub", reason="the extra classroom is not installed")
    import importlib.util

    for module in ("jupyterhub_idle_culler", "systemdspawner", "nbgitpuller"):
        assert importlib.util.find_spec(module), module


def test_the_tljh_snippet_gives_each_learner_their_own_my_client():
    config = PyFileConfigLoader(
        "streaming_course.py", str(ROOT / "classroom" / "tljh")
    ).load_config()
    me = pwd.getpwuid(os.getuid())
    spawner = type("Spawner", (), {"user": type("User", (), {"name": me.pw_name})()})()
    where = config.Spawner.environment["STREAMING_COURSE_MY_CLIENT"](spawner)
    assert where == str(Path(me.pw_dir) / "streaming-course" / "my_client")


def test_the_link_pulls_the_course_where_every_hub_config_puts_my_client(tmp_path, monkeypatch):
    # A learner's my_client/ belongs in their copy of the course: the folder class-link
    # names (targetpath) is the folder each configuration puts my_client/ in.
    def pulled_into(**options):
        link = class_link("https://h", repo="https://x/any-name.git", **options)
        return parse_qs(urlsplit(link).query)["targetpath"][0]

    monkeypatch.delenv("COURSE_FOLDER", raising=False)
    spawner = type("Spawner", (), {"home_dir": "/home/ada"})()
    for env, options in [({}, {}), ({"COURSE_FOLDER": "sse"}, {"folder": "sse"})]:
        config = load_config(tmp_path, monkeypatch, COURSE_HUB_SPAWNER="local", **env)
        where = config.Spawner.environment["STREAMING_COURSE_MY_CLIENT"](spawner)
        assert where == f"/home/ada/{pulled_into(**options)}/my_client"
    tljh = PyFileConfigLoader("streaming_course.py", str(ROOT / "classroom" / "tljh")).load_config()
    me = pwd.getpwuid(os.getuid())
    spawner = type("Spawner", (), {"user": type("User", (), {"name": me.pw_name})()})()
    where = tljh.Spawner.environment["STREAMING_COURSE_MY_CLIENT"](spawner)
    assert where == str(Path(me.pw_dir) / pulled_into() / "my_client")
    values = yaml.safe_load((ROOT / "classroom" / "z2jh" / "values.yaml").read_text("utf-8"))
    mine = values["singleuser"]["extraEnv"]["STREAMING_COURSE_MY_CLIENT"]
    assert mine == f"/home/jovyan/{pulled_into()}/my_client"

# JupyterHub for a class on one machine: every learner gets a JupyterLab server of their own,
# running the course's environment, in their own home; nbgitpuller (the link class-link
# prints) brings the course into each home, and jupyterhub-idle-culler stops idle servers.
#
#     pip install -c constraints.txt -e '.[classroom]'   # JupyterHub, nbgitpuller, the culler
#     npm install -g configurable-http-proxy             # JupyterHub's proxy
#     jupyterhub -f classroom/jupyterhub_config.py
#
# Adapt it with the environment variables below (or edit the values here): the defaults suit
# a machine whose learners have accounts on it (PAM) and systemd to hold each server to its
# memory and CPU. TEACHING.md ("Run it for a class") says how to size the machine.
#
#   COURSE_HUB_STATE       folder for the hub's database and cookie secret
#                          (default: /srv/streaming-course-hub)
#   COURSE_HUB_IP, COURSE_HUB_PORT   where the hub listens (default: every address, 8000)
#   COURSE_HUB_AUTH        pam (accounts of this machine, the default), or dummy (any name,
#                          the password COURSE_HUB_PASSWORD: a rehearsal, never a class)
#   COURSE_HUB_ADMINS      the teachers' user names, comma-separated (admin page, REST API)
#   COURSE_HUB_SPAWNER     systemd (the default: limits enforced, jupyterhub-systemdspawner),
#                          or local (processes of the hub's own user, each learner's home
#                          COURSE_HUB_HOMES/NAME, default /tmp/course-homes: a rehearsal; the
#                          limits below are then not enforced)
#   COURSE_FOLDER          the course's folder in each home, where each learner's my_client/
#                          goes: the same as `class-link --folder` (default: streaming-course)
#   COURSE_MEM_LIMIT       memory of one learner's server and kernels (default: 1G)
#   COURSE_CPU_LIMIT       CPUs of one learner (default: 1)
#   COURSE_CULL_TIMEOUT    seconds idle before a server is stopped (default: 3600)
#   COURSE_PROXY           the configurable-http-proxy command (default: found on PATH)
import os
import pwd
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub defines it when it reads this file)

STATE = Path(os.environ.get("COURSE_HUB_STATE", "/srv/streaming-course-hub"))
STATE.mkdir(parents=True, exist_ok=True, mode=0o700)

c.JupyterHub.ip = os.environ.get("COURSE_HUB_IP", "")
c.JupyterHub.port = int(os.environ.get("COURSE_HUB_PORT", "8000"))
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
PROXY = "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [os.environ.get("COURSE_PROXY") or shutil.which(PROXY) or PROXY]

# Who may log in. PAM: the machine's accounts; the teachers add learners on the admin page
# (or with the REST API), and only those get in.
if os.environ.get("COURSE_HUB_AUTH", "pam") == "dummy":
    c.JupyterHub.authenticator_class = "dummy"
    if os.environ.get("COURSE_HUB_PASSWORD"):
        c.DummyAuthenticator.password = os.environ["COURSE_HUB_PASSWORD"]
    c.Authenticator.allow_all = True
else:
    c.JupyterHub.authenticator_class = "pam"
    c.Authenticator.allow_existing_users = True
c.Authenticator.admin_users = {
    name.strip() for name in os.environ.get("COURSE_HUB_ADMINS", "").split(",") if name.strip()
}

# Each learner's server: the course's environment (the one running this hub, where
# `pip install -e '.[classroom]'` put JupyterLab, the course and nbgitpuller), in their home,
# opening JupyterLab. The limits hold when systemd enforces them.
c.Spawner.cmd = [str(Path(sys.prefix) / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.mem_limit = os.environ.get("COURSE_MEM_LIMIT", "1G")
c.Spawner.cpu_limit = float(os.environ.get("COURSE_CPU_LIMIT", "1"))
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
if os.environ.get("COURSE_HUB_SPAWNER", "systemd") == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.isolate_devices = True
else:
    c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
    homes = os.environ.get("COURSE_HUB_HOMES", "/tmp/course-homes")
    c.SimpleLocalProcessSpawner.home_dir_template = f"{homes}/{{username}}"
    c.Spawner.notebook_dir = ""  # the home the spawner starts in
    # The learners' servers find the course's commands (python, git) as the hub does.
    c.Spawner.env_keep = ["PATH", "PYTHONPATH", "LANG", "STREAMING_LIB_LANG"]
    if os.geteuid() == 0:  # a rehearsal as root (a container): Jupyter asks to be told
        c.Spawner.args = ["--ServerApp.allow_root=True"]


def my_client(spawner):
    """The learner's own my_client/, in their copy of the course: the course's environment
    is shared, and its default (beside the installed course) would be one for everyone."""
    home = getattr(spawner, "home_dir", "") or pwd.getpwnam(spawner.user.name).pw_dir
    return str(Path(home) / os.environ.get("COURSE_FOLDER", "streaming-course") / "my_client")


c.Spawner.environment = {"STREAMING_COURSE_MY_CLIENT": my_client}

# Stop a server idle for COURSE_CULL_TIMEOUT seconds (the learner's files stay; the next
# login starts it again). The culler is a JupyterHub service with just the rights it needs.
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={int(os.environ.get('COURSE_CULL_TIMEOUT', '3600'))}",
            "--cull-every=300",
        ],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]

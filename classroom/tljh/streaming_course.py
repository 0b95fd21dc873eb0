# For The Littlest JupyterHub: each learner's own my_client/, in their copy of the course.
# Copy this file into /opt/tljh/config/jupyterhub_config.d/ and run `sudo tljh-config reload`.
# (The course's environment is shared by every learner; without this, the lessons'
# %%my_client cells would all write into one folder beside the installed course.)
# The folder is the one class-link pulls the course into (its --folder, streaming-course).
import pwd
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub defines it when it reads this file)


def my_client(spawner):
    home = pwd.getpwnam(spawner.user.name).pw_dir
    return str(Path(home) / "streaming-course" / "my_client")


c.Spawner.environment = {"STREAMING_COURSE_MY_CLIENT": my_client}

# The exercises as an nbgrader course: source/ is generated from solutions/ by
# scripts/make_nbgrader.py (never edit it by hand). Run nbgrader's commands in this folder.
c = get_config()  # noqa: F821  (nbgrader defines it when it reads this file)

c.CourseDirectory.course_id = "streaming-course"
c.CourseDirectory.root = "."
# The checks import the course's library and its fixtures: run them from the course.
c.ExecutePreprocessor.timeout = 300
c.ClearSolutions.code_stub = {"python": 'raise NotImplementedError("your code here")'}

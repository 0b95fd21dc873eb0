# The course's two commands (see README.md):
#   make lab    set up .venv on first use, then open the course in JupyterLab
#   make test   set up .venv on first use, then run every test and notebook check
# On a remote machine, choose the port and open no browser (lab-zh takes them too):
#   make lab PORT=8890 BROWSER=no
# and, while doing the exercises:
#   make progress   run every exercise's checks; one row per exercise, how far you are;
#                   then how many fixtures your own client (my_client/) gets as the SDK does,
#                   and how many of the replay server's faults it meets as the SDK does (--live)
# and the Chinese edition (中文版, README.zh-CN.md):
#   make lab-zh       open the course at notebooks/zh/00_start_here.ipynb
#   make progress-zh  the Chinese exercises' checks (exercises/zh), the table in Chinese
# and, for authors:
#   make check      ruff and mypy, as CI runs them before the tests
#   make lock       rewrite constraints.txt from what .venv holds
#   make slides     the lessons as slide decks, in build/slides/
#   make cheatsheet the one-page cheat sheet, build/cheatsheet.pdf (and cheatsheet.zh-CN.pdf)
#   make site       the course as a website, both editions, in build/site/ (open index.html)
#   make lite       lessons 01-04 and the exercises in the browser (JupyterLite), build/site/lite/
#   make messages   the library's message catalogues (streaming_lib/locale): extract, update, compile
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make lab PORT=8890 BROWSER=no`: JupyterLab's port (unset: its own, 8888 or the
# next free one) and, with BROWSER=no, no browser opened (a remote machine).
PORT ?=
BROWSER ?= yes
LAB_OPTIONS := $(if $(PORT),--ServerApp.port=$(PORT)) $(if $(filter no,$(BROWSER)),--ServerApp.open_browser=False) \
	$(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: lab lab-zh test check lock progress progress-zh bench notebooks exercises slides cheatsheet site lite messages clean

# The versions installed are the exact ones of constraints.txt, so a new release
# of anthropic, pydantic or jiter cannot change what the tests compare.
$(BIN)/.installed: pyproject.toml constraints.txt scripts/course.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
		echo "The course needs Python 3.11 or newer, and $(PYTHON) is $$($(PYTHON) -V 2>/dev/null || echo "not found"): run make PYTHON=python3.12 (or another 3.11+)."; \
		exit 1; }
		@echo "Setting up $(VENV): JupyterLab, the anthropic, openai, google-genai and Bedrock SDKs and about 145 other packages,"
	@echo "at the versions in constraints.txt. Once only; about a minute with a warm pip cache,"
	@echo "a few minutes without."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,providers,site]'
	$(BIN)/python scripts/course.py settings
	touch $@

# Lab serves the whole repository (so the links between notebooks, exercises and
# solutions work) and opens the first notebook. Root may run it, as in a container.
lab: $(BIN)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb \
		$(LAB_OPTIONS)

lab-zh: $(BIN)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/zh/00_start_here.ipynb \
		$(LAB_OPTIONS)

# Both stages run even when the first fails; the last line says how each ended, and a
# failure in either fails make.
test: $(BIN)/.installed
	@tests=0; notebooks=0; \
	$(BIN)/python -m pytest tests || tests=$$?; \
	$(BIN)/python -m pytest --nbval notebooks solutions --nbval-sanitize-with notebooks/sanitize.cfg || notebooks=$$?; \
	echo "make test: tests $$([ $$tests = 0 ] && echo passed || echo FAILED), notebooks (nbval) $$([ $$notebooks = 0 ] && echo passed || echo FAILED)"; \
	[ $$tests = 0 ] && [ $$notebooks = 0 ]

check: $(BIN)/.installed
	$(BIN)/ruff check streaming_lib tests benchmarks scripts exercises site
	$(BIN)/mypy

lock: $(BIN)/.installed
	{ sed -n '/^#/p' constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v '^#'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

# A report, not a gate: each line runs whatever the one before said (my-client exits 1
# until your client passes every fixture, for scripts; here that is not a failure).
progress: $(BIN)/.installed
	-$(BIN)/python -m streaming_lib progress
	@echo
	-$(BIN)/python -m streaming_lib my-client --summary
	$(BIN)/python -m streaming_lib my-client --live --summary || true

progress-zh: $(BIN)/.installed
	-$(BIN)/python -m streaming_lib progress --lang zh
	@echo
	-$(BIN)/python -m streaming_lib my-client --summary --lang zh
	$(BIN)/python -m streaming_lib my-client --live --summary --lang zh || true

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

notebooks: $(BIN)/.installed
	$(BIN)/python scripts/execute_notebooks.py

# The lessons as reveal.js slide decks in build/slides/ and build/slides/zh/, for offline use:
# what they load is fetched once (npm) into build/slides/vendor first; without npm it stops.
slides: $(BIN)/.installed
	$(BIN)/python scripts/slides.py build

# The one-page cheat sheet (teaching/cheatsheet.md) as build/cheatsheet.html and .pdf,
# and the Chinese one (teaching/zh/cheatsheet.md) as build/cheatsheet.zh-CN.html and .pdf.
cheatsheet: $(BIN)/.installed
	$(BIN)/python scripts/cheatsheet.py

# The course as a website (Sphinx, MyST-NB, sphinx-book-theme; configured in site/conf.py):
# the notebooks with their stored outputs, never re-run; offline. Any Sphinx warning fails it,
# and so does a broken internal link (site/check.py, which lists the external ones).
site: $(BIN)/.installed
	$(BIN)/sphinx-build -q -E -W --keep-going -b html -c site -d build/.site-doctrees . build/site
	$(BIN)/python site/check.py build/site
	@echo "The site: build/site/index.html"

# Lessons 01-04 and the exercises, both editions, as a static site that runs them in the
# browser (JupyterLite, Python as WebAssembly), everything bundled: build/site/lite/, from the
# commit (HEAD). Fetches Pyodide (npm) and the wheels (PyPI) once, into build/lite/.
lite: $(BIN)/.installed
	$(BIN)/python scripts/lite.py

# Regenerates exercises/ from solutions/ (and exercises/zh/ from solutions/zh/), but never one holding a learner's answers
# (it says which, and how to reset it: scripts/make_exercises.py --reset NN).
exercises: $(BIN)/.installed
	$(BIN)/python scripts/make_exercises.py

# The words the library shows a person, one catalogue per language (scripts/messages.py):
# the template from the code, each .po updated from it, each .mo compiled from its .po.
messages: $(BIN)/.installed
	$(BIN)/python scripts/messages.py

clean:
	rm -rf $(VENV)

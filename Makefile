# The course's two commands (see README.md):
#   make lab    set up .venv on first use, then open the course in JupyterLab
#   make test   set up .venv on first use, then run every test and notebook check
# and, while doing the exercises:
#   make progress   run every exercise's checks; one row per exercise, how far you are;
#                   then how many fixtures your own client (my_client/) gets as the SDK does
# and the Chinese edition (中文版, README.zh-CN.md):
#   make lab-zh       open the course at notebooks/zh/00_start_here.ipynb
#   make progress-zh  the Chinese exercises' checks (exercises/zh), the table in Chinese
# and, for authors:
#   make check      ruff and mypy, as CI runs them before the tests
#   make lock       rewrite constraints.txt from what .venv holds
#   make slides     the lessons as slide decks, in build/slides/
#   make cheatsheet the one-page cheat sheet, build/cheatsheet.pdf
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: lab lab-zh test check lock progress progress-zh bench notebooks exercises slides cheatsheet clean

# The versions installed are the exact ones of constraints.txt, so a new release
# of anthropic, pydantic or jiter cannot change what the tests compare.
$(BIN)/.installed: pyproject.toml constraints.txt scripts/course.py
	@echo "Setting up $(VENV): JupyterLab, the anthropic SDK and about 130 other packages,"
	@echo "at the versions in constraints.txt. Once only; about a minute with a warm pip cache,"
	@echo "a few minutes without."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/python scripts/course.py settings
	touch $@

# Lab serves the whole repository (so the links between notebooks, exercises and
# solutions work) and opens the first notebook. Root may run it, as in a container.
lab: $(BIN)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb \
		$(if $(filter 0,$(shell id -u)),--allow-root)

lab-zh: $(BIN)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/zh/00_start_here.ipynb \
		$(if $(filter 0,$(shell id -u)),--allow-root)

test: $(BIN)/.installed
	$(BIN)/python -m pytest tests
	$(BIN)/python -m pytest --nbval notebooks solutions --nbval-sanitize-with notebooks/sanitize.cfg

check: $(BIN)/.installed
	$(BIN)/ruff check streaming_lib tests benchmarks scripts exercises
	$(BIN)/mypy

lock: $(BIN)/.installed
	{ sed -n '/^#/p' constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v '^#'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

progress: $(BIN)/.installed
	$(BIN)/python -m streaming_lib progress
	@echo
	$(BIN)/python -m streaming_lib my-client --summary

progress-zh: $(BIN)/.installed
	$(BIN)/python -m streaming_lib progress --lang zh
	@echo
	$(BIN)/python -m streaming_lib my-client --summary

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

notebooks: $(BIN)/.installed
	$(BIN)/python scripts/execute_notebooks.py

# The lessons as reveal.js slide decks in build/slides/ (they load reveal.js from a CDN;
# scripts/slides.py vendor, then build --vendor build/slides/vendor, for offline decks).
slides: $(BIN)/.installed
	$(BIN)/python scripts/slides.py build

# The one-page cheat sheet (teaching/cheatsheet.md) as build/cheatsheet.html and .pdf.
cheatsheet: $(BIN)/.installed
	$(BIN)/python scripts/cheatsheet.py

# Regenerates exercises/ from solutions/ (and exercises/zh/ from solutions/zh/), but never one holding a learner's answers
# (it says which, and how to reset it: scripts/make_exercises.py --reset NN).
exercises: $(BIN)/.installed
	$(BIN)/python scripts/make_exercises.py

clean:
	rm -rf $(VENV)

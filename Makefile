# The course: each module's lab, the build that measures it, the site that shows them.
# `make site` and `make test` each do their own set-up first (scripts/setup.sh), so both work on a
# fresh machine.  See README.md.  This file alone puts the steps in order: build, page data, render.
# MODULE=ID limits the module steps to one module (default: every module under modules/).
PY ?= python3
SETTINGS ?= full
MODULE ?=
ONE = $(if $(MODULE),--module $(MODULE))

.PHONY: setup notebooks data figures site handouts test check contracts quick-build benchmark bench-site bench-modules mutation lab-mutants module demo-places demo-places-template clean

setup:
	bash scripts/setup.sh

# each module's student notebook, generated from its one lab source
notebooks:
	$(PY) -m scripts.measure.make_notebooks $(ONE)

# run each lab (only if data/<id>/results.json is stale) and write data/ and the measured figures; compute
# the worked examples with the lab's code (data/<id>/worked_examples.json, seconds); format both into the
# committed page files (modules/<id>/_metadata.yml and _generated/), which go in the same commit as data/
data:
	$(PY) -m scripts.measure.build --settings $(SETTINGS) $(ONE)
	$(PY) -m scripts.measure.worked_examples $(ONE)
	$(PY) -m scripts.pages.site_data $(ONE)

# diagrams drawn by code (figures/<id>/)
figures:
	$(PY) -m scripts.pages.draw_diagrams $(ONE)

site: setup notebooks data figures
	$(PY) -m scripts.pages.render_site

# PDFs of each module's page (A4, every box open, page numbers) and of its deck (one slide per page;
# and with its speaker notes), printed by Chromium from the rendered site into _site/modules/<id>/ and
# linked from the page and the deck (scripts/pages/handouts.mjs); the Site workflow publishes them
handouts: site
	node scripts/pages/handouts.mjs

# a new module from the template (scripts/new_module.py): make module ID=04-attention TITLE="Attention"
module:
	@test -n "$(ID)" -a -n "$(TITLE)" || { echo 'usage: make module ID=04-attention TITLE="Attention"'; exit 2; }
	$(PY) -m scripts.new_module --id "$(ID)" --title "$(TITLE)"

# each demo's place until it draws, measured, not typed: each module's rendered pages opened in Chromium
# at 1280 and 390 px (the shared render of this checkout, tests/js/site-render.mjs, rendered if it is not
# there), each demo that keeps a place drawn and measured, and modules/<id>/demo-places.css written
# (scripts/pages/demo_places.mjs); run it after changing a demo, and commit the file.  The rendered-site suite
# fails, saying so, when a demo draws more than 2 px from its place.  The template's copy
# (scripts/module_template/module/demo-places.css) is measured on a module made from it, in a copy
demo-places:
	nice node scripts/pages/demo_places.mjs $(ONE)

demo-places-template:
	nice node scripts/pages/demo_places.mjs --template

# The tests write only to temporary directories: the work tree's git status, ignored files included,
# must be the same after them as before, or `make test` fails and shows what appeared or changed.
# One exception: the rendered-site suite keeps its screenshots and report in build/site/ to be looked at
# (and the genuine results files their cache in build/student-files/: scripts/measure/student_files.py;
# the planted-change catalogue its results in build/contracts/: see `contracts`).
WORKTREE = git status --porcelain --ignored --untracked-files=all -- . ':!node_modules' ':!vendor' \
	':!*__pycache__*' ':!.pytest_cache' ':!build/site' ':!build/contracts' ':!build/student-files'

# two node suites at once (each browser suite has its own Chromium; the site is rendered once, shared)
NODE_TEST = --test-concurrency=2
# the course's node tests and each module's own (modules/<id>/tests/, found by the folder); pytest finds
# both by pytest.ini's testpaths
NODE_SUITES = tests/js/ $(wildcard modules/*/tests/*.test.mjs)

# pytest and the node suites at once: neither keeps both cores busy alone (a kernel waits for its cell, a
# browser for its page), and the render they share is made once (site-render.mjs's lock); pytest's report
# is printed after node's, then the verdict of both
test: setup
	@before=$$(mktemp); pylog=$$(mktemp); $(WORKTREE) > $$before 2>/dev/null; \
	echo "$(PY) -m pytest -q (its report after node's) & node --test $(NODE_TEST) $(NODE_SUITES)"; \
	$(PY) -m pytest -q > $$pylog 2>&1 & pytest=$$!; \
	node --test $(NODE_TEST) $(NODE_SUITES); node_rc=$$?; \
	wait $$pytest; pytest_rc=$$?; echo "---- pytest -q"; cat $$pylog; rm -f $$pylog; \
	echo "make test: pytest exited $$pytest_rc, node --test $$node_rc"; \
	rc=0; [ $$pytest_rc = 0 ] && [ $$node_rc = 0 ] || rc=1; \
	if [ $$rc = 0 ] && ! $(WORKTREE) 2>/dev/null | diff $$before -; then \
	  echo "make test: the tests changed the work tree (< before, > after); a test must write to a temporary directory"; \
	  rc=1; fi; rm -f $$before; exit $$rc

# the inner loop's subset (its time: README's Tests section): no lab run, no render, no browser; `make test` runs everything
check:
	$(PY) -m pytest -q -m "not slow and not render"
	node --test $(NODE_TEST) $$(grep -L -E "renderedSite|hasChromium|launch\(|runContracts" tests/js/*.test.mjs $(wildcard modules/*/tests/*.test.mjs))

# the whole build path at quick settings (about a minute); writes build/quick/ only
quick-build: setup
	$(PY) -m scripts.measure.build --settings quick --force $(ONE)

benchmark:
	$(PY) -m scripts.bench.benchmark $(ONE)

# mutation testing (not part of `make test`; minutes): mutmut on the build and site code with the
# fast tests, Stryker on the demo modules with their node tests, in a temporary copy of the project
mutation: setup
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	nice -n 19 $(PY) -m scripts.ci.mutation

# each lab's checkpoints against mutants of its reference solutions (not part of `make test`; minutes): every
# exercise function changed one syntax node at a time (seeded), run through its own checkpoint; logs how many
# stopped there and how many messages name the changed part (data/<id>/checkpoint-diagnosis.md)
lab-mutants:
	for m in $(if $(MODULE),$(MODULE),$(notdir $(wildcard modules/*))); do \
	  if [ -f modules/$$m/code/mutant_inputs.py ]; then \
	    nice -n 19 $(PY) -m scripts.ci.lab_mutants --module $$m --log data/$$m/checkpoint-diagnosis.md || exit 1; fi; \
	done

# the post-render's contract with Quarto, with Quarto changed: each planted change of the catalogue
# (tests/contracts/plants.mjs), in a copy of Quarto's own resources, must stop the render of a small
# fixture under the right pass and page; ends with one line, "contracts: S of P planted changes stopped
# the render under the right pass (N passes)".  Results are cached in build/contracts/ by Quarto's
# version, the plant, the fixture and the course's extension, so a run with nothing changed renders
# nothing; `make test` runs it too (tests/js/quarto-contracts.test.mjs).  Details: build/contracts/last-run.txt
contracts:
	@node tests/contracts/run.mjs

clean:
	rm -rf _site .quarto build

# how fast the site is for a reader and to render, against a bare Quarto page and Quarto's own render
# of the same pages, in one run (a benchmark that prints, not a test; about 15 minutes): see README.md
bench-site: setup
	test -d build/bench-tools/node_modules/lighthouse || \
	  (mkdir -p build/bench-tools && cd build/bench-tools && echo '{"private": true}' > package.json && \
	   npm i -E lighthouse@12.2.3 --no-audit --no-fund --silent)
	nice node scripts/bench/bench_site.mjs

# a dozen modules, simulated (a benchmark, not a test; about 10 minutes): in copies of the project, the
# course as it is, with one more module and with twelve (`make module`), each rendered cold; the
# twelve-module site's home lists them all and every page passes the per-page rules at both sizes; the
# render time per module, appended to data/bench-modules.md (scripts/bench/bench_modules.mjs; see README.md)
bench-modules: setup
	nice node scripts/bench/bench_modules.mjs

"""The course's shared machinery, as one package: it builds, checks, formats and renders any module
named by its id, and names none itself (each module's own code is in modules/<id>/build/).

Run the entry points from the project root as modules, e.g. `python -m scripts.build --module ID
--settings quick` (the Makefile and _quarto.yml do; without --module, every module).  Shared facts have
one home each:

    scripts.course      the modules: each found from modules/<id>/module.yml, with every path of a module
    scripts.paths       the course-wide paths (root, modules/, build/, vendor/)
    scripts.formatting  the one place where a number becomes the text a reader sees (the demos use its
                        port, _extensions/course/formatting.js, checked against the same table of cases)
    scripts.results     data/<id>/results.json: load, validate against its schema, staleness
    scripts.files       writing files safely: several at once (atomic), or only when changed
    scripts.lab_source  a lab source and everything derived from it (notebooks, load_lab, listings)
    scripts.claims      the prose's claims, checked (each module lists its own)

Entry points: build, site_data, worked_examples, draw_diagrams, make_notebooks, render_site,
vendor_js, new_module (make module), claims, results, benchmark, mutation.
"""

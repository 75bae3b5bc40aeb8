"""The course's shared machinery, as one package: it builds, checks, formats and renders any module
named by its id, and names none itself (each module's own code is in modules/<id>/code/).

Run the entry points from the project root as modules, e.g. `python -m scripts.measure.build --module ID
--settings quick` (the Makefile and _quarto.yml do; without --module, every module).  One folder per
role, and the few files every role shares at the top:

    scripts.course, scripts.paths, scripts.files    the modules (each from modules/<id>/module.yml, with
                        every path of a module), the course-wide paths, writing files safely
    scripts/project_copy.mjs, network_quiet.mjs      a copy of the project as a fresh clone has it; a
                        browser page's "loading done" (the tests, the handouts and the benches use both)
    scripts.new_module + module_template/             `make module`
    scripts.measure     from a lab to its data: lab_source (notebooks), build (nbclient, claims, schema,
                        atomic write), results (load, validate, staleness), claims, worked_examples
    scripts.pages       from data to the site: site_data (page values and partials), formatting (the one
                        formatter; the demos use its port, _extensions/course/formatting.js), draw_diagrams,
                        vendor_js, render_site; demo_places.mjs, handouts.mjs
    scripts.bench       benchmarks that print, never tests: benchmark (a lab's step time), bench_site.mjs,
                        bench_modules.mjs
    scripts.ci          what the workflows run: stale_modules, measured_summary, colab_drift, mutation

The post-render step lives in the course extension (_extensions/course/post-render/), beside the Lua
filters and page scripts it works with; the schemas the browser also reads are in schemas/.
"""

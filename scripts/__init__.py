"""Module 3's build and site scripts, as one package.

Run the entry points from the project root as modules, e.g. `python -m scripts.build --settings quick`
(the Makefile and _quarto.yml do).  Shared facts have one home each:

    scripts.paths       every path the project reads or writes (root, lab source, data, figures, corpus)
    scripts.constants   numbers that are facts of the course, not measurements (ln 65, ...)
    scripts.formatting  the one place where a number becomes the text a reader sees
    scripts.results     data/baselines.json: load, validate against the schema, staleness
    scripts.files       writing files safely: several at once (atomic), or only when changed
    scripts.lab_source  the lab source and everything derived from it (notebooks, load_lab)
"""

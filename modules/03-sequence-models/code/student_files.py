"""The paths students take through Lab 3, for the genuine results files (scripts/measure/student_files.py).

Each makes a results file the way a student would: which notebook, what they typed into the settings cell,
which solution boxes they ticked, where they stopped.  SMALL is the shortest run that still writes every
field: a few steps of each model on small batches (the numbers mean nothing; the file's shape is the point).
"""
from scripts import course
from scripts.measure.student_files import StudentPath, earlier_labs

SMALL = {"rnn_steps": 3, "lstm_steps": 3, "batch_size": 4, "chunk_len": 32, "grad_chunks": 2, "sgd_steps": 12,
         "sample_len": 20, "demo_sample_len": 20, "log_every": 1}

EXERCISES = ("1", "2", "3b", "4", "5")

PATHS = [
    StudentPath("solution-seed-1", "the solution notebook run at another seed (1)", settings=(("seed", 1),)),
    StudentPath("student-challenge-skipped",
                "the student notebook with every exercise done (its solution box ticked) and the optional "
                "Challenge skipped: Run All stops at the Challenge's checkpoint, the file saved before it",
                mode="student", ticked=EXERCISES, until_error=True),
    StudentPath("stopped-after-save", "the solution notebook stopped right after the save cell",
                stop_after_save=True),
    StudentPath("diverged", "no clipping and a large learning rate: a run that diverges (inf and nan losses)",
                settings=(("lr", 1.0), ("clip_kappa", float("inf")), ("sgd_lr", 1e38))),
] + earlier_labs(course.module("03-sequence-models"))

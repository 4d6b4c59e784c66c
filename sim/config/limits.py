"""Every bound on a study's input, declared once: what a file, a run and a study may hold.

Inputs are bounded before anything is built from them (sim.config.yamlio measures a
document before constructing it), so an error costs no more than a small file.
"""

MAX_GAMES = 100_000_000  # games of a run; a sweep's points share this budget
MAX_SWEEP_POINTS = 256  # grid points of a sweep (each is a run folder)
MAX_REPLAYS = 10_000  # replays per deal of the luck gauge
MAX_FILE_BYTES = 1_000_000  # a study file is a few KB
MAX_DEPTH = 20  # nesting of mappings and lists in a study (a real one needs 4)
MAX_VALUES = 50_000  # values a study file may expand to, YAML aliases counted as used
MAX_NAME = 200  # characters of a study name (it names files)
MAX_CHAIN = 20  # files in one chain of `extends`

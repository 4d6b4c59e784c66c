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

# A game's deck: every count and their sum. A game lasts about as many turns as the deck has
# cards, and the score trace keeps a row per round and seat, so a deck of 2,000 cards (base:
# 70) already makes a run's tables thirty times larger; beyond, a run cannot fit in memory.
MAX_DECK_CARDS = 2_000
MAX_TOY_KINDS = 50  # toy kinds: the cards table has a row per game, seat and card kind
MAX_LABEL = 60  # characters of a ladder or luck rung's label (it names the match's study)
MIN_LUCK = 2  # deals and replays of the luck gauge: a variance within and between needs 2
MAX_SCAN_GAMES = 100_000  # games per point of `sim turns` (played in one process, at once)

# tune: a range [lo, hi] spans at most this many values (the tuner lists them), and a search
# confirms at most this many finalists.
MAX_TUNE_RANGE = 10_000
MAX_FINALISTS = 100
# The upper bound of each tune.budget key.
TUNE_BUDGET_LIMITS = {
    "games": MAX_GAMES,
    "first": MAX_GAMES,
    "confirm": MAX_GAMES,
    "select": MAX_GAMES,
    "finalists": MAX_FINALISTS,
}

# Foreign code: a plug-in policy's every call (import, constructor, each decision) must
# return within the study's `plugin_time_limit` seconds.
DEFAULT_PLUGIN_TIME_LIMIT = 10.0
MAX_PLUGIN_TIME_LIMIT = 3600.0

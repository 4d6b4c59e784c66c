"""Typed, frozen, validated configuration: game settings and studies.

The models are the single source of truth for config keys. A study is validated
once, when loaded; the engine trusts it afterwards. Every mistake in a study
file becomes one `ConfigError` line, `<file>: <dotted.path>: <problem>`.

The package's rooms, from the ground up: `limits` (every input bound), `messages`
(error lines and value display), `yamlio` (the bounded YAML loader and dumper),
`models` (table, deck, game, seat), `keys` (dotted keys and merging), `blocks`
(targets, primary, report, value, ladder, luck), `spaces` (the sweep grid and the
tune space), `study` (the study model and its parsing), `load` (files, `extends`,
`--set`).
"""

from sim.config.blocks import (
    DEFAULT_LEVELS,
    DEFAULT_RUNGS,
    NO_BLOCKS,
    AdviseBlock,
    LadderBlock,
    LuckBlock,
    ValueBlock,
    rung_label,
    rung_seat,
)
from sim.config.keys import Json, Settings, Space, Targets, merge_settings, parse_override
from sim.config.limits import MAX_GAMES
from sim.config.load import (
    apply_sets,
    describe_changes,
    extends_chain,
    load_study,
    setting,
    study_changes,
    summarize,
)
from sim.config.models import (
    BAN_ACTIONS,
    Deck,
    GameConfig,
    SeatSpec,
    Table,
    Target,
    ablation_cards,
    ban_options,
)
from sim.config.spaces import TuneBlock, TuneBudget, deck_size, tune_game_problem, tune_values
from sim.config.study import StudyConfig, parse_study
from sim.config.yamlio import dump_yaml
from sim.variants import Rules

__all__ = [
    "BAN_ACTIONS",
    "DEFAULT_LEVELS",
    "NO_BLOCKS",
    "AdviseBlock",
    "DEFAULT_RUNGS",
    "MAX_GAMES",
    "Deck",
    "GameConfig",
    "Json",
    "LadderBlock",
    "LuckBlock",
    "Rules",
    "SeatSpec",
    "Settings",
    "Space",
    "StudyConfig",
    "Table",
    "Target",
    "Targets",
    "TuneBlock",
    "TuneBudget",
    "ValueBlock",
    "ablation_cards",
    "apply_sets",
    "ban_options",
    "deck_size",
    "describe_changes",
    "dump_yaml",
    "extends_chain",
    "load_study",
    "merge_settings",
    "parse_override",
    "parse_study",
    "rung_label",
    "rung_seat",
    "setting",
    "study_changes",
    "summarize",
    "tune_game_problem",
    "tune_values",
]

"""Tune's fairness question, answered by advise's engine.

When every target of `tune:` is a seat's edge and every seat plays the same policy, `sim
tune` asks what `sim advise` asks at one level (the line-up's player): the smallest change
that puts every seat inside its band. Two engines would give two answers to one question,
so tune hands it to advise's diagnosis → screen → race → selection → confirmation, with
tune's space (`advise.space`), targets and budget; the folder is an advise folder that says
tune asked. Any other tune (another target beside the seats, a mixed line-up, a space that
moves the player count, constraints) keeps tune's own search, and says in one sentence why
its answer may differ from advise's.
"""

from __future__ import annotations

from sim.config import Json, StudyConfig
from sim.errors import ConfigError, SimError

TUNE_BY_ADVICE = (
    "every target is a seat's edge between equal players: sim advise's question, so tune"
    " answered with advise's engine (diagnosis, screen, race, selection, confirmation) within"
    " tune's space and budget"
)


def seat_targets(names) -> list[str]:
    """The target names that hold a seat's edge."""
    return [n for n in names if n.startswith("seat_edge.") or n == "first_player_advantage"]


def why_not_advise(study: StudyConfig) -> str | None:
    """None when tune's question is advise's (every target a seat's edge, equal players, a
    space of game settings alone), else the one sentence that says how the two differ; ''
    when the tune holds no seat to a band (nothing to say)."""
    tune = study.tune
    seats = seat_targets(tune.targets)
    if not seats:
        return ""
    if len(set(study.seats)) > 1:
        return (
            "tune measures the config's own line-up (mixed players); sim advise asks the same"
            " of equal players at each skill level, so the two may name different changes"
        )
    others = [n for n in tune.targets if n not in seats]
    if others:
        return (
            f"tune holds every target at once ({', '.join(others)} beside the seats), so it"
            " searched with its own engine; sim advise judges the seats alone"
        )
    if "players" in tune.space or tune.constraints:
        what = "moves the player count" if "players" in tune.space else "has constraints"
        return f"tune's space {what}, which sim advise's changes do not: it searched on its own"
    try:
        advice_study(study)
    except ConfigError as exc:
        return f"the line-up's player cannot be an advise level ({exc}): tune searched on its own"
    return None


def advice_study(study: StudyConfig, budget: int | None = None) -> StudyConfig:
    """The advise study that asks tune's question: one level (the line-up's player), tune's
    space and seat targets, and tune's budget (or `budget`) for every game it plays."""
    raw = study.to_yaml_dict()
    tune: Json = raw["tune"]
    advise = {k: v for k, v in study.advise.to_yaml().items() if k != "calibrated"}
    advise.update(
        levels=[study.seats[0].to_dict()],
        space=tune["space"],
        budget=tune["budget"]["games"] if budget is None else budget,
    )
    targets = {**(raw.get("targets") or {}), **tune["targets"]}
    return study.overridden({"advise": advise, "targets": targets}, where=f"{study.source}: tune")


def check_budget(study: StudyConfig, budget: int | None) -> None:
    """Refuse, in tune's words, a budget advise's phases cannot pay for (before any game)."""
    games = study.advise.budget if budget is None else budget
    if problem := study.advise.too_small(games):
        where = "--budget" if budget is not None else f"{study.source}: tune.budget.games"
        raise SimError(
            f"{where}: {problem} (tune's seat targets between equal players are"
            " answered by sim advise's engine)"
        )

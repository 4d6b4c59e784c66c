"""Every file a study writes beside its runs, in the unit convention of `sim.units`.

A run folder gets `summary.json`; a comparison folder `differences.csv`; a sweep
folder `points.csv`; a value folder `values.csv`, `ablation.csv` and
`summary.json`; a ladder folder `ladder.csv`, `ratings.csv` and `summary.json`; a
luck folder `luck.csv` and `summary.json`; a tune folder `tune.json` (or, for a fairness
question, advise's `advice.json`) and `recommended.yaml` (or `closest.yaml`); an advise folder
`advice.json`; a calibration folder `calibration.json` and
`calibrated.yaml` (and one `calibrated-<player>.yaml` per player). Shares in CSV files
stay fractions where their column says so (`win_share`), and are percent where the
header says `_pct`, `%` or `pp`, as written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from sim import units
from sim.analysis.answers import seat_answer
from sim.analysis.balance import run_summary
from sim.analysis.findings import luck_lines, run_headline, value_verdict
from sim.analysis.inference import family_note
from sim.analysis.stopping import annotate_summary, stopped_record
from sim.config import parse_study
from sim.config.yamlio import dump_yaml
from sim.metrics import metric as registry_metric
from sim.runs.paths import KINGMAKING_FILE, RUN_FILE, slug
from sim.runs.storage import RunResult, read_json, study_yaml, write_json, write_text
from sim.studies.leads import ladder_lead, luck_lead, tune_lead, value_lead

if TYPE_CHECKING:  # the study modules only for their result types: `sim run` imports none
    from sim.analysis.moments import Moments
    from sim.analysis.paired import SweepStats
    from sim.studies.advice import Advice
    from sim.studies.calibrate import Calibration
    from sim.studies.ladder import LadderResult
    from sim.studies.luck import LuckResult
    from sim.studies.sweep import SweepResult
    from sim.studies.tune_verdict import Verdict
    from sim.studies.value import ValueResult

SUMMARY_FILE = "summary.json"
DIFFERENCES_FILE = "differences.csv"
POINTS_FILE = "points.csv"
VALUES_FILE = "values.csv"
ABLATION_FILE = "ablation.csv"
LADDER_FILE = "ladder.csv"
RATINGS_FILE = "ratings.csv"
LUCK_FILE = "luck.csv"
TUNE_FILE = "tune.json"
RECOMMENDED_FILE = "recommended.yaml"
CLOSEST_FILE = "closest.yaml"
ADVICE_FILE = "advice.json"


def write_run_summary(run: RunResult, moments: Moments, view: RunResult) -> dict:
    """Write a run folder's `summary.json` (`sim.analysis.balance.run_summary` of every game's
    merged moments and the rows of `view`, the run or its sample) with the short answer first
    (`headline`, the line-up it belongs to, the `--set` changes) and its numbers (`answer`,
    `sim.analysis.answers.seat_answer`); for a run stopped when decided, how it stopped
    (`sim.analysis.stopping.annotate_summary`); return it."""
    study = parse_study(run.meta["config"], str(Path(run.run_dir) / RUN_FILE), plugins=False)
    answer = seat_answer(view.players, moments, view.games)
    sample = Path(run.run_dir) / KINGMAKING_FILE  # `sim run --kingmaking`, or a target on it
    kingmaking = read_json(sample) if sample.is_file() else None
    labels = [seat.label for seat in study.seats]
    summary = {
        "name": study.name,
        "headline": run_headline(answer, labels, study.rotate_seats),
        "lineup": "equal" if len(set(labels)) == 1 else "mixed",
        "sets": list(run.meta.get("sets", [])),
        **run_summary(
            view.games,
            view.players,
            study.targets,
            moments=moments,
            noise=run.meta.get("feel_noise"),
            kingmaking=kingmaking,
        ),
        "answer": answer.to_json(),
    }
    if kingmaking is not None:  # the sample's rate and situations (its decisions stay in its file)
        summary["kingmaking"] = {k: v for k, v in kingmaking.items() if k != "decisions"}
    annotate_summary(summary, stopped_record(run.meta))  # a run stopped when decided
    write_json(Path(run.run_dir) / SUMMARY_FILE, summary)
    return summary


def write_differences(table: pd.DataFrame, out_dir: Path) -> Path:
    """A comparison's verdicts as `differences.csv`: one row per metric, in the reports'
    units: `unit` is that of a and b ("%" for shares), `diff_unit` that of diff, lo and hi
    ("pp", percentage points, for shares)."""
    cols = [
        "metric",
        "label",
        "unit",
        "a",
        "b",
        "diff_unit",
        "diff",
        "lo",
        "hi",
        "p",
        "family",
        "p_adj",
        "real",
    ]
    out = table.copy()
    share = out["unit"] == "share"
    for col in ("a", "b", "diff", "lo", "hi"):
        out[col] = out[col].where(~share, out[col] * 100)
    out["diff_unit"] = out["unit"].where(~share, units.PP)
    out["unit"] = out["unit"].where(~share, "%")
    path = Path(out_dir) / DIFFERENCES_FILE
    write_text(path, out[cols].to_csv(index=False))
    return path


def write_points(result: SweepResult, stats: SweepStats) -> Path:
    """A sweep's points as `points.csv`: the swept values, each metric's value and interval
    (columns <metric>, <metric>:lo, <metric>:hi; a share's are in percent and named
    <metric>_pct) and whether the point is in the best set."""
    t = stats.table
    wide = t.pivot(index="point", columns="metric", values=["value", "lo", "hi"])
    frame = result.point_frame().set_index("point")
    columns = {}
    for name in dict.fromkeys(t["metric"]):
        share = registry_metric(name).unit == "share"
        head, k = (f"{name}_pct", 100.0) if share else (name, 1.0)
        columns[head] = wide[("value", name)] * k
        columns[f"{head}:lo"] = wide[("lo", name)] * k
        columns[f"{head}:hi"] = wide[("hi", name)] * k
    frame = pd.concat([frame, pd.DataFrame(columns, index=frame.index)], axis=1)
    if stats.verdict is not None:
        frame["in_best_set"] = frame.index.isin(stats.verdict.best_set)
    path = Path(result.out_dir) / POINTS_FILE
    write_text(path, frame.reset_index().to_csv(index=False))
    return path


def _csv(frame: pd.DataFrame, path: Path) -> None:
    write_text(path, frame.to_csv(index=False))


def write_value_files(result: ValueResult) -> tuple[str, list[str]]:
    """`values.csv`, `ablation.csv` and `summary.json` of a value study; its verdict lines."""
    values = result.values.drop(columns="identical")
    _csv(values, result.out_dir / VALUES_FILE)
    ablation = result.ablation.drop(columns="identical", errors="ignore")
    if len(ablation):
        _csv(ablation, result.out_dir / ABLATION_FILE)
    head, lines = value_verdict(result.values, result.seat, result.study.seats[result.seat].label)
    summary = {
        "name": result.study.name,
        "kind": "value",
        "headline": value_lead(result),
        "seat": result.seat,
        "verdict": head,
        "family": family_note("holm", len(result.values)),
        "values": values.to_dict("records"),
        "ablation_family": family_note("holm", len(result.ablation)),
        "ablation": ablation.to_dict("records"),
    }
    write_json(result.out_dir / SUMMARY_FILE, summary)
    return head, lines


def write_ladder_files(result: LadderResult) -> str:
    """`ladder.csv`, `ratings.csv` and `summary.json` of a ladder; its verdict."""
    _csv(result.steps, result.out_dir / LADDER_FILE)
    _csv(result.ratings, result.out_dir / RATINGS_FILE)
    verdict = result.verdict()
    write_json(
        result.out_dir / SUMMARY_FILE,
        {
            "name": result.study.name,
            "kind": "ladder",
            "headline": ladder_lead(result),
            "rungs": result.labels,
            "depth": result.depth,
            "depth_ci": list(result.depth_ci),
            "chain_depth": result.chain_depth,
            "chain_depth_ci": list(result.chain_ci),
            "threshold": result.threshold,
            "verdict": verdict,
            "steps": result.steps.to_dict("records"),
            "ratings": result.ratings.to_dict("records"),
        },
    )
    return verdict


def write_luck_files(result: LuckResult) -> list[str]:
    """`luck.csv` and `summary.json` of a luck gauge; its lines."""
    _csv(result.table, result.out_dir / LUCK_FILE)
    lines = luck_lines(result.table)
    write_json(
        result.out_dir / SUMMARY_FILE,
        {
            "name": result.study.name,
            "kind": "luck",
            "headline": luck_lead(result),
            "luck": result.table.to_dict("records"),
            "lines": lines,
        },
    )
    return lines


def write_tune_files(verdict: Verdict) -> Path:
    """`tune.json` (the evidence) and the recommended (or, when nothing meets every target,
    the closest) study as YAML; the YAML file's path. "No change needed" writes the start."""
    out_dir = verdict.state.out_dir
    verdict.data.setdefault("headline", tune_lead(verdict.state.study, verdict.data))
    write_json(out_dir / TUNE_FILE, verdict.data)
    chosen = verdict.recommended_study or verdict.closest_study
    name = RECOMMENDED_FILE if verdict.recommended_study is not None else CLOSEST_FILE
    why = {
        "recommended": "recommended by",
        "no change needed": "no change needed: the start, checked by",
        "not met": "closest found by",
    }[verdict.data["status"]]
    header = f"# {why} sim tune ({out_dir}); see tune.json for the evidence\n"
    write_text(out_dir / name, header + study_yaml(chosen))
    return out_dir / name


def write_advice(result: Advice) -> Path:
    """`advice.json`: the findings (each with its metric, levels, verdict, cause and fix), how
    the game plays at each level, the bands, the games spent and the family of tests."""
    path = result.state.out_dir / ADVICE_FILE
    write_json(path, result.data)
    return path


def write_advised_study(result: Advice) -> Path | None:
    """For a tune answered by advise's engine (`sim.studies.tune_fair`), the tune's YAML:
    `recommended.yaml` (the lead fix, confirmed; the start when every seat is inside its
    band) or `closest.yaml` (the lead fix, offered but not confirmed); None when no change
    is offered. The advise block tune added is left out: the study as the designer wrote it."""
    answer, out_dir = result.data["answer"], result.state.out_dir
    lead = answer["fixes"][0] if answer["fixes"] else None
    if answer["status"] == "fair":
        name, why, changes = RECOMMENDED_FILE, "no change needed: the start, checked by", {}
    elif lead is not None:
        name = RECOMMENDED_FILE if lead["confirmed"] else CLOSEST_FILE
        why = "recommended by" if lead["confirmed"] else "closest found by"
        changes = lead["changes"]
    else:
        return None
    chosen = result.state.study.with_overrides(**changes, advise=None)
    header = f"# {why} sim tune ({out_dir}) with sim advise's engine; see advice.json\n"
    write_text(out_dir / name, header + study_yaml(chosen))
    return out_dir / name


CALIBRATION_FILE = "calibration.json"
CALIBRATED_FILE = "calibrated.yaml"


def write_calibration_files(result: Calibration, out_dir: Path, about: dict) -> list[Path]:
    """`calibration.json` (the evidence), `calibrated.yaml` (the pooled seat, ready for a
    line-up's `{calibrated: FILE}`) and, with players, `calibrated-<player>.yaml` each."""
    out_dir = Path(out_dir)
    from sim.studies.calibrate import calibration_record  # scipy: only for this study

    write_json(out_dir / CALIBRATION_FILE, calibration_record(result, about))
    written = [out_dir / CALIBRATION_FILE]
    for group, name in [(result.pooled, CALIBRATED_FILE)] + [
        (g, f"calibrated-{slug(g.name)}.yaml") for g in result.players
    ]:
        header = (
            f"# {group.label}: sim calibrate fitted {group.fit.n:,} decisions of"
            f" {group.fit.games:,} games ({group.name}); {group.scale.unit}.\n"
            f"# Use it as a seat: {{calibrated: {name}}}; the evidence is in {CALIBRATION_FILE}.\n"
        )
        write_text(out_dir / name, header + dump_yaml(group.spec))
        written.append(out_dir / name)
    return written

"""`sim compare`: two configs on the same game indices and seed, a paired comparison.

Game i of A and game i of B share their shuffle and seat streams (common random
numbers, `sim.studies.common`), so a difference comes from the configs. B is A with
its own settings (or with `--b-set` changes); `--independent` plays B on other seeds,
an unpaired calibration run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.config import StudyConfig
from sim.errors import SimError
from sim.runs.folders import locked
from sim.runs.options import Request, Workers
from sim.runs.paths import STUDY_FILE, check_page, folder_stem
from sim.runs.results import TABLES
from sim.runs.storage import RunResult, read_study_meta, saved_study, study_yaml, write_text
from sim.runs.until import check_request, new_plan, resumed_plan, study_questions
from sim.studies.common import RUN_KEYS, fresh_dir, open_study, recorded_chunks, run_points


@dataclass
class CompareResult:
    """A finished paired comparison: two runs on the same game indices and seed."""

    a: RunResult
    b: RunResult
    labels: tuple[str, str]
    out_dir: Path
    studies: tuple[StudyConfig, StudyConfig]
    meta: dict = field(default_factory=dict)

    def tables(self, side: int) -> dict[str, pd.DataFrame]:
        """The tables of side 0 (A) or 1 (B)."""
        run = (self.a, self.b)[side]
        return {name: getattr(run, name) for name in TABLES}


def run_compare(
    a: StudyConfig | None,
    b: StudyConfig | None,
    labels: tuple[str, str] | None,
    request: Request,
    workers: Workers,
    independent: bool = False,
) -> CompareResult:
    """Play A and B on the same game indices with A's seed (B's seed and count follow A's).

    A comparison is about game settings and line-ups; pairing needs one seed and one
    set of game indices, so B is played with A's seed and games (the request's, where
    given); the result's meta notes when B's file said otherwise. With `independent`, B
    plays on A's seed + 1 instead: other games, so the comparison is unpaired (a
    calibration run: two identical configs should then differ by noise only). With
    `request.until` ("decided") both play until the comparison's questions are decided
    (`sim.runs.until`), or `request.max_games` each. The page is checked before any game.
    With `request.resume`, the comparison folder a stopped call left is finished instead
    (`a`, `b` and `labels` are its own).
    """
    if request.resume is not None:
        return _resume_compare(request, workers)
    if a is None or b is None or labels is None:
        raise SimError("sim compare: give A's config, or --resume COMPARE_DIR")
    if len(labels) != 2 or labels[0] == labels[1]:
        raise SimError(f"compare: need two different labels, got {labels!r}")
    check_request(request.until, request.max_games, request.games)
    if request.seed is not None:
        a = a.with_overrides(seed=request.seed)
    games = request.games
    n = games if games is not None else a.games
    plan = new_plan(a.with_overrides(games=n), request.until, request.max_games)
    n = plan.study.games  # the cap, for a comparison run until decided
    notes = []
    if b.seed != a.seed and not independent:
        notes.append(f"{labels[1]} played with {labels[0]}'s seed {a.seed} (its file: {b.seed})")
    if games is None and b.games != a.games:
        notes.append(f"{labels[1]} played {n} games like {labels[0]} (its file: {b.games})")
    for label, study in zip(labels, (a, b), strict=True):
        if study.sweep:
            notes.append(f"{label}: its sweep block is ignored (compare plays the config as is)")
    b_seed = a.seed + 1 if independent else a.seed
    if independent:
        notes.append(f"{labels[1]} played on seed {b_seed}: independent games, unpaired intervals")
    a = a.with_overrides(games=n, sweep=None)
    b = b.with_overrides(games=n, seed=b_seed, sweep=None)
    check_page(request, "compare", a, labels)
    out_dir = fresh_dir(
        request.out, folder_stem("compare", labels=labels), "sim compare --resume {folder}"
    )
    with locked(out_dir):
        head = {
            "kind": "compare",
            "labels": list(labels),
            "configs": [a.to_yaml_dict(), b.to_yaml_dict()],
            "config_hashes": [a.config_hash(), b.config_hash()],
            # where each config was read (its plug-ins are looked for there on --resume)
            "sources": [a.source, b.source],
            "folders": [a.folder, b.folder],
            "notes": notes,
            "independent": independent,
            "points": [{"label": lab, "values": {}} for lab in labels],
            "feel": request.feel,
        }
        write_text(
            out_dir / "config.yaml",
            "".join(f"# --- {lab}\n{study_yaml(s)}" for lab, s in zip(labels, (a, b), strict=True)),
        )
        questions = study_questions("compare", [a, b], list(labels))
        runs, meta = run_points([a, b], out_dir, head, workers, until=plan.until(questions))
        a, b = (s.with_overrides(games=meta["games"]) for s in (a, b))  # the games played
    return CompareResult(
        a=runs[0], b=runs[1], labels=tuple(labels), out_dir=out_dir, studies=(a, b), meta=meta
    )


def _resume_compare(request: Request, workers: Workers) -> CompareResult:
    """Finish a comparison folder that stopped: both sides rebuilt from its study.json (each
    checked against the hash it recorded), the chunks on disk kept (checked), the rest
    played with the folder's chunk size; one run until decided goes on that way."""
    out_dir = Path(request.resume)
    if request.out is not None:
        raise SimError("--out: a resumed compare stays in its folder; leave --out out")
    read_study_meta(out_dir, "compare")  # before the lock: not a comparison folder at all
    with locked(out_dir):
        saved = read_study_meta(out_dir, "compare")
        labels, sides = _saved_sides(saved, out_dir)
        plan = resumed_plan(saved, sides[0], request, out_dir)
        a = plan.study
        b = sides[1].with_overrides(games=a.games)
        check_page(request, "compare", a, labels)
        size = recorded_chunks(saved, out_dir, 2)
        head = {k: v for k, v in saved.items() if k not in RUN_KEYS}
        questions = study_questions("compare", [a, b], list(labels))
        until = plan.until(questions)
        runs, meta = run_points([a, b], out_dir, head, workers, size, until, plan.extra)
        a, b = (s.with_overrides(games=meta["games"]) for s in (a, b))
    return CompareResult(*runs, labels=labels, out_dir=out_dir, studies=(a, b), meta=meta)


def _saved_sides(saved: dict, out_dir: Path) -> tuple[tuple[str, str], list[StudyConfig]]:
    """A comparison folder's labels and its two studies, as it recorded them."""
    where = out_dir / STUDY_FILE
    try:
        labels = tuple(str(x) for x in saved["labels"])
        configs, hashes = saved["configs"], saved["config_hashes"]
        sources = saved.get("sources") or [None, None]
        folders = saved.get("folders") or [None, None]
        sides = [
            saved_study({"config": c, "source": src, "folder": f, "sets": saved.get("sets")}, where)
            for c, src, f in zip(configs, sources, folders, strict=True)
        ]
    except (KeyError, TypeError, ValueError):
        raise SimError(f"{where}: damaged (not the two configs of a comparison)") from None
    if len(labels) != 2 or [s.config_hash() for s in sides] != list(hashes):
        raise SimError(f"{where}: damaged (its configs are not the ones it recorded)")
    return labels, sides


def load_compare(out_dir: str | Path) -> CompareResult:
    """Open a finished comparison folder."""
    o = open_study(out_dir, "compare")
    a, b = (o.point_study(i) for i in (0, 1))
    labels = tuple(o.meta["labels"])
    return CompareResult(*o.runs, labels=labels, out_dir=o.out_dir, studies=(a, b), meta=o.meta)

"""HTML pages of `sim value`, `sim ladder` and `sim luck`: one self-contained page each,
figures inline as SVG. The numbers come from `sim.analysis.restricted` and
`sim.analysis.ladder` through the studies' results (`sim.studies.value`, `.ladder`,
`.luck`); the verdict sentences from `sim.analysis.findings`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from sim import units
from sim.analysis.findings import ablation_change, luck_lines, value_verdict
from sim.analysis.inference import family_note
from sim.errors import SimError
from sim.report.html import svg_markup, table, write_page
from sim.report.interval_figures import interval_bars
from sim.runs.paths import page_path
from sim.studies.ladder import LadderResult, load_ladder
from sim.studies.leads import ladder_lead, luck_lead, value_lead
from sim.studies.luck import LuckResult, load_luck
from sim.studies.value import ValueResult, load_value
from sim.units import card_label, pct


def _num(col: str, digits: int = 2, signed: bool = False):
    sign = "+" if signed else ""
    return lambda r: "–" if pd.isna(r[col]) else f"{r[col]:{sign}.{digits}f}"


def _pct(col: str):
    return lambda r: "–" if pd.isna(r[col]) else pct(r[col])


def _pp_ci(col: str, lo: str, hi: str):
    """A value held in percentage points (values.csv) with its interval: '+31.8 pp [+29.0, ...]'."""
    return lambda r: units.interval(r[col] / 100, r[lo] / 100, r[hi] / 100, "share", diff=True)


def _ci(lo: str, hi: str, digits: int = 2, scale: float = 1.0):
    return lambda r: f"[{scale * r[lo]:.{digits}f}, {scale * r[hi]:.{digits}f}]"


def _p(col: str):
    return lambda r: "–" if pd.isna(r[col]) else (f"{r[col]:.2g}" if r[col] >= 1e-4 else "<1e-4")


_svg = svg_markup


def _page(kind: str, study, out_path, force: bool, context) -> Path:
    """Write one page of the causal template (`write_page`): `context()`, the study's
    `--set` changes and the study as YAML."""

    def filled() -> dict:
        page = context()
        page.setdefault("sets", list(study.sets))
        page["config"] = yaml.safe_dump(study.to_yaml_dict(), sort_keys=False)
        return page

    return write_page(page_path(kind, study, out_path), force, "causal.html.j2", filled)


# ---------------------------------------------------------------- sim value


def build_value_report(result: ValueResult, out_path=None, force: bool = False) -> Path:
    """Write the `sim value` page: option values (sorted bars), the table, the ablation."""
    return _page("value", result.study, out_path, force, lambda: _value_page(result))


def _value_page(result: ValueResult) -> dict:
    v, a = result.values, result.ablation
    head, lines = value_verdict(v, result.seat, result.study.seats[result.seat].label)
    sections = _value_sections(v) + _ablation_sections(a)
    return dict(
        title=f"{result.study.name}: what each option is worth",
        lead=value_lead(result),
        command="sim value",
        intro="Restricted play (Jaffe et al. 2012) and deck ablation on common random numbers.",
        verdict=head,
        findings=lines,
        facts=[
            ("folder", str(result.out_dir)),
            ("restricted slot", str(result.seat)),
            ("points", str(len(result.points))),
        ],
        sections=sections,
    )


def _value_sections(v) -> list[dict]:
    """The option values: sorted bars and the table."""
    sections = []
    if len(v):
        fig = interval_bars(
            [card_label(o) for o in v["option"]],
            v["value"],
            v["lo"],
            v["hi"],
            "win share lost when banned (pp)",
            "Value of each option (95% paired intervals)",
            axis="pp",
        )
        cols = [
            ("option", lambda r: card_label(r["option"])),
            ("win share lost when banned [95%]", _pp_ci("value", "lo", "hi")),
            (
                "points lost [95%]",
                lambda r: units.interval(
                    r["score_loss"], r["score_lo"], r["score_hi"], "points", diff=True
                ),
            ),
            ("n", lambda r: f"{r['n']:,}"),
            ("p", _p("p")),
            ("Holm p", _p("p_adj")),
            ("real", lambda r: "yes" if r["real"] else "no"),
            ("fallback games", _pct("fallback_rate")),
            ("fallbacks / game", _num("fallbacks_per_game", 3)),
        ]
        note = (
            f"Value: the slot's win share unrestricted minus restricted, game by game on the"
            f" same deals (positive: the option is worth having). {family_note('holm', len(v))}"
            " on the win share. Fallback: games in which every legal move was banned, so the"
            " slot used the option anyway (it never does while another move is legal)."
        )
        sections.append(
            {
                "id": "values",
                "title": "Option values",
                "figure": _svg(fig, "values"),
                "table": table(v, cols),
                "note": note,
            }
        )
    return sections


def _ablation_sections(a) -> list[dict]:
    """One copy fewer of each card: a figure per measure and the table."""
    sections = []
    if len(a):
        for measure, group in a.groupby("measure", sort=False):
            g = group.sort_values("change", ascending=False)
            fig = interval_bars(
                [card_label(c) for c in g["card"]],
                g["change"],
                g["lo"],
                g["hi"],
                f"change in {g['label'].iloc[0]} ({g['unit'].iloc[0]})",
                f"One copy removed: {g['label'].iloc[0]}",
                axis="pp" if g["unit"].iloc[0] == "pp" else None,
            )
            sections.append(
                {
                    "id": f"ablate-{measure}",
                    "title": f"Ablation: {g['label'].iloc[0]}",
                    "figure": _svg(fig, f"ablate-{measure}"),
                }
            )
        cols = [
            ("card", lambda r: card_label(r["card"])),
            ("measure", lambda r: r["label"]),
            ("change with one copy fewer [95%]", ablation_change),
            ("unit", lambda r: {"pp": "pp of win share"}.get(r["unit"], r["unit"])),
            ("Holm p", _p("p_adj")),
            ("real", lambda r: "yes" if r["real"] else "no"),
        ]
        sections.append(
            {
                "id": "ablation",
                "title": "Ablation table",
                "table": table(a, cols),
                "note": "Each card kind loses one copy; the other cards keep their shuffle"
                " order, so the games are paired. " + family_note("holm", len(a)),
            }
        )
    return sections


# ---------------------------------------------------------------- sim ladder


def build_ladder_report(result: LadderResult, out_path=None, force: bool = False) -> Path:
    """Write the `sim ladder` page: ratings, the steps heads-up and at the table size."""
    return _page("ladder", result.study, out_path, force, lambda: _ladder_page(result))


def _ladder_page(result: LadderResult) -> dict:
    sections = [_ratings_section(result.ratings), _steps_section(result.steps)]
    return dict(
        title=f"{result.study.name}: skill ladder",
        lead=ladder_lead(result),
        command="sim ladder",
        intro="Skill ladder and depth (Lantz et al. 2017) on common random numbers.",
        verdict=result.verdict(),
        findings=[],
        facts=[
            ("folder", str(result.out_dir)),
            ("rungs", ", ".join(result.labels)),
            ("games per match", f"{result.matches[0].study.games:,}"),
        ],
        sections=sections,
    )


def _ratings_section(r) -> dict:
    """The rungs' Bradley-Terry ratings: bars and the table, all sizes and each."""
    fig = interval_bars(
        list(r["rung"]),
        r["elo"],
        r["elo_lo"],
        r["elo_hi"],
        "Bradley-Terry rating (Elo points, bottom rung = 0)",
        "Ratings of the rungs (95% bootstrap intervals)",
    )
    rcols = [
        ("rung", lambda x: x["rung"]),
        ("Elo, all results", _num("elo", 0)),
        ("95% interval", _ci("elo_lo", "elo_hi", 0)),
    ]
    for size in sorted({int(c[7:-1]) for c in r.columns if c.startswith("elo_lo_")}):
        rcols += [
            (f"Elo, {size} players", _num(f"elo_{size}p", 0)),
            (f"95% interval ({size}p)", _ci(f"elo_lo_{size}p", f"elo_hi_{size}p", 0)),
        ]
    return {
        "id": "ratings",
        "title": "Ratings",
        "figure": _svg(fig, "ratings"),
        "table": table(r, rcols),
        "note": "One Bradley-Terry model (choix) fitted to every pairwise result of every"
        " match: heads-up games, and games of more seats broken into their pairs of seats of"
        " different rungs (higher score wins, ties half); then one model per table size,"
        " since skill can count for more heads-up than at a full table. Intervals:"
        " bootstrap over games within matches.",
    }


def _steps_section(s) -> dict:
    """Each rung against the one below: heads-up bars and the table of every step."""
    scols = [
        ("upper", lambda x: x["upper"]),
        ("lower", lambda x: x["lower"]),
        ("players", lambda x: str(x["players"])),
        ("upper's share [95%]", lambda x: units.interval(x["share"], x["lo"], x["hi"], "share")),
        ("fair", _pct("fair")),
        ("n", lambda x: f"{x['n']:,}"),
        (
            "pairwise share [95%]",
            lambda x: units.interval(x["pair_share"], x["pair_lo"], x["pair_hi"], "share"),
        ),
        ("model's prediction", _pct("bt_predicted")),
        ("agrees", lambda x: "yes" if x["agrees"] else "no"),
        ("one-model prediction", _pct("bt_pooled")),
        ("counts for depth", lambda x: "yes" if x["counts_for_depth"] else "no"),
    ]
    two = s[(s["players"] == 2) & (s["lower_step"] == s["step"] - 1)]
    fig2 = interval_bars(
        [f"{u} v {lo}" for u, lo in zip(two["upper"], two["lower"], strict=True)],
        two["share"],
        two["lo"],
        two["hi"],
        "upper rung's heads-up win share",
        "Each rung against the one below (heads-up)",
        ref=0.5,
        axis="pct",
    )
    return {
        "id": "steps",
        "title": "Steps",
        "figure": _svg(fig2, "steps"),
        "table": table(s, scols),
        "note": "Seats rotate; at the table size the seats alternate upper, lower, ...; the"
        " fair share is the upper rung's seats over all seats. Pairwise share: the upper rung's"
        " seats' results against the lower rung's seats (higher score wins, ties half; the"
        " interval treats a game as one unit), what the rating models are fitted to. The"
        " model's prediction is the chance for that pair by the ratings of the match's table"
        " size; rows against the rung two below test transitivity: where a prediction falls"
        " outside the interval (agrees: no), one strength per rung does not explain the"
        " results. The one-model prediction uses the ratings fitted to every table size"
        " at once.",
    }


# ---------------------------------------------------------------- sim luck


def build_luck_report(result: LuckResult, out_path=None, force: bool = False) -> Path:
    """Write the `sim luck` page: the deal's share of the variance per policy."""
    return _page("luck", result.study, out_path, force, lambda: _luck_page(result))


def _luck_page(result: LuckResult) -> dict:
    t = result.table
    labels = [
        f"{p} · {'win' if o == 'win_share' else 'lead'}"
        for p, o in zip(t["policy"], t["outcome"], strict=True)
    ]
    fig = interval_bars(
        labels,
        t["deal_share"],
        t["lo"],
        t["hi"],
        "share of outcome variance explained by the deal",
        "Luck gauge (95% bootstrap intervals over deals)",
        axis="pct",
    )
    cols = [
        ("policy", lambda r: r["policy"]),
        ("outcome", lambda r: r["outcome"]),
        ("deal's share", _pct("deal_share")),
        ("95% interval", lambda r: f"[{pct(r['lo'])}, {pct(r['hi'])}]"),
        ("variance: deal", _num("var_deal", 4)),
        ("within deal", _num("var_within", 4)),
        ("deals", lambda r: str(r["deals"])),
        ("replays", lambda r: str(r["replays"])),
    ]
    sections = [
        {
            "id": "luck",
            "title": "Deal's share",
            "figure": _svg(fig, "luck"),
            "table": table(t, cols),
            "note": "Every seat plays the policy. Each deal (shuffle and deal) is replayed"
            " with only the seats' own random streams changed; the share is the intraclass"
            " correlation of a one-way random-effects ANOVA (deal as the random effect),"
            " pooled over seats. Outcomes: a seat's win share, and its lead (score minus"
            " the best other seat's).",
        }
    ]
    return dict(
        title=f"{result.study.name}: luck gauge",
        lead=luck_lead(result),
        command="sim luck",
        intro="How much of the outcome the deal fixes (Goodman et al.).",
        verdict="The deal's share of an outcome's variance is the intraclass correlation of"
        " a one-way random-effects ANOVA over deals (each deal replayed with only the seats' own"
        " random streams changed), with a 95% bootstrap interval over deals.",
        findings=luck_lines(t),
        facts=[("folder", str(result.out_dir))],
        sections=sections,
    )


KINDS = ("value", "ladder", "luck")


def build_causal_report(
    folder: str | Path, kind: str, out_path: str | Path | None = None, force: bool = False
) -> Path:
    """Rebuild the page of a value, ladder or luck folder (`sim report FOLDER`)."""
    if kind == "value":
        return build_value_report(load_value(folder), out_path, force)
    if kind == "ladder":
        return build_ladder_report(load_ladder(folder), out_path, force)
    if kind == "luck":
        return build_luck_report(load_luck(folder), out_path, force)
    raise SimError(f"{folder}: not a value, ladder or luck folder")

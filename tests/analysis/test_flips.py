"""The verdict-flip banner for `sim advise`: said when a bot's verdict and the calibrated
players' differ, silent when they agree."""

from __future__ import annotations

from sim.analysis.flips import Flip, flip_banner, flip_sentences, verdict_flips

FAIRNESS = "first-player advantage"
TENSION = "comebacks"


def test_a_verdict_real_for_greedy_and_not_for_noisy_players_is_flagged():
    """Greedy players give a real first-player edge; calibrated noisy players (their
    mistakes drown it) do not: the banner names the finding, the bot and both verdicts."""
    calibrated = {FAIRNESS: "within noise", TENSION: "real"}
    bots = {"greedy": {FAIRNESS: "real", TENSION: "real"}}
    assert verdict_flips(calibrated, bots) == [Flip(FAIRNESS, "greedy", "real", "within noise")]
    assert flip_banner(calibrated, bots) == (
        "Verdicts that change with the players: first-player advantage: real for greedy,"
        " not for players like yours (within noise)."
    )


def test_no_banner_when_every_level_agrees():
    """Same verdicts under every bot level (case and spaces aside): no flips, no banner."""
    calibrated = {FAIRNESS: "real", TENSION: "within noise"}
    bots = {
        "greedy": {FAIRNESS: "Real", TENSION: "within noise "},
        "heuristic": {FAIRNESS: "real", TENSION: "within noise"},
    }
    assert verdict_flips(calibrated, bots) == []
    assert flip_banner(calibrated, bots) is None


def test_several_bots_and_a_finding_one_side_did_not_measure():
    """Bots with one verdict are named together, bots with another apart; a finding a bot
    did not measure is not a flip."""
    calibrated = {FAIRNESS: "real", TENSION: "within noise", "turn parity": "real"}
    bots = {
        "greedy": {FAIRNESS: "within noise", TENSION: "real"},
        "heuristic": {FAIRNESS: "within noise", TENSION: "unclear"},
    }
    flips = verdict_flips(calibrated, bots)
    assert [(f.finding, f.bot) for f in flips] == [
        (FAIRNESS, "greedy"),
        (FAIRNESS, "heuristic"),
        (TENSION, "greedy"),
        (TENSION, "heuristic"),
    ]
    assert flip_sentences(flips) == [
        "first-player advantage: within noise for greedy and heuristic, real for players like"
        " yours",
        "comebacks: real for greedy, unclear for heuristic, within noise for players like yours",
    ]

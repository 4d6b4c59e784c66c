"""Every verdict word a page or a command prints, defined once: the pages fold this list
under their tests (`_glossary.html.j2`), docs/glossary.md is written from it, and a test
keeps both and the words the code uses in step."""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "✓ (inside)": "a seat-level's (or a target's) whole 95% interval lies inside its band: an"
    " equivalence test passed.",
    "✗ (outside)": "the whole interval lies outside the band: the problem is shown.",
    "? (unclear)": "the interval straddles an edge of the band: more games would tell.",
    "seat-level": "one seat at one skill level of `sim advise`: its win share minus a fair"
    " share (1/players), with its interval.",
    "fair": "every seat-level is ✓.",
    "not fair": "at least one seat-level is ✗.",
    "unclear": "no seat-level is ✗ but some are ?; the answer gives their count.",
    "band": "the range a target's interval must lie in to be met: ±2.5 pp of a fair share for"
    " a seat unless `targets:` says otherwise.",
    "worst seat-level edge": "the largest |edge| of any seat at any level: how far from fair"
    " the game is at its worst.",
    "confirmed": "a fix whose every seat-level is ✓ on fresh games that played no part in"
    " choosing it (at 5% divided by the changes confirmed together).",
    "offered": "a fix that leaves no seat-level further outside its band than the start, on"
    " the same fresh games, and has a smaller worst edge.",
    "group": "what a change acts on: the same number of box or Princess cards added or removed"
    " gives the same turns whatever the kind; toys, spray bottles and rules keep the turns.",
    "as good": "members of a fix's group whose worst edge cannot be told from the best's on"
    " the selection's games.",
    "real": "a difference that its family's multiplicity correction (Holm for headline"
    " metrics, Benjamini-Hochberg for long tables) says is not zero.",
    "within noise": "a difference whose interval holds 0.",
    "within noise after the correction": "a difference whose own 95% interval clears 0 but"
    " whose family's correction does not call it real.",
    "met": "a target whose interval lies inside its band (✓).",
    "missed": "a target whose interval lies outside its band (✗).",
}


def glossary_markdown() -> str:
    """docs/glossary.md's text."""
    lines = ["# Glossary", "", "Every verdict word the pages and commands use.", ""]
    lines += [f"- **{word}**: {text}" for word, text in GLOSSARY.items()]
    return "\n".join(lines) + "\n"

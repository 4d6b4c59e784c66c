"""Rendering only: the pages of every study (figures inline as SVG, no scripts, no network).

A page never plays, compiles or decides: the numbers and verdicts come from
`sim.analysis`, the played parts of a run's page from `sim.studies.run_page`. The
rooms: `canvas` and `chart` (SVG written directly, no matplotlib), the figures on them
(`figures` and `table_picture` of the run page, `interval_figures`, `study_figures`,
`tune_figures`),
`run_report` (a run), `study_report` (sweeps and comparisons), `tune_report`,
`causal_report` (value, ladder, luck), `publish` (a run's page in its folder and
at its shared path), `templates/`.
"""

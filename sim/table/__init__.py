"""Watching and playing single games: replayable logs, the web table, replays and what-ifs.

`record` plays a game decision by decision and writes the `sim play --log` JSON
Lines (format 2: enough to replay it exactly); `logfile` reads a log back and
checks it against the engine; `session` and `server` are the web table of
`sim table`; `replay` turns a run's game or a log into the data of the
`sim replay` page (which `sim.report.replay_page` renders), and `whatif` plays
continuations from a step of it.
"""

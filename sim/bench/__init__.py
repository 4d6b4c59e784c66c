"""Benchmarks: `sim bench` (the engine, the runner, the policies, the report; `engine`) and
`python -m sim.bench.tune` (the tuner against random and grid search; `tune`)."""

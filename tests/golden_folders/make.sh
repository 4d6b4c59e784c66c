#!/bin/bash
# Write the golden set again from the code of TREE (a checkout of this repository): one small
# folder of each kind `sim report` renders, and the visible text of each page that code
# renders (tests/report/test_golden_folders.py). Run it only for a deliberate change of what
# a saved folder says, and say so in the commit.   usage: make.sh TREE
set -euo pipefail
tree=$(cd "$1" && pwd); here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
cat > "$work/tiny.yaml" <<YAML
extends: $tree/configs/base.yaml
name: tiny
games: 300
advise: {games: 400, screen: 100, select: 200, confirm: 400, finalists: 2, budget: 40000, levels: [{policy: random}, {policy: greedy}]}
luck: {deals: 20, replays: 4}
value: {games: 200, options: [cat, sleeping], ablate: [princess, sprayer]}
tune:
  space: {deck.sprayers: [2, 6]}
  targets: {mean_score: {value: 1.0, within: 0.2}}
  budget: {games: 6000, first: 300, confirm: 600, finalists: 2}
YAML
printf 'extends: tiny.yaml\nname: tiny_b\ndeck: {sprayers: 6}\n' > "$work/tiny_b.yaml"
printf 'extends: tiny.yaml\nname: tiny_sweep\nsweep: {deck.sprayers: [2, 4]}\n' > "$work/tiny_sweep.yaml"
cd "$work"
sim() { PYTHONPATH="$tree" python -m sim.cli "$@" --no-report --quiet > /dev/null; }
sim run tiny.yaml --out run; sim sweep tiny_sweep.yaml --out sweep
sim compare tiny.yaml tiny_b.yaml --games 300 --out compare; sim value tiny.yaml --out value
sim luck tiny.yaml --out luck; sim tune tiny.yaml --out tune; sim advise tiny.yaml --out advise
rm -rf advise/{confirm,diagnose,screen,select} tune/{candidates,confirm,select}  # pages read the study files
find . -name .lock -delete
for kind in run sweep compare value luck tune advise; do
  rm -rf "$here/$kind"; cp -r "$kind" "$here/$kind"
  PYTHONPATH="$tree" python -m sim.cli report "$work/$kind" --out "$work/$kind.html" --quiet > /dev/null
  (cd "$here/../.." && python -c "import sys; sys.path.insert(0, 'tests/report'); \
from test_golden_folders import visible; print(visible(open('$work/$kind.html').read(), '$work/$kind'))") \
    > "$here/$kind.txt"
done

#!/usr/bin/env bash
# Does `fsfit advise --image` stay inside --budget? Runs it on a fresh image
# once per budget and prints the budget, the seconds spent measuring (from
# the JSON), the wall time of the whole command (tree walk included) and the
# rounds run. Needs root (it formats and mounts a loop device).
#   bash bench/advise-budget.sh [TREE] [BUDGET...]     e.g. /usr/share/doc 60s 5m
set -euo pipefail
tree=${1:-/usr/share/doc}
shift || true
budgets=("${@:-60s}")
fsfit=${FSFIT:-target/release/fsfit}
work=$(mktemp -d /tmp/fsfit-advise-budget.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '%-8s %-10s %-10s %s\n' budget measuring wall rounds
for b in "${budgets[@]}"; do
    rm -f "$work/try.img"
    start=$(date +%s.%N)
    "$fsfit" advise "$tree" --for windows,macos --quiet --image "$work/try.img" \
        --size 2G --budget "$b" --json "$work/a.json" >/dev/null
    end=$(date +%s.%N)
    python3 - "$work/a.json" "$b" "$start" "$end" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = a["budget"]
rounds = "; ".join(f'{r["round"]}: {len(r["configs"])} at {r["scale"]}' for r in b["rounds"])
print(f'{sys.argv[2]:<8} {b["spent_seconds"]:<10.0f} {float(sys.argv[4]) - float(sys.argv[3]):<10.0f} {rounds}')
PY
done

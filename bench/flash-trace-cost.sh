#!/usr/bin/env bash
# What tracing costs a bench run (#18; goal: at most 10 % of its host time).
# The same fixed-scale ext4 runs (no sizing by time, so both sides do the
# same work) without and with --flash, alternated PAIRS times; prints the
# sum of the workloads' host medians for each side, and the trace reader
# thread's CPU time per run. Run as root, on a quiet machine.
set -euo pipefail
FSFIT=${FSFIT:-target/release/fsfit}
PAIRS=${PAIRS:-3}
W=${W:-single-write,small-write,tiny-write,small-read,tiny-read,scan}
out=$(mktemp -d)
for i in $(seq "$PAIRS"); do
  for mode in plain flash; do
    extra=(); [ "$mode" = flash ] && extra=(--flash usb2-stick)
    "$FSFIT" -q bench --fs ext4 --workloads "$W" --scale 0.2 --repeat 3 "${extra[@]}" \
      --json "$out/$mode-$i.json" > /dev/null
  done
done
python3 - "$out" "$PAIRS" <<'PY'
import json, sys
out, pairs = sys.argv[1], int(sys.argv[2])
tot = {"plain": 0.0, "flash": 0.0}
reader = runs = 0.0
for i in range(1, pairs + 1):
    for mode in tot:
        d = json.load(open(f"{out}/{mode}-{i}.json"))
        for w in d["results"][0]["workloads"]:
            tot[mode] += w["median_seconds"]
            for r in w["runs"]:
                if "trace_cpu_s" in r:
                    reader += r["trace_cpu_s"]; runs += r["seconds"]
print(f"host medians summed: plain {tot['plain']:.2f} s, flash {tot['flash']:.2f} s, "
      f"ratio {tot['flash'] / tot['plain']:.3f}")
if runs:
    print(f"trace reader CPU: {reader:.3f} s over {runs:.2f} s of traced runs ({100 * reader / runs:.1f} %)")
PY
rm -rf "$out"

#!/usr/bin/env bash
# `fsfit bench --quick` on a 4 GiB image while exactly one other build runs,
# as the goal for a machine doing other things is stated: one other
# `cargo build --release` of this repository (from a copy, its own target
# folder) loops beside every run; each run's JSON is summarised by
# bench/quick-summary.py (figures at CV <= 10 %, figures on a run under 0.1 s,
# noisy figures flagged). With two binaries the runs alternate ABBA, so that
# the load's drift falls on both alike.
# Usage (root): bench/quick-busy.sh OUTDIR FSFIT [FSFIT_BEFORE] [ROUNDS]
#   ROUNDS: how many ABBA rounds (default 1), or runs with one binary.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$1 A=$2 B=${3:-} ROUNDS=${4:-1}
mkdir -p "$OUT"
OTHER=$(mktemp -d)
git archive HEAD | tar -x -C "$OTHER"
echo "one other build: $OTHER (first build, untimed)" >&2
(cd "$OTHER" && cargo build --release --quiet)
(
  cd "$OTHER"
  while [ ! -e stop ]; do
    touch src/main.rs src/lib.rs
    cargo build --release --quiet >/dev/null 2>&1 || true
  done
) &
LOOP=$!
finish() { touch "$OTHER/stop"; wait "$LOOP" 2>/dev/null || true; rm -rf "$OTHER" "$OUT/img"; }
trap finish EXIT
sleep 20
one() {
  local name=$1 bin=$2 start load0
  rm -f "$OUT/img"
  start=$(date +%s) load0=$(cut -d' ' -f1 /proc/loadavg)
  "$bin" bench --image "$OUT/img" --size 4G --quick --fs ext4 --fs exfat:32K \
    --json "$OUT/$name.json" -q >"$OUT/$name.out" 2>"$OUT/$name.err"
  echo "$name ($bin): $(($(date +%s) - start)) s, load $load0 -> $(cut -d' ' -f1 /proc/loadavg)"
  python3 bench/quick-summary.py "$OUT/$name.json"
}
for ((r = 1; r <= ROUNDS; r++)); do
  if [ -z "$B" ]; then
    one "run$r" "$A"
  else
    one "after$r-1" "$A"
    one "before$r-1" "$B"
    one "before$r-2" "$B"
    one "after$r-2" "$A"
  fi
done

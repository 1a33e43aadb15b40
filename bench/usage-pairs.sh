#!/usr/bin/env bash
# fsfit usage against diskus on one tree, in alternating pairs (fsfit first
# in even pairs, diskus first in odd ones), warm cache: per pair the wall
# time and the CPU time (user + system) of each, then the medians of the
# per-pair ratios fsfit/diskus and how many cores each kept busy (CPU time
# over wall time). Ratios taken pair by pair hold better than absolute
# times on a shared machine, but only a quiet machine gives the figure to
# quote. Usage: bench/usage-pairs.sh [TREE] [PAIRS]  (/usr, 15)
# Env: FSFIT=path (a built fsfit; default: cargo build --release),
#      FSFIT_ARGS="--json" (what fsfit usage is given besides TREE).
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=${1:-/usr}
PAIRS=${2:-15}
FSFIT_ARGS=${FSFIT_ARGS---json}
if [ -z "${FSFIT:-}" ]; then
  cargo build --release --quiet
  FSFIT=$PWD/target/release/fsfit
fi
command -v diskus >/dev/null || cargo install --quiet diskus

# One run: "wall cpu" in seconds, to the millisecond (bash's own timer:
# /usr/bin/time rounds to 10 ms, 5 % of a 0.2 s run).
timed() {
  local TIMEFORMAT='%3R %3U %3S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{printf "%s %.3f\n", $1, $2 + $3}' <<<"$t"
}
run() {
  # shellcheck disable=SC2086
  case $1 in
    fsfit) timed "$FSFIT" usage "$TREE" $FSFIT_ARGS --quiet ;;
    diskus) timed diskus "$TREE" ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

run fsfit >/dev/null; run diskus >/dev/null   # warm the cache
wall_r="" cpu_r="" f_busy="" d_busy=""
for ((i = 0; i < PAIRS; i++)); do
  if ((i % 2)); then
    d=$(run diskus); f=$(run fsfit)
  else
    f=$(run fsfit); d=$(run diskus)
  fi
  read -r fw fc <<<"$f"
  read -r dw dc <<<"$d"
  wall_r+="$(awk -v a="$fw" -v b="$dw" 'BEGIN{print (b>0)?a/b:0}') "
  cpu_r+="$(awk -v a="$fc" -v b="$dc" 'BEGIN{print (b>0)?a/b:0}') "
  f_busy+="$(awk -v c="$fc" -v w="$fw" 'BEGIN{print (w>0)?c/w:0}') "
  d_busy+="$(awk -v c="$dc" -v w="$dw" 'BEGIN{print (w>0)?c/w:0}') "
  echo "pair $((i + 1)): fsfit ${fw}s wall ${fc}s CPU   diskus ${dw}s wall ${dc}s CPU"
done
m() { echo "$1" | tr ' ' '\n' | grep . | median; }
echo "tree $TREE, $PAIRS alternating pairs, warm cache, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fsfit usage $TREE $FSFIT_ARGS"
echo "wall fsfit/diskus, median of per-pair ratios: $(m "$wall_r")"
echo "CPU  fsfit/diskus, median of per-pair ratios: $(m "$cpu_r")"
echo "cores kept busy (CPU / wall), medians: fsfit $(m "$f_busy"), diskus $(m "$d_busy")"

#!/usr/bin/env bash
# fsfit usage against du -s, diskus and gdu on the same tree, warm cache,
# alternating runs, medians of the per-round ratios; then manifests of
# 1M, 3M and 10M files (find's listing form, generated: the same engine as a
# walk without creating the files): time and peak RSS; then a generated
# 1,000,000-file tree. Usage: bench/usage.sh [TREE] [ROUNDS]  (/usr, 9)
# Env: FSFIT=path (a built fsfit; default: cargo build --release),
#      MANIFEST_FILES="1000000 3000000 10000000" ("" skips),
#      BIG_TREE=DIR (where the 1M-file tree goes, default /tmp/fsfit-1m),
#      BIG_FILES=N (default 1000000), SKIP_BIG=1 to skip that part,
#      BIG_EMPTY=1: 9 in 10 files empty, the rest 100 B (a 10M-file tree
#      that fits a disk: BIG_FILES=10000000 BIG_EMPTY=1).
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=${1:-/usr}
ROUNDS=${2:-9}
BIG_TREE=${BIG_TREE:-/tmp/fsfit-1m}
BIG_FILES=${BIG_FILES:-1000000}

if [ -z "${FSFIT:-}" ]; then
  cargo build --release --quiet
  FSFIT=$PWD/target/release/fsfit
fi
MANIFEST_FILES=${MANIFEST_FILES-1000000 3000000 10000000}
command -v diskus >/dev/null || cargo install --quiet diskus
command -v gdu >/dev/null || apt-get install -y -qq gdu >/dev/null || true
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

declare -A T
tools=(fsfit du diskus)
command -v gdu >/dev/null && tools+=(gdu)
run() {
  case $1 in
    fsfit) "$FSFIT" usage "$TREE" --json --quiet >/dev/null ;;
    du) du -s "$TREE" >/dev/null ;;
    diskus) diskus "$TREE" >/dev/null 2>&1 ;;
    gdu) gdu -n -s -p "$TREE" >/dev/null 2>&1 ;;
  esac
}
for t in "${tools[@]}"; do run "$t"; done   # warm the cache
declare -A R
for ((i = 0; i < ROUNDS; i++)); do
  # Alternate the order: even rounds as listed, odd rounds reversed.
  order=("${tools[@]}")
  ((i % 2)) && order=($(printf '%s\n' "${tools[@]}" | tac))
  declare -A this
  for t in "${order[@]}"; do
    s=$(now); run "$t"; e=$(now)
    this[$t]=$(awk -v a="$s" -v b="$e" 'BEGIN{print b-a}')
    T[$t]+="${this[$t]} "
  done
  for t in "${tools[@]}"; do
    R[$t]+="$(awk -v f="${this[fsfit]}" -v o="${this[$t]}" 'BEGIN{print f/o}') "
  done
  echo "round $((i + 1)): $(for t in "${tools[@]}"; do printf '%s %ss  ' "$t" "${this[$t]}"; done)"
done
configs=$("$FSFIT" usage "$TREE" --json --quiet | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["configs"]))')
entries=$(find "$TREE" -xdev | wc -l)
echo "tree: $TREE ($entries entries), $ROUNDS alternating rounds, warm cache, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "fsfit evaluates $configs configs (every default config)"
for t in "${tools[@]}"; do
  m=$(echo "${T[$t]}" | tr ' ' '\n' | grep . | median)
  r=$(echo "${R[$t]}" | tr ' ' '\n' | grep . | median)
  printf "%-7s median %ss   fsfit/%s median of per-round ratios %s\n" "$t" "$m" "$t" "$r"
done

if [ -n "$MANIFEST_FILES" ]; then
  # A find -printf '%y %s %T@ %P\0' listing, 1000 files per folder, 100
  # folders per top folder, generated (no files are created).
  for n in $MANIFEST_FILES; do
    list=${TMPDIR:-/tmp}/fsfit-manifest-$n.find
    [ -f "$list" ] || python3 - "$n" >"$list" <<'PY'
import sys
n = int(sys.argv[1]); per_dir = 1000
sizes = [0, 1, 100, 700, 1500, 4096, 5000, 12000, 40000, 300]
out = sys.stdout.buffer; buf = []
for i in range(n):
    top, sub = i // (per_dir * 100), (i // per_dir) % 100
    if i % (per_dir * 100) == 0:
        buf.append(b"d 4096 1700000000.0 d%03d\0" % top)
    if i % per_dir == 0:
        buf.append(b"d 4096 1700000000.0 d%03d/s%03d\0" % (top, sub))
    buf.append(b"f %d 1700000001.5 d%03d/s%03d/file_%07d.dat\0" % (sizes[i % 10], top, sub, i))
    if len(buf) >= 10000:
        out.write(b"".join(buf)); buf = []
out.write(b"".join(buf))
PY
    out=$( { /usr/bin/time -f "%e s elapsed, %U s user, %M KiB max RSS" "$FSFIT" usage --manifest "$list" --json --quiet >/dev/null; } 2>&1 )
    printf "manifest of %9d files: %s\n" "$n" "$out"
  done
fi

[ "${SKIP_BIG:-0}" = 1 ] && exit 0
if [ ! -f "$BIG_TREE/.complete-$BIG_FILES" ]; then
  echo "generating $BIG_FILES files under $BIG_TREE ..."
  rm -rf "$BIG_TREE"
  python3 - "$BIG_TREE" "$BIG_FILES" "${BIG_EMPTY:-0}" <<'PY'
import os, sys
root, n, empty = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
per_dir = 1000
sizes = [0, 1, 100, 700, 1500, 4096, 5000, 12000, 40000, 300]
if empty:
    sizes = [0] * 9 + [100]
buf = os.urandom(40000)
for i in range(n):
    d = os.path.join(root, f"d{i // (per_dir * 100):03d}", f"s{(i // per_dir) % 100:03d}")
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    fd = os.open(os.path.join(d, f"file_{i:07d}.dat"), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, buf[: sizes[i % len(sizes)]])
    os.close(fd)
PY
  touch "$BIG_TREE/.complete-$BIG_FILES"
fi
echo "1M-file tree: $BIG_TREE"
big_cmd() {
  case $1 in
    fsfit) cmd=("$FSFIT" usage "$BIG_TREE" --json --quiet) ;;
    du) cmd=(du -s "$BIG_TREE") ;;
    diskus) cmd=(diskus "$BIG_TREE") ;;
  esac
}
for t in fsfit du diskus; do big_cmd "$t"; "${cmd[@]}" >/dev/null 2>&1; done   # warm the cache
for round in 1 2 3; do
  for t in fsfit du diskus; do
    big_cmd "$t"
    /usr/bin/time -o "$BIG_TREE.time" -f "%e s elapsed, %U s user, %S s system, %M KiB max RSS" "${cmd[@]}" >/dev/null 2>&1
    printf "round %d %-7s %s\n" "$round" "$t" "$(cat "$BIG_TREE.time")"
  done
done

#!/usr/bin/env bash
# fsfit usage against du -s and diskus on the same tree, warm cache,
# alternating runs, medians; then a generated 1,000,000-file tree: time and
# peak RSS. Usage: bench/usage.sh [TREE] [ROUNDS]   (defaults: /usr, 9)
# Env: BIG_TREE=DIR (where the 1M-file tree goes, default /tmp/fsfit-1m),
#      BIG_FILES=N (default 1000000), SKIP_BIG=1 to skip that part.
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=${1:-/usr}
ROUNDS=${2:-9}
BIG_TREE=${BIG_TREE:-/tmp/fsfit-1m}
BIG_FILES=${BIG_FILES:-1000000}

cargo build --release --quiet
FSFIT=$PWD/target/release/fsfit
command -v diskus >/dev/null || cargo install --quiet diskus
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

declare -A T
tools=(fsfit du diskus)
run() {
  case $1 in
    fsfit) "$FSFIT" usage "$TREE" --json --quiet >/dev/null ;;
    du) du -s "$TREE" >/dev/null ;;
    diskus) diskus "$TREE" >/dev/null 2>&1 ;;
  esac
}
for t in "${tools[@]}"; do run "$t"; done   # warm the cache
for ((i = 0; i < ROUNDS; i++)); do
  for t in "${tools[@]}"; do
    s=$(now); run "$t"; e=$(now)
    T[$t]+="$(awk -v a="$s" -v b="$e" 'BEGIN{print b-a}') "
  done
done
configs=$("$FSFIT" usage "$TREE" --json --quiet | grep -c '"fs":')
entries=$(find "$TREE" -xdev | wc -l)
echo "tree: $TREE ($entries entries), $ROUNDS alternating rounds, warm cache, $(nproc) cores"
echo "fsfit evaluates $configs configs (every default config)"
for t in "${tools[@]}"; do
  m=$(echo "${T[$t]}" | tr ' ' '\n' | grep . | median)
  printf "%-7s median %ss\n" "$t" "$m"
  eval "M_$t=$m"
done
awk -v f="$M_fsfit" -v d="$M_du" -v k="$M_diskus" \
  'BEGIN{printf "fsfit/du = %.2f   fsfit/diskus = %.2f   (below 1: fsfit faster)\n", f/d, f/k}' 

[ "${SKIP_BIG:-0}" = 1 ] && exit 0
if [ ! -f "$BIG_TREE/.complete-$BIG_FILES" ]; then
  echo "generating $BIG_FILES files under $BIG_TREE ..."
  rm -rf "$BIG_TREE"
  python3 - "$BIG_TREE" "$BIG_FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per_dir = 1000
sizes = [0, 1, 100, 700, 1500, 4096, 5000, 12000, 40000, 300]
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
for t in fsfit du; do run_big() { if [ "$t" = fsfit ]; then "$FSFIT" usage "$BIG_TREE" --json --quiet >/dev/null; else du -s "$BIG_TREE" >/dev/null; fi; }; run_big; done
for t in fsfit du; do
  if [ "$t" = fsfit ]; then cmd=("$FSFIT" usage "$BIG_TREE" --json --quiet); else cmd=(du -s "$BIG_TREE"); fi
  out=$( { /usr/bin/time -f "%e s elapsed, %M KiB max RSS" "${cmd[@]}" >/dev/null; } 2>&1 )
  printf "%-7s %s\n" "$t" "$out"
done

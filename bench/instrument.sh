#!/usr/bin/env bash
# Is fsfit bench's instrument the bottleneck? On one fully written ext4 loop
# volume (direct I/O), round after round:
#   single-write MB/s  vs  fio --rw=write --bs=1M --size=1G --end_fsync=1 --fallocate=none
#                      (fio's default preallocates the file before its clock
#                      starts; fsfit, like cp, allocates while it writes)
#   tiny-write files/s vs  tar -x of the same 10,000 files of 1 KiB, then sync
# Fair by construction: the order of the two tools alternates between rounds
# (even rounds fsfit first, odd rounds fio/tar first), every round is printed
# with its own ratio, and the figure is the MEDIAN OF PER-ROUND RATIOS, so a
# slow phase of the machine hits both sides of a ratio. The per-round ratios
# are also split by who went first, which is how the first-run effect shows.
#
# Usage: sudo bench/instrument.sh [ROUNDS] (default 8, even). Needs root and fio
# (scripts/install-deps installs it).
#   LAZY=1 keeps mkfs.ext4's lazy inode-table and journal init, to see the
#          background zeroing (ext4lazyinit) that the first rounds pay for.
#   CHECKPOINT=1 also freezes and thaws the volume in each quiesce (forces
#          the journal checkpoint of the previous run's deletes).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-8}
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
cargo build --release --quiet
FSFIT=$PWD/target/release/fsfit

WORK=$(mktemp -d /tmp/fsfit-instrument-XXXX)
IMG=$WORK/vol.img
MNT=$WORK/mnt
mkdir -p "$MNT"
# Fully written, not sparse: on a sparse image the host filesystem allocates
# on first write, and whichever tool lands on never-written blocks (a new
# directory lands elsewhere on ext4) measures the host, not itself.
dd if=/dev/zero of="$IMG" bs=1M count=4096 status=none conv=fsync
if [[ ${LAZY:-0} == 1 ]]; then
  mkfs.ext4 -q -F "$IMG"
else
  # Without this, mkfs leaves the inode tables and journal to be zeroed by a
  # kernel thread after the first mount, competing with the first rounds.
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$IMG"
fi
LOOP=$(losetup -f --show --direct-io=on "$IMG")
cleanup() { umount "$MNT" 2>/dev/null || true; losetup -d "$LOOP" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mount "$LOOP" "$MNT"
echo "loop $LOOP direct I/O: $(cat /sys/block/${LOOP#/dev/}/loop/dio)  load: $(cut -d' ' -f1-3 /proc/loadavg)"

# The 10,000 files tar extracts: the same sizes fsfit's tiny-write writes.
SRC=$WORK/tiny-src
mkdir -p "$SRC"
python3 - "$SRC" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(10000):
    d = os.path.join(root, f"d{i // 500:04d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:06d}.bin"), "wb") as f:
        f.write(os.urandom(1024))
PY
tar -cf "$WORK/tiny.tar" -C "$SRC" .

# After removing the last run's files, sync commits the journal but ext4
# checkpoints it (writes the metadata home) later, inside whoever writes
# next. CHECKPOINT=1 forces that checkpoint with fsfreeze, to test whether it
# is what the first tool of a round pays for (BENCHMARKS.md: it is not all).
quiesce() {
  rm -rf "${MNT:?}"/* ; sync
  if [[ ${CHECKPOINT:-0} == 1 ]]; then fsfreeze -f "$MNT"; fsfreeze -u "$MNT"; fi
  echo 3 > /proc/sys/vm/drop_caches
}
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); w=r['results'][0]['workloads'][0]; print(w[sys.argv[2]])" "$@"; }
fio_mb() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['jobs'][0]['write']['bw_bytes']/1e6)" "$1"; }

fsfit_write() { quiesce; "$FSFIT" bench -q --dir "$MNT" --workloads single-write --scale 1 --repeat 1 --json "$WORK/s.json" >/dev/null; field "$WORK/s.json" mb_per_s; }
fio_write() {
  quiesce
  fio --name=w --filename="$MNT/fio.bin" --rw=write --bs=1M --size=1G --end_fsync=1 \
      --fallocate=none --output-format=json > "$WORK/fio.json"
  fio_mb "$WORK/fio.json"
}
fsfit_tiny() { quiesce; "$FSFIT" bench -q --dir "$MNT" --workloads tiny-write --scale 1 --repeat 1 --json "$WORK/t.json" >/dev/null; field "$WORK/t.json" files_per_s; }
tar_tiny() { quiesce; mkdir "$MNT/t"; local s e; s=$(now); tar -xf "$WORK/tiny.tar" -C "$MNT/t"; sync; e=$(now); awk -v a="$s" -v b="$e" 'BEGIN{print 10000/(b-a)}'; }

W_RATIO=(); W_FIRST=(); W_SECOND=(); T_RATIO=(); F_MB=(); O_MB=(); F_FPS=(); T_FPS=()
printf '%-5s %-6s %10s %10s %7s   %10s %10s %7s\n' round first "fsfit MB/s" "fio MB/s" ratio "fsfit f/s" "tar f/s" ratio
for ((i = 0; i < ROUNDS; i++)); do
  if ((i % 2 == 0)); then
    first=fsfit; f=$(fsfit_write); o=$(fio_write); ff=$(fsfit_tiny); tf=$(tar_tiny)
  else
    first=other; o=$(fio_write); f=$(fsfit_write); tf=$(tar_tiny); ff=$(fsfit_tiny)
  fi
  r=$(awk -v a="$f" -v b="$o" 'BEGIN{printf "%.3f", a/b}')
  rt=$(awk -v a="$ff" -v b="$tf" 'BEGIN{printf "%.3f", a/b}')
  F_MB+=("$f"); O_MB+=("$o"); F_FPS+=("$ff"); T_FPS+=("$tf"); W_RATIO+=("$r"); T_RATIO+=("$rt")
  if [[ $first == fsfit ]]; then W_FIRST+=("$r"); else W_SECOND+=("$r"); fi
  printf '%-5s %-6s %10.1f %10.1f %7s   %10.0f %10.0f %7s\n' "$i" "$first" "$f" "$o" "$r" "$ff" "$tf" "$rt"
done
echo
echo "ext4 on a fully written 4 GiB loop image (direct I/O), CHECKPOINT=${CHECKPOINT:-0} LAZY=${LAZY:-0}, $ROUNDS rounds alternating who goes first, $(nproc) cores, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "single-write: medians fsfit $(printf '%s\n' "${F_MB[@]}" | median) MB/s, fio --fallocate=none $(printf '%s\n' "${O_MB[@]}" | median) MB/s"
echo "  median of per-round ratios fsfit/fio: $(printf '%s\n' "${W_RATIO[@]}" | median)  (goal >= 0.97)"
echo "  rounds where fsfit went first: $(printf '%s\n' "${W_FIRST[@]}" | median); where fio went first: $(printf '%s\n' "${W_SECOND[@]}" | median)"
echo "tiny-write: medians fsfit $(printf '%s\n' "${F_FPS[@]}" | median) files/s, tar+sync $(printf '%s\n' "${T_FPS[@]}" | median) files/s"
echo "  median of per-round ratios fsfit/tar: $(printf '%s\n' "${T_RATIO[@]}" | median)  (goal >= 1.0)"

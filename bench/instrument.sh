#!/usr/bin/env bash
# Is fsfit bench's instrument the bottleneck? On one freshly made ext4 loop
# volume, alternating runs:
#   single-write MB/s  vs  fio --rw=write --bs=1M --size=1G --end_fsync=1
#                      and the same fio with --fallocate=none (fio's default
#                      preallocates the file before its clock starts; fsfit,
#                      like cp, allocates while it writes)
#   tiny-write files/s vs  tar -x of the same 10,000 files of 1 KiB, then sync
# Prints medians and the ratios fsfit/fio (goal >= 0.97) and fsfit/tar (goal >= 1.0).
# Usage: sudo bench/instrument.sh [ROUNDS]   (default 5). Needs root (loop, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
command -v fio >/dev/null || apt-get install -y -qq fio >/dev/null
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
mkfs.ext4 -q -F "$IMG"
LOOP=$(losetup -f --show --direct-io=on "$IMG")
cleanup() { umount "$MNT" 2>/dev/null || true; losetup -d "$LOOP" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mount "$LOOP" "$MNT"

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

quiesce() { rm -rf "$MNT"/* ; sync; echo 3 > /proc/sys/vm/drop_caches; }
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); w=r['results'][0]['workloads'][0]; print(w[sys.argv[2]])" "$@"; }

F_MB=() ; FIO_MB=() ; FIO_NF_MB=() ; F_FPS=() ; TAR_FPS=()
fio_mb() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['jobs'][0]['write']['bw_bytes']/1e6)" "$1"; }
for ((i = 0; i < ROUNDS; i++)); do
  quiesce
  "$FSFIT" bench -q --dir "$MNT" --workloads single-write --scale 1 --repeat 1 --json "$WORK/s.json" >/dev/null
  F_MB+=("$(field "$WORK/s.json" mb_per_s)")
  quiesce
  fio --name=w --filename="$MNT/fio.bin" --rw=write --bs=1M --size=1G --end_fsync=1 \
      --output-format=json > "$WORK/fio.json"
  FIO_MB+=("$(fio_mb "$WORK/fio.json")")
  quiesce
  fio --name=w --filename="$MNT/fio.bin" --rw=write --bs=1M --size=1G --end_fsync=1 \
      --fallocate=none --output-format=json > "$WORK/fio.json"
  FIO_NF_MB+=("$(fio_mb "$WORK/fio.json")")
  quiesce
  "$FSFIT" bench -q --dir "$MNT" --workloads tiny-write --scale 1 --repeat 1 --json "$WORK/t.json" >/dev/null
  F_FPS+=("$(field "$WORK/t.json" files_per_s)")
  quiesce
  mkdir "$MNT/t"
  s=$(now); tar -xf "$WORK/tiny.tar" -C "$MNT/t"; sync; e=$(now)
  TAR_FPS+=("$(awk -v a="$s" -v b="$e" 'BEGIN{print 10000/(b-a)}')")
done
fm=$(printf '%s\n' "${F_MB[@]}" | median); om=$(printf '%s\n' "${FIO_MB[@]}" | median)
nm=$(printf '%s\n' "${FIO_NF_MB[@]}" | median)
ff=$(printf '%s\n' "${F_FPS[@]}" | median); tf=$(printf '%s\n' "${TAR_FPS[@]}" | median)
echo "ext4 on a 4 GiB loop image (direct I/O), $ROUNDS alternating rounds, $(nproc) cores, kernel $(uname -r)"
echo "single-write: fsfit ${fm} MB/s  fio ${om} MB/s  fio --fallocate=none ${nm} MB/s"
echo "  runs: fsfit ${F_MB[*]}"
echo "        fio ${FIO_MB[*]}"
echo "        fio --fallocate=none ${FIO_NF_MB[*]}"
echo "tiny-write:   fsfit ${ff} files/s  tar+sync ${tf} files/s   runs: fsfit ${F_FPS[*]} | tar ${TAR_FPS[*]}"
awk -v a="$fm" -v b="$om" -v n="$nm" -v c="$ff" -v d="$tf" \
  'BEGIN{printf "fsfit/fio = %.3f, fsfit/fio-no-fallocate = %.3f (goal >= 0.97)   fsfit/tar = %.3f (goal >= 1.0)\n", a/b, a/n, c/d}'

#!/usr/bin/env bash
# fsfit crash: crash states judged per second, per filesystem, and the
# effect of --jobs, on 64 MiB images (XFS 320 MiB, btrfs 128 MiB: the
# smallest their mkfs accepts). Each state: build its image incrementally,
# mount read-only (replaying the journal), read every file the oracle knows,
# unmount, run the checker read-only. Root; images only, never a device.
# Usage: sudo bash bench/crash.sh [WORKLOADS]   (default: save,append)
set -euo pipefail
cd "$(dirname "$0")/.."
WORKLOADS=${1:-save,append}
cargo build --release --quiet
FSFIT=$PWD/target/release/fsfit
OUT=$(mktemp -d /tmp/fsfit-crash-bench.XXXXXX)
export FSFIT_STATE_DIR=$OUT/state
trap 'FSFIT_STATE_DIR=$OUT/state "$FSFIT" cleanup >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT

rate() { # JSON -> "states images seconds states/s" summed over its results
  python3 -c '
import json,sys
r=json.load(open(sys.argv[1]))["results"]
s=sum(x["states"] for x in r); i=sum(x.get("images",0) for x in r); t=sum(x["seconds"] for x in r)
print(f"{s} {i} {t:.1f} {s/t if t else 0:.1f}")' "$1"
}

printf '%-8s %-7s %5s %7s %7s %8s %9s\n' fs driver jobs states images seconds states/s
for cfg in ext4:4K/kernel ext4:4K/kernel/1 xfs/kernel btrfs/kernel exfat/fuse ntfs/fuse; do
  IFS=/ read -r fs driver jobs <<<"$cfg"
  jobs=${jobs:-2}
  j=$OUT/$RANDOM.json
  "$FSFIT" -q crash --fs "$fs" --driver "$driver" --jobs "$jobs" --quick --workloads "$WORKLOADS" \
    --run-dir "$OUT/runs" --json "$j" >/dev/null 2>&1 || { echo "$fs $driver: failed"; continue; }
  read -r s i t r <<<"$(rate "$j")"
  printf '%-8s %-7s %5s %7s %7s %8s %9s\n' "${fs%%:*}" "$driver" "$jobs" "$s" "$i" "$t" "$r"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

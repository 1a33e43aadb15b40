#!/usr/bin/env bash
# fsfit crash, two builds side by side: the same command run alternately
# with BEFORE and AFTER (ROUNDS times each, default 3, interleaved), so that the ratio holds
# on a machine other builds share. Prints states/s and the mean seconds of
# each step per state (the JSON's step_seconds; absent in builds without it).
# Usage: sudo bash bench/crash-ab.sh BEFORE_BIN AFTER_BIN [CONFIG...]
#   CONFIG: FS/WORKLOADS, default ext4:4K/copy,save,append,reorganize
#           xfs/save,append btrfs/save,append
set -euo pipefail
BEFORE=$1 AFTER=$2
shift 2
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(ext4:4K/copy,save,append,reorganize xfs/save,append btrfs/save,append)
OUT=$(mktemp -d /tmp/fsfit-crash-ab.XXXXXX)
export FSFIT_STATE_DIR=$OUT/state
trap '"$AFTER" cleanup >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT

show() { # LABEL JSON
  python3 -c '
import json,sys
r=json.load(open(sys.argv[2]))["results"]
s=sum(x["states"] for x in r); i=sum(x.get("images",0) for x in r); t=sum(x["seconds"] for x in r)
st={}
for x in r:
  for k,v in x.get("step_seconds",{}).items(): st[k]=st.get(k,0)+v*x["states"]
steps=" ".join(f"{k}={v/s*1000:.2f}ms" for k,v in st.items() if v) if s else ""
print(f"{sys.argv[1]:<22} states={s} images={i} seconds={t:.1f} states/s={s/t if t else 0:.1f} {steps}")' "$1" "$2"
}

for cfg in "${CONFIGS[@]}"; do
  fs=${cfg%%/*} w=${cfg#*/}
  for round in $(seq 1 "${ROUNDS:-3}"); do
    for which in before after; do
      bin=$BEFORE; [ $which = after ] && bin=$AFTER
      j=$OUT/$which-$round.json
      "$bin" -q crash --fs "$fs" --jobs 2 --quick --seed 7 --workloads "$w" \
        --run-dir "$OUT/runs-$which-$round" --json "$j" >/dev/null 2>&1 || { echo "$fs $which: failed"; continue; }
      show "${fs%%:*} $which #$round" "$j"
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

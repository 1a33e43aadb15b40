#!/usr/bin/env bash
# The emulated flash device (#18): `fsfit probe` and the real flashbench on
# a profile served by `fsfit emulate` (default usb2-stick, the 2-open-AU
# stick). Every figure is simulated: the profile's, not a real device's.
#   sudo bash bench/flash-device.sh [PROFILE]
# fsfit's own replay of flashbench --open-au (emulated and model-only):
#   cargo test --test it flash_device::flashbench_open_au -- --nocapture
set -euo pipefail
FSFIT=${FSFIT:-target/debug/fsfit}
profile=${1:-usb2-stick}
dir=$(mktemp -d)
"$FSFIT" emulate "$profile" "$dir/stick.img" --size 256M >"$dir/dev" 2>"$dir/log" &
pid=$!
trap 'kill -INT $pid; wait $pid || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/dev" ] && break; sleep 0.1; done
dev=$(cat "$dir/dev")
echo "== fsfit probe $dev (emulated $profile)"
time "$FSFIT" probe "$dev"
command -v flashbench >/dev/null || { echo "no flashbench (apt-get install flashbench)"; exit 0; }
# flashbench fails with "Invalid argument" on a read-only stdin: give it /dev/null read-write.
echo "== flashbench -a"
flashbench -a "$dev" --blocksize=1024 0<>/dev/null
for n in 2 3; do
  echo "== flashbench --open-au --open-au-nr=$n"
  flashbench -O --erasesize=$((4 << 20)) --blocksize=$((256 << 10)) "$dev" --open-au-nr=$n 0<>/dev/null
done

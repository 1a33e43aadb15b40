#!/usr/bin/env bash
# Replay speed of the flash model (#18): trace records per second through
# every profile (goal: at least 5 million). Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example flash_replay

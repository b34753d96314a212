#!/usr/bin/env bash
# Device run 194: what queueing a block's 12 small launches costs a host thread, T threads of one
# process each driving a GPU against T processes, direct launches against a CUDA graph
# (docs/measurements/2026-11-28-launch-cost.cu, built into build-pack/launch-cost).
set -u
X=build-pack/launch-cost
nvidia-smi --query-gpu=name --format=csv,noheader
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
for mode in direct graph-set graph; do
  timeout 60 $X 1 $mode
  timeout 60 $X $G $mode
  echo "$G processes, one thread each, $mode:"
  for d in $(seq 0 $((G-1))); do CUDA_VISIBLE_DEVICES=$d timeout 60 $X 1 $mode & done; wait
done

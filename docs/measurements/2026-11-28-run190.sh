#!/usr/bin/env bash
# Device run 190 (nvidia-h100-x2): the block clock shared by the integrator and the GPU engine
# (block_clock.hpp) on the GPUs: the Hermite, block-steps and two-GPU tests; Hermite4 128K on one and
# two GPUs with --profile (no rows for phases the run never entered); a headless frame of the
# viewer's Hermite run of 131,072 stars on the GPU, 150 frames, with its screenshot.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*:Hermite*:TwoGpus.*'
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
SHOW="bodies to t|profile|  [a-z]"
step h128k-1 60 $D/nbody $H --profile
step h128k-2 60 $D/nbody $H --gpus 2 --profile
step h128k-1-host 60 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $H --profile
V="view --headless --backend cuda --scene $PWD/scenes/star-cluster-kroupa.toml --bodies 131072 --frames 150 --size 1280x720"
SHOW="frames/s|blocks|t = |energy|rror"
step view-gpu 90 $D/nbody $V --screenshot $OUT/view-hermite-131072.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

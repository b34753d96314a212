#!/usr/bin/env bash
# Device run 142 (nvidia-h100-x2): the collective held until every GPU's share is done (PeerGate, restored) with the
# deposit in GL on the drawing GPU (--sprites compute): run 136 had that GPU's GL deposit at 10.8 ms a frame beside
# the loop against 3.6 ms in it, time-sliced with a CUDA context whose NCCL kernel busy-waited for most of each step.
# Against the head without the gate (build-pack/r141.tar.xz), alternately, 16M tree, two GPUs, 1080p, 600 frames.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/r141.tar.xz -C .pkb; B=$PWD/.pkb/bin
printf '#!/bin/sh\nexec env LD_LIBRARY_PATH=%s NBODY_SHADER_DIR=%s/shaders %s/nbody "$@"\n' "$PWD/.pkb/lib:$B" "$B" "$B" > .pkb/before; chmod +x .pkb/before
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="PASSED|FAILED"
step tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='PeerGate*:TwoGpus.*:ForceShares.*'
SHOW="frames 2|GPU:|gpus:|step:"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 600 --gpus 2"
step after-compute-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $D/nbody $V --sprites compute
step before-compute-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 .pkb/before $V --sprites compute
step after-compute-cut 120 env NBODY_SIM_THREAD=1 $D/nbody $V --sprites compute
step before-compute-cut 120 env NBODY_SIM_THREAD=1 .pkb/before $V --sprites compute
step after-cuda-cut 120 env NBODY_SIM_THREAD=1 $D/nbody $V
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

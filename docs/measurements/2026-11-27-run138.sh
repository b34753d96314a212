#!/usr/bin/env bash
# Device run 138 (nvidia-h100-x2): the collective of a force pass held on the GPU's front end until every
# GPU's share is done (PeerGate), against the head before it (e4a592b, build-pack/r137base.tar.xz), in one
# call: the gate's tests and the two-GPU tests, the 16M tree viewer beside the frame loop on two GPUs
# (the drawing GPU walking its cut share, and only drawing), the 16M tree bench on two GPUs.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/r137base.tar.xz -C .pkb; B=$PWD/.pkb/bin
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="PASSED|FAILED|frames 2|GPU:|gpus:|ms/step|note:"
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='PeerGate*:TwoGpus.*:ForceShares.*:NcclCommunicator*'
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --gpus 2 --frames 600"
for k in 1 2; do
  step after-cut-$k 120 env NBODY_SIM_THREAD=1 $D/nbody $V
  step before-cut-$k 120 env NBODY_SIM_THREAD=1 LD_LIBRARY_PATH=$PWD/.pkb/lib:$B NBODY_SHADER_DIR=$B/shaders $B/nbody $V
done
step after-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $D/nbody $V
step before-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 LD_LIBRARY_PATH=$PWD/.pkb/lib:$B NBODY_SHADER_DIR=$B/shaders $B/nbody $V
BN="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20 --gpus 2"
step after-bench 150 $D/nbody $BN
step before-bench 150 env LD_LIBRARY_PATH=$PWD/.pkb/lib:$B $B/nbody $BN
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 195 (two or four GPUs): the GPUs of one process meet before each collective of a step
# (CudaBackend::for_every_gpu, sim/cuda/peer_meeting.hpp), so that one GPU's failure stops the
# others instead of hanging them; Hermite's block steps take the same meeting class. The multi-GPU,
# gate, share and Hermite block tests, then what a meeting a pass might cost: bench tree 1M and 16M
# and the viewer at 1M, each on one GPU and on two (run 193 before the change: viewer 1M 148.9 /
# 231.2 fps; runs 189/192: bench 16M 50.7 / 30.81 ms, 1M 4.28 / 3.91 ms).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|failing:|hung"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:PeerGate*:ForceShares.*:HermiteDeviceBlocks.*:HermiteTwoGpus*'
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for n in 1M 16M; do
  step b$n-1 60 $D/nbody $A -n $n
  step b$n-2 60 $D/nbody $A -n $n --gpus 2
done
SHOW="frames 2\.\.|rror"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
for k in a b; do
  step v1-$k 90 $D/nbody $V
  step v2-$k 90 $D/nbody $V --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 109 (nvidia-h100-x2): main after the rebalancing's fix (each timed pass keeps its share's
# width; run 108's other-work test drove the drawing GPU to 11 %) and the report that leaves the
# screenshot out of the frame times: the two-GPU tests, the viewer at 1M on one GPU and two (twice
# each, then once more with --screenshot), 16M on two, --gpus 2 against mpirun -np 2.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|host \(CPU|gpus:|steps of dt|screenshots:|evaluates to|GPU 0: "
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step two-gpu-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
for k in a b; do
  step view1m-1gpu-$k 60 $V --bodies 1048576 --frames 600
  step view1m-2gpu-$k 60 $V --bodies 1048576 --frames 600 --gpus 2
done
step view1m-1gpu-shot 60 $V --bodies 1048576 --frames 600 --screenshot $OUT/view1m-1gpu.png
step view1m-2gpu-shot 60 $V --bodies 1048576 --frames 600 --gpus 2 --screenshot $OUT/view1m-2gpu.png
step view16m-1gpu 90 $V --bodies 16777216 --frames 60
step view16m-2gpu 90 $V --bodies 16777216 --frames 60 --gpus 2
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-1gpu 120 $RT
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

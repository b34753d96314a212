#!/usr/bin/env bash
# Device run 92 (nvidia-h100-x2): the peers of a several-GPU CudaBackend now run on threads kept for
# the backend's life (cuda::GpuWorkers) instead of a thread started per call, and the shares are
# rebalanced every 16 calls instead of 8. Run 89's viewer on two GPUs spent 3.6 ms of host time per
# frame queueing the step (0.23 ms on one GPU). The share tests, the viewer at 1M (tree, 1080p, one
# step per frame) and 16M on one GPU and two, every pair 1M on two, and run 89's tree 4M runs.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|host \(CPU|GPU:|fps_report|gpus:|GPU shares|^ +[0-9]+ (full|symm)|steps of dt"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step shares 150 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*:HermiteTwoGpus.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 300 --screenshot $OUT/view1m-1gpu.png
step view1m-2gpu 60 $V --bodies 1048576 --frames 300 --gpus 2 --screenshot $OUT/view1m-2gpu.png
step view16m-1gpu 90 $V --bodies 16777216 --frames 60
step view16m-2gpu 90 $V --bodies 16777216 --frames 60 --gpus 2
step ep-2gpu 60 $D/nbody bench --backend cuda -n 1M --repeats 3 --warmup 1 --pairs full --gpus 2
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-1gpu 120 $RT
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

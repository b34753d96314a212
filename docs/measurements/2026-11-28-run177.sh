#!/usr/bin/env bash
# Device run 177 (nvidia-h100-x2): every CUDA test and the render tests at the session's head (bench
# settles the shares for the tree code only), and the every-pair bench on two GPUs, which no longer
# settles (its slices are even work).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|^ +[0-9]+ full|^ +[0-9]+ symm|GPU shares|settled"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 300 $D/nbody_cuda_tests --gtest_color=no
step render-tests 200 $D/nbody_render_tests --gtest_color=no
step ep1m-2 60 $D/nbody bench --backend cuda --pairs full -n 1M --repeats 3 --warmup 1 --gpus 2
step tree16m-2 90 $D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10 -n 16M --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

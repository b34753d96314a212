#!/usr/bin/env bash
# Device run 91 (nvidia-h100-x2): after run 90, each cuda Hermite engine makes its own GPU current
# (run 90's integrator test stepped a one-GPU engine on the other GPU's device and met an illegal
# address) and nearest-neighbour ties go to the lowest id in the kernel and the cpu engine. The
# whole CUDA suite (the NCCL communicator now uses the shared ScopedDevice), and the 128K Hermite
# run once more on one GPU and two.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks|Hermite force engine|energy error|dE/E"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step hermite-tests 180 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteTwoGpus.*:HermiteCuda.*'
step cuda-all 240 $D/nbody_cuda_tests --gtest_color=no
sed -n '/tests, listed below/,$p' $L/cuda-all.log | head -8
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step hermite128k-1gpu 200 $H
step hermite128k-2gpu 200 $H --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

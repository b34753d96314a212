#!/usr/bin/env bash
# Device run 219 (nvidia-h200-x2): the review's mends (reduce_partials picks one kernel and launches it
# once; the failing-GPU tests take test::runtime_error_of): the Hermite CUDA and two-GPU tests with the
# failing-GPU ones, then 128K on one GPU and two and 16K on one, whose final energies must be the
# runs before's to the last digit.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror|PASSED|FAILED|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.*:HermiteDeviceBlocks.*:HermiteTwoGpus.*:TwoGpus.AGpuThatFailsStops*'
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda"
step h1-128k 60 $D/nbody $H --bodies 131072
step h2-128k 60 $D/nbody $H --bodies 131072 --gpus 2
step h1-16k 60 $D/nbody $H --bodies 16384
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

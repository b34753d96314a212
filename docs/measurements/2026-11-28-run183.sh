#!/usr/bin/env bash
# Device run 183 (nvidia-h100-x4): the block steps on several GPUs of one process driven by a thread per GPU that decides its blocks alone as an mpirun rank does (no barrier but at reorders; run 182: two barriers a block); per
# GPU (run 181: one thread queueing four GPUs was 26-31 % slower than four mpirun ranks at 128K); the
# block-step tests, Hermite4 128K on one, two and four GPUs and four ranks, 512K on one and four.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="PASSED|FAILED|Failure|bodies to t|the same in"
step block-tests 60 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*'
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
H5="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
SHOW="bodies to t|relative energy|Error|error"
for k in a b; do
  step h128k-1-$k 30 $D/nbody $H
  step h128k-2-$k 30 $D/nbody $H --gpus 2
  step h128k-4-$k 30 $D/nbody $H --gpus 4
  step h128k-mpi4-$k 40 $MPI $D/nbody $H
done
step h512k-1 60 $D/nbody $H5
step h512k-4 30 $D/nbody $H5 --gpus 4
step h512k-mpi4 40 $MPI $D/nbody $H5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

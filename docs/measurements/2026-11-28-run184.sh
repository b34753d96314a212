#!/usr/bin/env bash
# Device run 184 (nvidia-h100-x2): the first GPU run of ee59294, 202142f and b60d9d2 (host-side
# refactors of the block steps on the GPUs, built and not run before): the Hermite, block-steps and
# two-GPU tests, and Hermite4 128K on one GPU, two GPUs and two mpirun ranks.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|first differing"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*:Hermite*:TwoGpus.*'
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
SHOW="bodies to t|dE"
for k in a b; do
  step h128k-1-$k 60 $D/nbody $H
  step h128k-2-$k 60 $D/nbody $H --gpus 2
  step h128k-mpi2-$k 90 $MPI $D/nbody $H
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

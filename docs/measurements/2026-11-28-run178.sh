#!/usr/bin/env bash
# Device run 178 (nvidia-h100-x2): Hermite4 block steps taken whole on the GPU (ForceEngine::step_blocks)
# against the host's (NBODY_HERMITE_BLOCKS_ON=host), same build, alternately: the new tests, 128K on one
# and two GPUs, two mpirun ranks, 512K once; then the other Hermite and two-GPU tests.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|bodies to t|block steps on|Expected|Which is|first differing"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step new-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*'
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
SHOW="bodies to t|relative energy|block steps on|GPU|Error|error"
for k in a b; do
  step h128k-1-host-$k 60 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $H
  step h128k-1-gpu-$k 60 $D/nbody $H --profile
  step h128k-2-host-$k 60 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $H --gpus 2
  step h128k-2-gpu-$k 60 $D/nbody $H --gpus 2 --profile
  step h128k-mpi2-gpu-$k 90 $MPI $D/nbody $H
done
H5="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288"
step h512k-1-gpu 80 $D/nbody $H5
step h512k-2-gpu 60 $D/nbody $H5 --gpus 2
step h512k-mpi2-gpu 80 $MPI $D/nbody $H5
SHOW="PASSED|FAILED|Failure"
step hermite-tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Hermite*:TwoGpus.*:ForceShares.*:*Spatial*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

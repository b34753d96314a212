#!/usr/bin/env bash
# Device run 179 (nvidia-h100-x2): the block-steps tests again (the failing-block test set up by a
# probe), every CUDA and render test, and Hermite4 128K with the block steps on the GPU against the
# host's, one and two GPUs and two mpirun ranks, alternately, three times.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|bodies to t|levels:|Expected|Which is|first differing"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step new-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*'
step cuda-tests 300 $D/nbody_cuda_tests --gtest_color=no
step render-tests 200 $D/nbody_render_tests --gtest_color=no
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
SHOW="bodies to t"
for k in a b c; do
  step h128k-1-host-$k 60 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $H
  step h128k-1-gpu-$k 60 $D/nbody $H
  step h128k-2-host-$k 60 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $H --gpus 2
  step h128k-2-gpu-$k 60 $D/nbody $H --gpus 2
  step h128k-mpi2-gpu-$k 90 $MPI $D/nbody $H
done
SHOW="bodies to t|block steps on|GPU \(whole\)|other"
step h128k-2-gpu-profile 60 $D/nbody $H --gpus 2 --profile
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

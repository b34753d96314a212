#!/usr/bin/env bash
# Device run 159 (two GPUs): run 158's multi-GPU tests again with the balance test measuring its
# even cut first (the relative criterion's groups cost more where the pull is weak), and the 4M tree
# `run` with the relative criterion under --gpus 2 and mpirun -np 2 (one rank per GPU), alternately.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|in [0-9.]+ s|steps of dt|every rank ready|relative energy|GPU 0"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus*:ForceShares*'
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in 1 2; do
  step tree4m-gpus-2-$k 60 $RT --gpus 2
  step tree4m-mpi-2-$k 60 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 185 (nvidia-h100-x2): the tree built in key ranges (each GPU builds the tree of its range
# of the key order, walks every group against it): its tests, then the tree at 1M, 4M and 16M on one
# GPU, two GPUs in key ranges (the default) and two GPUs split by groups (NBODY_TREE_SPLIT=groups,
# the replicated build), and `run` tree 4M on two GPUs against two mpirun ranks.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|one tree|one GPU|error|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step new-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*'
SHOW="^ +[0-9]+ symm|GPU shares|settled|rror"
B="$D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for n in 1M 4M 16M; do
  step b$n-1 90 $B -n $n
  step b$n-2keys 90 $B -n $n --gpus 2
  step b$n-2groups 90 env NBODY_TREE_SPLIT=groups $B -n $n --gpus 2
done
step b16M-2keys-again 90 $B -n 16M --gpus 2
SHOW="steps|bodies|rror"
R="run --scene $PWD/scenes/plummer.toml --bodies 4194304 --gravity tree --backend cuda --steps 100"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step run4m-2 90 $D/nbody $R --gpus 2
step run4m-mpi2 120 $MPI $D/nbody $R
step run4m-2-b 90 $D/nbody $R --gpus 2
step run4m-mpi2-b 120 $MPI $D/nbody $R
SHOW="PASSED|FAILED|Failure"
step cuda-tests 400 $D/nbody_cuda_tests --gtest_color=no
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 189 (nvidia-h100-x4): the tree's shares gathered in key order (each GPU keeps its own
# bodies' accelerations, an all-gather of 12 bytes a body, then one scatter with |a| and the kick)
# against the zero-padded all-reduce before (build-pack/before.tar.xz: 0b87adf), alternately in one
# call: the tests, then bench tree 16M on one, two and four GPUs, 64M on four, 1M and 4M on two,
# and `run` tree 4M under mpirun -np 2 against --gpus 2.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before.tar.xz -C .pkb
OLD=$PWD/.pkb/bin/nbody
SHOW="PASSED|FAILED|Failure|Expected|Which is"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step new-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*:WalkRoom.*'
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
step b16m-1 90 $D/nbody $A -n 16M
for k in a b; do
  step b16m-2-old-$k 90 $OLD $A -n 16M --gpus 2
  step b16m-2-new-$k 90 $D/nbody $A -n 16M --gpus 2
done
for k in a b; do
  step b16m-4-old-$k 90 $OLD $A -n 16M --gpus 4
  step b16m-4-new-$k 90 $D/nbody $A -n 16M --gpus 4
done
step b64m-4-old 180 $OLD $A -n 64M --gpus 4
step b64m-4-new 180 $D/nbody $A -n 64M --gpus 4
for n in 1M 4M; do
  step b$n-1 60 $D/nbody $A -n $n
  step b$n-2-old 60 $OLD $A -n $n --gpus 2
  step b$n-2-new 60 $D/nbody $A -n $n --gpus 2
done
SHOW="steps of|rror"
R="run --scene $PWD/scenes/plummer.toml --bodies 4194304 --gravity tree --backend cuda --steps 100"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step run4m-2 90 $D/nbody $R --gpus 2
step run4m-mpi2 120 $MPI $D/nbody $R
SHOW="PASSED|FAILED|Failure"
step cuda-tests 400 $D/nbody_cuda_tests --gtest_color=no
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

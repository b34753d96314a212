#!/usr/bin/env bash
# Device run 121 (nvidia-h100-x2). Three things in one call, main at 8e3ee94 plus two branches:
# 1. `rankfigures` (CudaBackend's rank figures in one vector of one struct): the two-GPU tests and the
#    tree bench on two GPUs, against run 119's build (build-pack/r119.tar.xz: the same stepping code).
# 2. Hermite under mpirun on the cuda engine (`hermiteranks`): MpiRun.* (the new one runs only on two
#    GPUs), then 128K Plummer to t = 0.25 on one GPU, `--gpus 2` and `mpirun -np 2 --backend cuda`.
# 3. Why `mpirun -np 2` is sometimes much slower than `--gpus 2` (DISTRIBUTED.md: +1.7 % to +65 %):
#    where the GPUs and the CPUs sit, which processes hold a context on which GPU while a launch runs,
#    then the 4M tree run of 100 steps five times under mpirun beside --gpus 2, and 1,000 steps with
#    the progress line every 2 s (a slow launch slow from its first step to its last, or a stall).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks on one GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; nproc
nvidia-smi topo -m 2>&1 | head -8
step cuda-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*:NcclCommunicator*:HermiteTwoGpus.*'
step cli-mpi 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.*'
mkdir -p .pk/before && tar -xJf build-pack/r119.tar.xz -C .pk/before
SHOW="^ +[0-9]+ |GPU shares|Failure|error"
T2="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 3 --warmup 5 --gpus 2"
step tree-2-before 90 .pk/before/bin/nbody $T2
step tree-2-after 90 $D/nbody $T2
SHOW="in [0-9.]+ s:|energy error|engine:"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h128k-1 40 $D/nbody $H
step h128k-gpus2 40 $D/nbody $H --gpus 2
step h128k-mpi2 60 $MPI $D/nbody $H
step h128k-mpi2-profile 60 $MPI $D/nbody $H --profile
SHOW="in [0-9.]+ s,|step [0-9]+ of"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree"
( sleep 6; nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv; ps -eLo pid,tid,psr,pcpu,comm | grep -E 'nbody' | sort -k4 -nr | head -12 ) > $L/contexts.log 2>&1 &
step tree4m-mpi-a 60 $MPI $RT --steps 100
wait; cat $L/contexts.log
for k in b c d e; do
  step tree4m-gpus-$k 60 $RT --steps 100 --gpus 2
  step tree4m-mpi-$k 60 $MPI $RT --steps 100
done
step tree4m-gpus-1000 90 $RT --steps 1000 --gpus 2
step tree4m-mpi-1000-a 90 $MPI $RT --steps 1000
step tree4m-mpi-1000-b 90 $MPI $RT --steps 1000
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

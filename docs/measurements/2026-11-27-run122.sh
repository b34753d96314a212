#!/usr/bin/env bash
# Device run 122 (nvidia-h100-x2): Hermite's partial forces between two mpirun ranks over NCCL
# (host_buffers_over) against MPI's shared memory (run 121's build, build-pack/r121.tar.xz), and the
# probes on the rank's own GPU (no context of rank 1 on GPU 0): nvidia-smi's compute apps while a
# launch runs, before and after.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks on one GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='NcclCommunicator*:TwoGpus.*:HermiteTwoGpus.*'
step cli-mpi 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.*'
mkdir -p .pk/before && tar -xJf build-pack/r121.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error|gather and add|wait for the GPU|GPU busy|force \(engine"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
apps() { ( sleep $1; nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader ) > $L/apps-$2.log 2>&1 & }
for k in a b; do
  step h128k-1-$k 40 $D/nbody $H --bodies 131072
  step h128k-gpus2-$k 40 $D/nbody $H --bodies 131072 --gpus 2
  apps 3 before-$k; step h128k-mpi2-before-$k 60 $MPI .pk/before/bin/nbody $H --bodies 131072; wait
  apps 3 after-$k; step h128k-mpi2-after-$k 60 $MPI $D/nbody $H --bodies 131072; wait
done
step h512k-gpus2 90 $D/nbody $H --bodies 524288 --gpus 2
step h512k-mpi2 90 $MPI $D/nbody $H --bodies 524288
for f in $L/apps-*.log; do echo "== $f"; cat $f; done
SHOW="in [0-9.]+ s,"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
apps 5 tree; step tree4m-mpi 60 $MPI $RT; wait; cat $L/apps-tree.log
step tree4m-gpus 60 $RT --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

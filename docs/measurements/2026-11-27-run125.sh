#!/usr/bin/env bash
# Device run 125 (nvidia-h100-x2): Hermite under mpirun with the ranks' results all-gathered on the GPUs
# (make_cuda_engine_across_ranks) against run 124's host gather (build-pack/r124.tar.xz). The Hermite,
# communicator and two-GPU tests, MpiRun.* (mpirun -np 2 against --gpus 2 byte for byte), 128K and 512K
# Plummer to t = 0.25 (one GPU, --gpus 2, mpirun -np 2), and hermite6 (fp64 snap) on 32K to t = 0.0625.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks on one GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='NcclCommunicator*:TwoGpus.*:Hermite*'
step cli-mpi 240 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.*'
mkdir -p .pk/before && tar -xJf build-pack/r124.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error|gather and add|wait for|GPU busy|force \(engine|commit|engine:"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h128k-1 40 $D/nbody $H --bodies 131072
for k in a b; do
  step h128k-gpus2-$k 40 $D/nbody $H --bodies 131072 --gpus 2 --out $L/g2-$k.csv
  step h128k-mpi2-$k 60 $MPI $D/nbody $H --bodies 131072 --out $L/m2-$k.csv
  cmp $L/g2-$k.csv $L/m2-$k.csv && echo "128K ($k): mpirun -np 2 output identical to --gpus 2"
done
step h128k-mpi2-before 60 $MPI .pk/before/bin/nbody $H --bodies 131072
step h512k-1 90 $D/nbody $H --bodies 524288
step h512k-gpus2 90 $D/nbody $H --bodies 524288 --gpus 2
step h512k-mpi2 90 $MPI $D/nbody $H --bodies 524288
H6="run --integrator hermite6 --scene $PWD/scenes/plummer.toml --t-end 0.0625 --backend cuda --bodies 32768"
step h6-gpus2 60 $D/nbody $H6 --gpus 2 --out $L/g6.csv
step h6-mpi2 60 $MPI $D/nbody $H6 --out $L/m6.csv
cmp $L/g6.csv $L/m6.csv && echo "hermite6 32K: mpirun -np 2 output identical to --gpus 2"
rm -f $L/*.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

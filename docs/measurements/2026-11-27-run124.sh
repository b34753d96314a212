#!/usr/bin/env bash
# Device run 124 (nvidia-h100-x2): Hermite under mpirun with the j-particles shared by slot ranges
# (every rank's cuda engine holds all of them, as the GPUs of one process do with --gpus 2) and the
# host-staged NCCL collectives through page-locked memory; against run 123's build (round robin,
# build-pack/r123.tar.xz). The Hermite and communicator tests, MpiRun.* (mpirun -np 2 against --gpus 2
# byte for byte), then 128K and 512K Plummer to t = 0.25: one GPU, --gpus 2, mpirun -np 2.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks on one GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='NcclCommunicator*:TwoGpus.*:Hermite*'
step cli-mpi 240 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.*'
mkdir -p .pk/before && tar -xJf build-pack/r123.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error|gather and add|wait for|GPU busy|force \(engine|commit"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h128k-1 40 $D/nbody $H --bodies 131072
step h128k-gpus2 40 $D/nbody $H --bodies 131072 --gpus 2 --out $L/g2.csv
step h128k-mpi2-before 60 $MPI .pk/before/bin/nbody $H --bodies 131072
step h128k-mpi2-a 60 $MPI $D/nbody $H --bodies 131072 --out $L/m2.csv
step h128k-mpi2-b 60 $MPI $D/nbody $H --bodies 131072
cmp $L/g2.csv $L/m2.csv && echo "128K: mpirun -np 2 output identical to --gpus 2"
step h512k-gpus2 90 $D/nbody $H --bodies 524288 --gpus 2
step h512k-mpi2 90 $MPI $D/nbody $H --bodies 524288
rm -f $L/*.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

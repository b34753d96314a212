#!/usr/bin/env bash
# Device run 127 (nvidia-h100-x4): Hermite under mpirun with the ranks' results added on the GPU in rank
# order (add_result_blocks; one block down) against run 126's build (build-pack/r126.tar.xz: all P blocks
# down and added on the host). MpiRun.Hermite* (two ranks: byte for byte --gpus 2), then 128K and 512K
# Plummer to t = 0.25 with --gpus 4 and mpirun -np 4, outputs compared byte for byte.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|blocks on one GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.*:HermiteTwoGpus.*'
step cli-mpi 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.Hermite*'
mkdir -p .pk/before && tar -xJf build-pack/r126.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
for n in 131072 524288; do
  step h$n-gpus4 60 $D/nbody $H --bodies $n --gpus 4 --out $L/g4.csv
  step h$n-mpi4-before 60 $MPI .pk/before/bin/nbody $H --bodies $n
  step h$n-mpi4 60 $MPI $D/nbody $H --bodies $n --out $L/m4.csv
  cmp $L/g4.csv $L/m4.csv && echo "$n: mpirun -np 4 output identical to --gpus 4"
  rm -f $L/*.csv
done
step h131072-mpi4-again 60 $MPI $D/nbody $H --bodies 131072 --profile
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

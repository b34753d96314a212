#!/usr/bin/env bash
# Device run 126 (nvidia-h100-x4): issue 30 on four GPUs after Hermite under mpirun took slot ranges
# with the ranks' results gathered on the GPUs (runs 121-125 on two): Hermite4 128K and 512K Plummer to
# t = 0.25 on one GPU, --gpus 4 and mpirun -np 4 (outputs compared byte for byte), and the 4M tree run
# of 100 steps under mpirun -np 4 beside --gpus 4, three times each.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteTwoGpus.*:TwoGpus.TheProbe*'
SHOW="in [0-9.]+ s:|energy error"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
for n in 131072 524288; do
  step h$n-1 60 $D/nbody $H --bodies $n
  step h$n-gpus4 60 $D/nbody $H --bodies $n --gpus 4 --out $L/g4.csv
  step h$n-mpi4 60 $MPI $D/nbody $H --bodies $n --out $L/m4.csv
  cmp $L/g4.csv $L/m4.csv && echo "$n: mpirun -np 4 output identical to --gpus 4"
  rm -f $L/*.csv
done
SHOW="in [0-9.]+ s,"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c; do
  step tree4m-gpus4-$k 60 $RT --gpus 4
  step tree4m-mpi4-$k 60 $MPI $RT
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 132 (nvidia-h100-x4): issue 30's "--gpus N against mpirun -np N within 5 %" on four GPUs, after
# the ranks wait for each other before the run's clock starts (run 131 on two: the unsteady mpirun runs were
# the ranks' set-up, 250-890 ms apart, counted in the first step). Main at the commit of this script (the
# pack of run 131). The 4M tree run (100 steps) and Hermite4 128K and 512K to t = 0.25, alternately.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="in [0-9.]+ s,|by step call|ready to step"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c; do
  step tree4m-mpi-$k 60 $MPI $RT
  step tree4m-gpus-$k 60 $RT --gpus 4
done
SHOW="in [0-9.]+ s:|ready to step"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda"
step h128k-1 40 $D/nbody $H --bodies 131072
for k in a b; do
  step h128k-gpus4-$k 40 $D/nbody $H --bodies 131072 --gpus 4
  step h128k-mpi4-$k 60 $MPI $D/nbody $H --bodies 131072
done
step h512k-gpus4 60 $D/nbody $H --bodies 524288 --gpus 4
step h512k-mpi4 80 $MPI $D/nbody $H --bodies 524288
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 123 (nvidia-h100-x2): where Hermite's time under mpirun goes. Run 122: the partial forces'
# gather took 0.9-1.3 ms a block over MPI and over NCCL alike, so the transfer is not the cost. The
# profile now times the wait for the slowest rank apart (a one-byte gather first). Also with fewer host
# threads per rank (NBODY_HERMITE_THREADS=8: two ranks of 16 threads each on 32 cores), and the 4M
# tree run under mpirun again beside --gpus 2 (run 122: +53 % once, after the context fix).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="in [0-9.]+ s:|energy error|gather and add|wait for|GPU busy|force \(engine|commit|predict|correct"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h128k-gpus2 40 $D/nbody $H --gpus 2
step h128k-mpi2-a 60 $MPI $D/nbody $H
step h128k-mpi2-b 60 $MPI $D/nbody $H
step h128k-mpi2-threads8 60 env NBODY_HERMITE_THREADS=8 $MPI -x NBODY_HERMITE_THREADS $D/nbody $H
step h128k-gpus2-threads8 40 env NBODY_HERMITE_THREADS=8 $D/nbody $H --gpus 2
SHOW="in [0-9.]+ s,"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c; do
  step tree4m-mpi-$k 60 $MPI $RT
  step tree4m-gpus-$k 60 $RT --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

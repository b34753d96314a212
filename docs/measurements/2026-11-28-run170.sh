#!/usr/bin/env bash
# Device run 170 (nvidia-h100-x4, issue 30): run 94's four-GPU points again with the head (the
# tree's relative criterion as its default, the Hermite engine over several GPUs in one Morton
# order, the batch order on the host threads), each against one GPU of the same machine in the
# same call; Hermite and the tree under mpirun -np 4 against --gpus 4, alternately.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ (full|symm|tree)|GPU shares|steps of dt|blocks,|in [0-9.]+ s|every rank ready|refused|Failure|PASSED|FAILED"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; nvidia-smi topo -m | head -6
B="$D/nbody bench --backend cuda --pairs full"
step ep1m-1 60 $B -n 1M --repeats 3 --warmup 1
step ep1m-4 60 $B -n 1M --repeats 3 --warmup 1 --gpus 4
step ep4m-1 60 $B -n 4M --repeats 1 --warmup 0 --steps 1
step ep4m-4 60 $B -n 4M --repeats 3 --warmup 1 --steps 1 --gpus 4
T="$D/nbody bench --backend cuda --gravity tree --repeats 3 --warmup 5 --dt 0.0625 --softening 0.05"
step tree16m-1 90 $T -n 16M
step tree16m-4 90 $T -n 16M --gpus 4
step tree64m-4 180 $T -n 64M --gpus 4
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --t-end 0.25 --backend cuda"
step hermite128k-1 120 $H --bodies 131072
step hermite128k-4 120 $H --bodies 131072 --gpus 4
step hermite512k-1 150 $H --bodies 524288
step hermite512k-4 150 $H --bodies 524288 --gpus 4
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in 1 2; do
  step tree4m-gpus-4-$k 60 $RT --gpus 4
  step tree4m-mpi-4-$k 60 $MPI $RT
  step hermite128k-gpus-4-$k 90 $H --bodies 131072 --gpus 4
  step hermite128k-mpi-4-$k 90 $MPI $H --bodies 131072
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

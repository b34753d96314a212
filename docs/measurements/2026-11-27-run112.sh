#!/usr/bin/env bash
# Device run 112 (nvidia-h100-x4, issue 30): four GPUs against one of the same machine after the walk
# by occupied slices, the balancing's fixes and the Hermite split by slot ranges (runs 107-111 on
# two): the tree at 16M (strong) and 16M per GPU (weak: 64M on four), Hermite4 128K and 512K to
# t = 0.25, the 1M viewer, --gpus 4 against mpirun -np 4 on the tree at 4M (twice). Every pair
# scaled 3.98-3.99x in run 94 and is not repeated (device time).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ symm|GPU shares|steps of dt|blocks,|energy error|refused|Failure|frames 2\.\.|gpus:"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
T="$D/nbody bench --backend cuda --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05 --theta 0.5"
step tree16m-1 90 $T -n 16M
step tree16m-4 90 $T -n 16M --gpus 4
step tree64m-4 150 $T -n 64M --gpus 4
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --t-end 0.25 --backend cuda"
step hermite128k-1 40 $H --bodies 131072
step hermite128k-4 40 $H --bodies 131072 --gpus 4
step hermite512k-1 60 $H --bodies 524288
step hermite512k-4 60 $H --bodies 524288 --gpus 4
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1 60 $V --bodies 1048576 --frames 600
step view1m-4 60 $V --bodies 1048576 --frames 600 --gpus 4
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b; do
  step tree4m-run-4-$k 60 $RT --gpus 4
  step tree4m-mpi-4-$k 60 mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 88 (nvidia-h100-x2): issue 29's several-GPU force pass. The share tests, the whole
# CUDA suite (the force kernel's i-slice touched every instance), and one GPU against two in the
# same call: every pair and each pair once at 1M, the tree at 16M, the headless viewer at 1M
# (tree, 1080p, one step per frame), --gpus 2 against mpirun -np 2 (one rank per GPU), and the
# refusals (--gpus 3, 3 ranks on 2 GPUs).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|passed|failed|fps_report|ms/step|int/s|GPU shares|stepping|gpus:|refused|error|steps of dt|energy error"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step shares 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*'
B="$D/nbody bench --backend cuda -n 1M --repeats 3 --warmup 1"
step ep-1gpu 60 $B --pairs full
step ep-2gpu 60 $B --pairs full --gpus 2
step ep-2gpu-classic 60 $B --pairs full --gpus 2 --split classic
step ep-1gpu-classic 60 $B --pairs full --split classic
step sym-1gpu 60 $B --pairs symmetric
step sym-2gpu 60 $B --pairs symmetric --gpus 2
T="$D/nbody bench --backend cuda -n 16M --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05"
step tree16m-1gpu 90 $T
step tree16m-2gpu 90 $T --gpus 2
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080"
step view-1gpu 60 $V --screenshot $OUT/view-1gpu.png
step view-2gpu 60 $V --gpus 2 --screenshot $OUT/view-2gpu.png
R="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 65536 --steps 20"
export NBODY_FORCE_GRID=classic
step run-1gpu 120 $R --out $OUT/run-1gpu.csv
step run-2gpu 120 $R --gpus 2 --out $OUT/run-2gpu.csv
step run-mpi2 120 mpirun --allow-run-as-root -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NBODY_FORCE_GRID $R --out $OUT/run-mpi2.csv
unset NBODY_FORCE_GRID
cmp $OUT/run-1gpu.csv $OUT/run-2gpu.csv && echo "run-1gpu.csv == run-2gpu.csv"
cmp $OUT/run-2gpu.csv $OUT/run-mpi2.csv && echo "run-2gpu.csv == run-mpi2.csv"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 40"
step tree4m-1gpu 120 $RT
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 mpirun --allow-run-as-root -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
step gpus3 30 $D/nbody run --backend cuda --scene $D/scenes/plummer.toml --steps 2 --gpus 3 --out $OUT/never.csv
step mpi3 60 mpirun --allow-run-as-root --oversubscribe -np 3 -x LD_LIBRARY_PATH $D/nbody run --backend cuda --scene $D/scenes/plummer.toml --steps 2 --out $OUT/never3.csv
ls $OUT/never*.csv 2>/dev/null && echo "WRONG: a refused run wrote its output"
rm -f $OUT/run-*.csv
step cuda-all 200 $D/nbody_cuda_tests --gtest_color=no
sed -n '/tests, listed below/,$p' $L/cuda-all.log | head -12
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

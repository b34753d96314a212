#!/usr/bin/env bash
# Device run 89 (nvidia-h100-x2): what run 88 could not measure. Split over GPUs the default
# bounding-box config now places its share with the lambda map (run 88 refused it, and the default
# config of large N carries it even under --gravity tree), and the collectives are connected before
# the first step. One GPU against two in this call: the tree at 16M, the headless viewer at 1M;
# --gpus 2 against mpirun -np 2 --bind-to none (run 88's ranks were bound to one core each, the
# OpenMPI default: the host energy sum took 18 s instead of 1.2 s), with --pairs full for the
# bit-for-bit comparison.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|^ +[0-9]+ (full|symm)|fps_report|GPU shares|gpus:|refused|error|steps of dt|energy error|took"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step shares 150 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*:Symmetric*:CudaBackend*:PairMode*'
T="$D/nbody bench --backend cuda -n 16M --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05"
step tree16m-1gpu 90 $T
step tree16m-2gpu 90 $T --gpus 2
step tree1m-1gpu 60 $D/nbody bench --backend cuda -n 1M --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05
step tree1m-2gpu 60 $D/nbody bench --backend cuda -n 1M --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05 --gpus 2
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080"
step view-1gpu 60 $V --screenshot $OUT/view-1gpu.png
step view-2gpu 60 $V --gpus 2 --screenshot $OUT/view-2gpu.png
M="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
R="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 65536 --steps 20 --pairs full"
step run-1gpu 120 $R --out $OUT/run-1gpu.csv
step run-2gpu 120 $R --gpus 2 --out $OUT/run-2gpu.csv
step run-mpi2 120 $M $R --out $OUT/run-mpi2.csv
cmp $OUT/run-1gpu.csv $OUT/run-2gpu.csv && echo "run-1gpu.csv == run-2gpu.csv"
cmp $OUT/run-2gpu.csv $OUT/run-mpi2.csv && echo "run-2gpu.csv == run-mpi2.csv"
rm -f $OUT/run-*.csv
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-1gpu 120 $RT
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 $M $RT
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

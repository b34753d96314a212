#!/usr/bin/env bash
# Device run 118 (nvidia-h100-x4): the moments pass in rounds (each block of 256 sorted bodies lists
# the nodes whose children are done and computes them one per thread; a second kernel climbs the
# nodes that straddle blocks), leaves' boxes not stored. On one GPU: the tree tests, a 1M run's final
# state against main's (efb82d9, build-pack/before.tar.xz) byte for byte, the step at 1M / 16M
# alternately, the 16M viewer's phases, Nsight Compute on the moments kernels. Then issue 30's four
# GPUs before and after: 16M strong, 64M weak, and issue 29's `run --gpus 4` against mpirun.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|MiB|GPU shares"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:*Tree*:GpuBlockSteps*:CudaTree*:TwoGpus.*'
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
R="run --backend cuda --gravity tree --scene scenes/milky-way-andromeda.toml --bodies 1048576 --steps 5"
step run-before 90 .pk/before/bin/nbody $R --out $L/before.nbsnap
step run-after 90 $D/nbody $R --out $L/after.nbsnap
if ! cmp $L/before.nbsnap $L/after.nbsnap; then echo "final states differ: stopping"; tar czf $OUT/logs.tgz -C $OUT logs; exit 1; fi
echo "final states byte-identical"; rm -f $L/*.nbsnap
T="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20"
for k in a b; do
  step before-$k 60 .pk/before/bin/nbody $T
  step after-$k 60 $D/nbody $T
done
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 30"
SHOW="tree: build"
step view16m-after 90 $D/nbody $V
N="--clock-control none -k regex:moments --launch-count 2 --section SpeedOfLight --section Occupancy --section WarpStateStats"
B="bench --backend cuda --gravity tree -n 16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 1 --warmup 0"
SHOW="^  [a-z_:<>]+kernel|Duration|DRAM Throughput|Achieved Occupancy|Active Threads"
step ncu-after 120 ncu $N $D/nbody $B
SHOW="^ +[0-9]+ symm|GPU shares|steps of dt|Failure"
T4="bench --backend cuda --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05 --theta 0.5"
for k in a b; do
  step tree16m-1-before-$k 90 .pk/before/bin/nbody $T4 -n 16M
  step tree16m-1-after-$k 90 $D/nbody $T4 -n 16M
  step tree16m-4-before-$k 90 .pk/before/bin/nbody $T4 -n 16M --gpus 4
  step tree16m-4-after-$k 90 $D/nbody $T4 -n 16M --gpus 4
done
step tree64m-4-before 150 .pk/before/bin/nbody $T4 -n 64M --gpus 4
step tree64m-4-after 150 $D/nbody $T4 -n 64M --gpus 4
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b; do
  step tree4m-run-4-$k 60 $RT --gpus 4
  step tree4m-mpi-4-$k 60 mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

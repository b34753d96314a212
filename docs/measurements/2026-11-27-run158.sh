#!/usr/bin/env bash
# Device run 158 (two GPUs): the tree's relative criterion (the default now) on several GPUs: the
# multi-GPU tests (a two-GPU tree run is the one-GPU run bit for bit: every GPU takes |a| from the
# summed accelerations), the 16M tree step on one and two GPUs (issue 29's 1.6x), the same with the
# angle alone, and the 1M viewer on one and two GPUs (issue 29's 1.5x).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |PASSED|FAILED|Failure|fps_report"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus*:ForceShares*:GpuTree*:MultiGpu*:*Shares*'
B="bench --backend cuda --gravity tree --repeats 3 --warmup 10 --dt 0.0625 --softening 0.05 -n 16M"
step b16m-1-default 90 $D/nbody $B
step b16m-2-default 90 $D/nbody $B --gpus 2
step b16m-1-angle 90 $D/nbody $B --theta 0.5 --alpha 0
step b16m-2-angle 90 $D/nbody $B --gpus 2 --theta 0.5 --alpha 0
V="view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
step view-1 120 $D/nbody $V
step view-2 120 $D/nbody $V --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

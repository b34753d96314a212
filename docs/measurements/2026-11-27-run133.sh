#!/usr/bin/env bash
# Device run 133 (nvidia-h100-x2): issue 33's "GPU: 16M bodies, tree: window frames/s while stepping >= 60,
# steps/s unchanged" on two GPUs (the viewer beside the frame loop with --gpus 2: the first GPU draws and
# takes a smaller share of the walk), against one GPU in the frame loop and beside it (run 119: 53.8
# frames/s at 72 % of the loop's steps/s). And the auto-tune beside the window (its figures).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|GPU:|walk room|fps_report|GPU [01]|balance"
V="$D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step b16m-1gpu-loop 120 env NBODY_SIM_THREAD=0 $V --frames 100
step b16m-1gpu-beside 120 env NBODY_SIM_THREAD=1 $V --frames 300
step b16m-2gpu-beside 120 env NBODY_SIM_THREAD=1 $V --frames 300 --gpus 2
step b16m-2gpu-beside-compute 120 env NBODY_SIM_THREAD=1 $V --frames 300 --gpus 2 --sprites compute
step b16m-2gpu-loop 120 env NBODY_SIM_THREAD=0 $V --frames 100 --gpus 2
SHOW="auto-tuned|first frame|fps_report|auto-tune:"
step autotune-beside 120 env NBODY_SIM_THREAD=1 NBODY_AUTOTUNE_CACHE=$OUT/at.json $D/nbody view --headless --backend cuda \
  --gravity direct --autotune --frames 900 --bodies 65536 --no-ui --size 640x360 --scene $PWD/scenes/plummer.toml
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

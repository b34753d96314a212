#!/usr/bin/env bash
# Device run 171 (one GPU, issue 33: 16M on one GPU, steps/s beside the window against the frame
# loop's): with the relative criterion, how much of the step the walk's room for the CUDA deposit
# costs (--walk-room none beside the loop, whose deposit then waits for the walk) against the
# defaults and the loop, in one call.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="frames 2|step:|particles: drawn|frame times|GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step loop 120 $D/nbody $V --frames 60
step beside-block 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step beside-none 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --walk-room none
step beside-block-2 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step beside-none-2 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --walk-room none
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

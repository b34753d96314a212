#!/usr/bin/env bash
# Device run 139 (nvidia-h100-x2): frames beside the simulation paced on a fixed 60 Hz schedule (FramePacer)
# against a sleep of a period from each frame's start (e4a592b, build-pack/r137base.tar.xz), alternately in
# one call: 16M tree on two GPUs and on one, beside the frame loop, 1080p headless, 600 frames.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/r137base.tar.xz -C .pkb; B=$PWD/.pkb/bin
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|GPU:|gpus:|present|step:"
printf '#!/bin/sh\nexec env LD_LIBRARY_PATH=%s NBODY_SHADER_DIR=%s/shaders %s/nbody "$@"\n' "$PWD/.pkb/lib:$B" "$B" "$B" > .pkb/before; chmod +x .pkb/before
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 600"
for k in 1 2; do
  step after-2gpu-$k 120 env NBODY_SIM_THREAD=1 $D/nbody $V --gpus 2
  step before-2gpu-$k 120 env NBODY_SIM_THREAD=1 .pkb/before $V --gpus 2
done
step after-1gpu 120 env NBODY_SIM_THREAD=1 $D/nbody $V
step before-1gpu 120 env NBODY_SIM_THREAD=1 .pkb/before $V
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

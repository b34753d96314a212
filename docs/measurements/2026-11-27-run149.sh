#!/usr/bin/env bash
# Device run 149 (nvidia-h100-x1), an experiment not kept in the code (a two-line return in ParticleRenderer::draw
# when NBODY_EXPERIMENT_NO_GL_IN_KEPT_FRAMES was set, built on b1d38e9 and reverted): frames that keep the particles' light submit no
# GL work at all (headless, --no-ui: the target still holds the frame), to see what the ~7 frames a step that only
# copy and present cost the steps beside the loop (run 146-147: 112 ms a step against 98.3 in the loop).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU|step:|particles: drawn"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step in-loop 120 $D/nbody $V --frames 60
step kept-frames-copy 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step kept-frames-no-gl 120 env NBODY_SIM_THREAD=1 NBODY_EXPERIMENT_NO_GL_IN_KEPT_FRAMES=1 $D/nbody $V --frames 600
step kept-frames-no-gl-compute 120 env NBODY_SIM_THREAD=1 NBODY_EXPERIMENT_NO_GL_IN_KEPT_FRAMES=1 $D/nbody $V --frames 600 --sprites compute
step kept-frames-copy-again 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

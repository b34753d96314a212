#!/usr/bin/env bash
# Device run 168 (one GPU): block time steps on the GPU with the tree's defaults (the relative
# criterion: each active group measured by its bodies' last |a|), against the cpu backend's stepper
# on the same 16K galaxy run, and at 1M for a first look (the GPU block-step tests run with theta alone).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="relative energy|force evaluations|in [0-9.]+ s|error"
R="run --scene $D/scenes/milky-way-andromeda.toml --gravity tree --dt 0.16 --timesteps block"
step block16k-cuda 60 $D/nbody $R --bodies 16384 --backend cuda --t-end 1.28
step block16k-cpu 120 $D/nbody $R --bodies 16384 --backend cpu --t-end 1.28
step block1m-cuda 90 $D/nbody $R --bodies 1048576 --backend cuda --t-end 1.28
step shared1m-cuda 90 $D/nbody run --scene $D/scenes/milky-way-andromeda.toml --gravity tree --bodies 1048576 --backend cuda --t-end 1.28 --dt 0.04
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

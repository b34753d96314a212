#!/usr/bin/env bash
# Device run 106 (one GPU): the default collision on a GPU as a user starts it, after the fix of the
# fit's gravity (run 105 stepped every pair after choosing 1M by the tree): --bodies auto, 1080p,
# 300 frames, without and with the panels (the window's default), screenshots of both.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="frames 2\.\.|tree step|gravity:|looks|first frame"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step view-auto 90 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --no-ui --screenshot $OUT/view-auto.png
step view-auto-ui 90 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --screenshot $OUT/view-auto-ui.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

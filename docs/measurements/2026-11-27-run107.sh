#!/usr/bin/env bash
# Device run 107 (one GPU): the Kernel panel's step value after its fix (run 106 showed it cut at
# the column's edge): the default collision with the panels, 120 frames, its screenshot.
source scripts/device-runs/unpack-pk.sh
SHOW="frames 2\.\.|tree step"
step view-auto-ui 90 $D/nbody view --headless --backend cuda --bodies auto --frames 120 --size 1920x1080 --screenshot $OUT/view-auto-ui.png
rm -rf $L

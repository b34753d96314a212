#!/usr/bin/env bash
# Device run 95 (nvidia-h100-x4, issue 30): what run 94 left for device time: Hermite4 with 512K
# stars to t = 0.25 on one GPU and on four of the same machine.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="blocks,|energy error|error|Hermite force engine"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --bodies 524288 --t-end 0.25 --backend cuda"
step hermite512k-1 120 $H
step hermite512k-4 120 $H --gpus 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

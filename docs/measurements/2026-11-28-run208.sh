#!/usr/bin/env bash
# Device run 208 (nvidia-h200): every kernel's GPU time in 400 launches mid-run of a Hermite 128K
# run on one GPU (ncu, duration only, clocks as they are), to see where a small block's ~45 us of
# GPU work goes (run 207).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|rror"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step ncu 240 $NCU --clock-control none --metrics gpu__time_duration.sum --launch-skip 6000 --launch-count 400 --csv $D/nbody $H
grep -E '^"' $L/ncu.log > $OUT/ncu-128k.csv; wc -l $OUT/ncu-128k.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

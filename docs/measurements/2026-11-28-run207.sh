#!/usr/bin/env bash
# Device run 207 (nvidia-h200): a Hermite block's wall time split on one GPU (measurement build
# -run207-block-laps-split.patch: per block size, the host's time to queue select+predict+force,
# to the counters' wait, and the wait), 128K and 16K Plummer to t = 0.25.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror|block laps"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
export NBODY_MEASURE_LAPS=1
for n in 131072 16384; do
  step h1-$n 60 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies $n
  grep "block laps" $L/h1-$n.log
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 213 (nvidia-h200-x2, the first GPU unless --gpus 2): Hermite block steps whose batch
# holds at most 64 bodies run the force kernel in blocks of 64 threads instead of 128 (half the
# padded rows; measurement build -run213-tiny-block.patch: NBODY_MEASURE_TINY_BLOCK=64, and
# NBODY_MEASURE_TINY_SPLIT caps those batches' j-split), 128K and 16K Plummer to t = 0.25, alternately;
# then ncu's kernel times of 400 launches mid-run at 128K with the 64-thread blocks.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda"
for k in a b; do for n in 131072 16384; do
  step def-$n-$k 60 $D/nbody $H --bodies $n
  NBODY_MEASURE_TINY_BLOCK=64 step t64-$n-$k 60 $D/nbody $H --bodies $n
  NBODY_MEASURE_TINY_BLOCK=64 NBODY_MEASURE_TINY_SPLIT=512 step t64s512-$n-$k 60 $D/nbody $H --bodies $n
  NBODY_MEASURE_TINY_SPLIT=256 step s256-$n-$k 60 $D/nbody $H --bodies $n
done; done
step two-def 60 $D/nbody $H --bodies 131072 --gpus 2
NBODY_MEASURE_TINY_BLOCK=64 step two-t64 60 $D/nbody $H --bodies 131072 --gpus 2
NBODY_MEASURE_TINY_BLOCK=64 step ncu 240 /usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 6000 --launch-count 400 --csv $D/nbody $H --bodies 131072
grep -E '^"' $L/ncu.log > $OUT/ncu-128k-t64.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

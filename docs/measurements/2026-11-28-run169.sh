#!/usr/bin/env bash
# Device run 169 (one GPU): the CUDA tests after the review mends of the relative criterion (one
# acceleration_norm for the walk and take_accelerations; `taken` only with the cost order); then
# where block steps lose their energy error on the galaxy scene (issue 32 item 3): milky-way-andromeda
# at 1M to t = 102.4 (1 Gyr), shared steps at dt 0.04 / 0.08 / 0.16 against block steps with the
# coarsest or the finest level held where shared steps are (dt_max 0.04; --max-level 2 under
# dt_max 0.16), so that the coarse bodies' steps and the level changes are seen apart.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|relative energy|force evaluations|levels at|^wall|in [0-9.]+ s"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 300 $D/nbody_cuda_tests --gtest_color=no
SNAP=$OUT/mwa-1m.nbsnap
step setup 200 $D/nbody run --scene scenes/milky-way-andromeda.toml --bodies 1048576 --steps 0 --out $SNAP --overwrite
R="/usr/bin/time -f wall_%e_s $D/nbody run --input $SNAP --backend cuda --gravity tree --t-end 102.4"
step shared-0.04 120 $R --dt 0.04
step shared-0.08 90 $R --dt 0.08
step shared-0.16 60 $R --dt 0.16
step block-0.16-eta0.2 150 $R --dt 0.16 --timesteps block --eta 0.2
step block-0.16-eta0.2-max2 150 $R --dt 0.16 --timesteps block --eta 0.2 --max-level 2
step block-0.04-eta0.2 150 $R --dt 0.04 --timesteps block --eta 0.2
step block-0.16-eta0.1 150 $R --dt 0.16 --timesteps block --eta 0.1
rm -f $SNAP; tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

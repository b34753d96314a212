#!/usr/bin/env bash
# Device run 39 (issue 18): the host side of a block step. The integrator's step levels from a table
# (no ldexp per level tried) and no snap/crackle divisions for the 4th order; the cuda engine's
# corrected j-particles and i-batch in one upload, the results and nearest indices in one copy back.
# Before (.dev-17/bin/old: this session's version 3) and after in the same call, with the bench's
# split of the wall time; the Hermite GPU tests.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
for r in 1 2; do
p plummer32k-t3-old-$r $D/old/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
p plummer32k-t3-new-$r $D/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
done
p plummer16k-old $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 69 (issue 18), the review's build: the Hermite engine line now asks the engine its name
# (not a search of its description); the CLI's Hermite and integrator tests on the cuda engine, and
# a hermite4 run with a kernel shape and a Hermite snapshot resumed without --integrator.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='Hermite*:Integrator*:Leapfrog*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|SKIPPED \]" $OUT/logs/cli-tests.log | head -12
timeout 60 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml -n 4096 --t-end 0.25 --backend cuda --block 256 --unroll 8 --j-split 4 -o $OUT/logs/quarter.nbsnap > $OUT/logs/run-shape.log 2>&1
echo "run with a kernel shape: exit $?"; grep -E "engine|interactions|energy" $OUT/logs/run-shape.log | head -4
timeout 60 $D/nbody run -i $OUT/logs/quarter.nbsnap --t-end 0.5 --backend cuda > $OUT/logs/resume.log 2>&1
echo "resume without --integrator: exit $?"; grep -E "engine|resuming|interactions|energy" $OUT/logs/resume.log | head -4
rm -f $OUT/logs/quarter.nbsnap
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"

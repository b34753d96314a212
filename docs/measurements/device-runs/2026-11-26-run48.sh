#!/usr/bin/env bash
# Device run 48 (issue 18): the ds kernel with velocities times 3 (the jerk's 3 (x.v)/r^2 without its
# multiply), against the committed kernel (bin/old) and a 12-warps-per-SM register budget (bin/lb12,
# 168 registers), in one call; ncu's stall reasons and per-instruction samples of the new kernel at
# 256K all active (block 256, unroll 8, 4 per thread, auto split); the Hermite GPU tests.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
k() { local name=$1; shift; timeout 120 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | sed 's/.*block/block/' | tail -3; }
for round in 1 2; do
  for b in old new lb12; do
    bin=$D/$b/nbody_hermite_bench; [ $b = new ] && bin=$D/nbody_hermite_bench
    k $b-256k-2568-r$round $bin kernel 262144 262144 3 256 8 4
    k $b-256k-2564-r$round $bin kernel 262144 262144 3 256 4 4
  done
done
for b in old new; do
  bin=$D/$b/nbody_hermite_bench; [ $b = new ] && bin=$D/nbody_hermite_bench
  k $b-32k-1284 $bin kernel 32768 32768 10 128 4 4
done
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "max relative" $OUT/logs/cuda-tests.log | head -8
timeout 150 ncu --clock-control none -k regex:force_ds --launch-skip 2 --launch-count 1 \
  --section SchedulerStats --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
  --section SourceCounters --section Occupancy --section LaunchStats --import-source no \
  -o $OUT/logs/ncu-ds $D/nbody_hermite_bench kernel 262144 262144 1 256 8 4 > $OUT/logs/ncu-run.log 2>&1
echo "ncu: exit $? (t = $((SECONDS-t0)) s)"; tail -3 $OUT/logs/ncu-run.log
if [ -f $OUT/logs/ncu-ds.ncu-rep ]; then
  ncu --import $OUT/logs/ncu-ds.ncu-rep --page details > $OUT/logs/ncu-details.txt 2>&1
  ncu --import $OUT/logs/ncu-ds.ncu-rep --page raw --csv > $OUT/logs/ncu-raw.csv 2>&1
  ncu --import $OUT/logs/ncu-ds.ncu-rep --page source --csv --print-source sass > $OUT/logs/ncu-source.csv 2>&1
  echo "source page: $(wc -l < $OUT/logs/ncu-source.csv) lines"; head -c 600 $OUT/logs/ncu-source.csv; echo
  grep -E "Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Theoretical Occ" $OUT/logs/ncu-details.txt
fi
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
python3 scripts/sass-loop-count.py $OUT/logs/sass-new.txt.gz 256,8,0,4 2>&1 | tail -5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"

#!/usr/bin/env bash
# Device run 49 (issue 18): run 48's ncu put 13 % of the ds kernel's warp samples in dispatch stalls, a
# third of them at instructions that overwrite a register a MUFU.RSQ read a few instructions before
# (the MUFU queue reads its operand late). Register allocations differ with the budget and the code
# shape, so the committed kernel (bin/old) is timed beside builds with other budgets and forms
# (bin/A..I: DS_MAXNREG / DS_MIN_WARPS / DS_RV_FORM, listed in the run's notes), 256K all active,
# block 256, unroll 8 and 4, four per thread, two rounds; each build's SASS counted for the hazard.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
k() { local name=$1; shift; timeout 60 "$@" > $OUT/logs/$name.log 2>&1; echo "$name $(grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/.*j_split \([0-9]*\).*, \(.*\) interactions.*/s\1:\2/' | tr '\n' ' ')"; }
for round in 1 2; do
  for b in old A B D E F G H I; do
    k $b-U8-r$round $D/$b/nbody_hermite_bench kernel 262144 262144 3 256 8 4
    k $b-U4-r$round $D/$b/nbody_hermite_bench kernel 262144 262144 3 256 4 4
  done
done
for b in old A B D E F G H I; do
  cuobjdump -sass $D/$b/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-$b.txt.gz
  echo "== $b"; python3 scripts/sass-mufu-operand-overwrites.py $OUT/logs/sass-$b.txt.gz
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"

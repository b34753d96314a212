#!/usr/bin/env bash
# On the GPU machine, repository root, $OUT set: times every lab executable of .dev-pack/lab.tar.xz
# (scripts/kernel-lab/build.sh, then `tar cJf .dev-pack/lab.tar.xz build-lab`), keeps the SASS of
# each, and samples the baseline's warp stalls per instruction with ncu.
set -u
t0=$SECONDS
tar -xJf .dev-pack/lab.tar.xz
mkdir -p $OUT/lab/sass
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.draw --format=csv,noheader
for exe in build-lab/lab-*; do
  case $exe in *.ptxas) continue;; esac
  name=$(basename $exe)
  p=$(cat scripts/kernel-lab/${VARIANTS:-variants.txt} | grep -v '^#' | awk -v n="$name" '{ k = $8 == "" ? 0 : $8; pk = $9 == "" ? 0 : $9; d = ($10 == "" || $10 == 0) ? "" : "-d"$10; tt = ($11 == "" || $11 == 1) ? "" : "-t"$11; mb = ($12 == "" || $12 == 1) ? "" : "-mb"$12; if ("lab-u"$1"-q"$2"-b"$3"-f"$4"-s"$5"-lb"$6"-k"k"-pk"pk d tt mb == n) print $7 }' | tr '\n' ' ')
  timeout 100 $exe $p ${EXTRA_BLOCKS:-} 2>&1 | tee -a $OUT/lab/times.txt
  cuobjdump -sass $exe > $OUT/lab/sass/$name.sass 2>&1
done
echo "timed all at $((SECONDS-t0)) s"

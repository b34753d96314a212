#!/usr/bin/env bash
# Screens order knobs here, without a GPU: compiles the lab for each LAB_S in $ORDERS (default: every
# combination of the bits 1 2 8 16 512 1024 2048) at one (U, Q, B, F) and prints the unit-mass loop's
# same-bank pairs per interaction (cubin-bank-pairs.py), fewest first.
#   U=8 Q=1 B=4 F=7 bash scripts/kernel-lab/search.sh      (from the repository root)
set -eu
U=${U:-8} Q=${Q:-1} B=${B:-4} F=${F:-7} K=${K:-0}
export PATH=/usr/local/cuda/bin:$PATH
out=$(mktemp -d)
if [ -z "${ORDERS:-}" ]; then
  ORDERS=$(python3 -c "
import itertools
bits = [1, 2, 8, 16, 512, 1024, 2048]
print(' '.join(str(sum(c)) for n in range(len(bits) + 1) for c in itertools.combinations(bits, n)))")
fi
for s in $ORDERS; do
  echo "nvcc -std=c++17 -O3 -arch=sm_90 --use_fast_math --expt-relaxed-constexpr -Isim/cuda -Isim/include \
    -DLAB_U=$U -DLAB_Q=$Q -DLAB_B=$B -DLAB_F=$F -DLAB_S=$s -DLAB_PIPE=$K -cubin -o $out/s$s.cubin \
    scripts/kernel-lab/force_lab.cu -Xptxas -v > $out/s$s.log 2>&1 && \
    echo \"S$s \$(grep -o 'Used [0-9]* registers' $out/s$s.log) \$(python3 scripts/kernel-lab/cubin-bank-pairs.py $out/s$s.cubin lab_force | sed 's/.* loop/loop/')\""
done | xargs -P 2 -I{} sh -c '{}' | sort -t' ' -k11,11n
rm -rf "$out"

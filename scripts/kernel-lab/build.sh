#!/usr/bin/env bash
# Builds one lab executable per line (U Q B F S LB p [K [PK [D [T [MINB]]]]], see force_lab.cu's head) of variants.txt (or $VARIANTS) into build-lab/ (run from the repository root).
set -eu
mkdir -p build-lab
export PATH=/usr/local/cuda/bin:$PATH
grep -v '^#' scripts/kernel-lab/${VARIANTS:-variants.txt} | while read -r u q b f s lb p k pk d tt mb; do
  k=${k:-0}; pk=${pk:-0}; d=${d:-0}; tt=${tt:-1}; mb=${mb:-1}
  name=lab-u$u-q$q-b$b-f$f-s$s-lb$lb-k$k-pk$pk$([ $d = 0 ] || echo -d$d)$([ $tt = 1 ] || echo -t$tt)$([ $mb = 1 ] || echo -mb$mb)
  echo "nvcc -std=c++17 -O3 -arch=sm_90 --use_fast_math --expt-relaxed-constexpr -Isim/cuda -Isim/include \
    -DLAB_U=$u -DLAB_Q=$q -DLAB_B=$b -DLAB_F=$f -DLAB_S=$s -DLAB_LB=$lb -DLAB_PIPE=$k -DLAB_PACK=$pk -DLAB_DIRECT=$d -DLAB_T=$tt -DLAB_MINB=$mb -Xptxas -v \
    -o build-lab/$name scripts/kernel-lab/force_lab.cu > build-lab/$name.ptxas 2>&1"
done | xargs -P 2 -I{} sh -c '{}'
for f in build-lab/*.ptxas; do echo "$(basename $f .ptxas): $(grep -o 'Used [0-9]* registers' $f) $(grep -o '[0-9]* bytes spill stores' $f)"; done

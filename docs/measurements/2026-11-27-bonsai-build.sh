#!/usr/bin/env bash
# Builds Bonsai (treecode/Bonsai @581fa8e, runtime/) for sm_90 with CUDA 13, single GPU, for the
# side-by-side runs against our tree code (see 2026-11-27-bonsai-run.sh and /work/shared/DEVICE.md).
#   usage: 2026-11-27-bonsai-build.sh DIR [PACK.tar.xz]
# DIR gets src/ (the checkout, patched with 2026-11-27-bonsai-sm90.patch) and build/ (CMake), whose
# binary is build/bonsai2_slowdust. With PACK, also stages bonsai/bin/bonsai2_slowdust (stripped) and
# bonsai/lib/ (bundle-libs.sh: libgomp; libcudart is static, libcuda is the driver's) under
# DIR/stage and packs them as PACK (xz).
# Env: BONSAI_MIRROR (the bare repository, default /work/.mirror/treecode+Bonsai/repo), JOBS (2),
# CUDA_HOME (/usr/local/cuda).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR [PACK.tar.xz]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patch=$here/2026-11-27-bonsai-sm90.patch
mirror=${BONSAI_MIRROR:-/work/.mirror/treecode+Bonsai/repo}
cuda=${CUDA_HOME:-/usr/local/cuda}
dir=$(mkdir -p "$1" && cd "$1" && pwd)
pack=${2:-}
[ -z "$pack" ] || pack=$(cd "$(dirname "$pack")" && pwd)/$(basename "$pack")

# The mirror lacks the blobs of images/deepfield[1-6].ppm (the *_1k.ppm ones are there, and are all
# that runtime/CMakeLists.txt's copy of images/ needs), so check out without them.
rm -rf "$dir/src"
git clone -q --no-checkout "$mirror" "$dir/src"
git -C "$dir/src" sparse-checkout set --no-cone '/*' '!/images/deepfield[1-6].ppm' 2>/dev/null
git -C "$dir/src" -c advice.detachedHead=false checkout -q 581fa8e
git -C "$dir/src" apply --whitespace=nowarn "$patch"

# USE_MPI/USE_MPIMT/USE_OPENGL/USE_DUST off, USE_CUB on; the GPU architecture comes only from
# CUDA_NVCC_FLAGS (the CMakeLists gives nvcc none); Release: host -O3, -DNDEBUG.
rm -rf "$dir/build"; mkdir -p "$dir/build"
cmake -S "$dir/src/runtime" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
  -DUSE_MPI=OFF -DUSE_MPIMT=OFF -DUSE_OPENGL=OFF -DUSE_DUST=OFF -DUSE_CUB=ON \
  -DCUDA_TOOLKIT_ROOT_DIR="$cuda" "-DCUDA_NVCC_FLAGS=-gencode;arch=compute_90,code=sm_90" > "$dir/build/cmake.log"
# Only the executable: the bonsai_amuse library (AMUSE) would compile every kernel a second time.
make -C "$dir/build" -j"${JOBS:-2}" bonsai2_slowdust > "$dir/build/make.log" 2>&1 \
  || { tail -40 "$dir/build/make.log" >&2; exit 1; }
ls -la "$dir/build/bonsai2_slowdust"

if [ -n "$pack" ]; then
  st=$dir/stage
  rm -rf "$st"; mkdir -p "$st/bonsai/bin"
  cp "$dir/build/bonsai2_slowdust" "$st/bonsai/bin/"
  strip --strip-unneeded "$st/bonsai/bin/bonsai2_slowdust"
  bash /work/shared/device/bundle-libs.sh "$st/bonsai/lib" "$st/bonsai/bin/bonsai2_slowdust" > /dev/null
  # Never MPI or NCCL (none is linked with USE_MPI off; this is a guard).
  rm -f "$st"/bonsai/lib/libmpi* "$st"/bonsai/lib/libnccl* "$st"/bonsai/lib/libopen-*
  if LD_LIBRARY_PATH=$st/bonsai/lib ldd "$st/bonsai/bin/bonsai2_slowdust" | grep 'not found' | grep -v libcuda.so.1; then
    echo "missing libraries (above)" >&2; exit 1
  fi
  tar -C "$st" -cf - bonsai | xz -T2 -9 > "$pack"
  ls -la "$pack"; tar -tvJf "$pack"
fi

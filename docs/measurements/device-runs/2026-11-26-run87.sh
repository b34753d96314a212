#!/usr/bin/env bash
# Device run 87 (nvidia-h100-x2): sim.render of issue 31 after the speed scale moved to the load
# (python-render-bench.py: the same state again, and a render after each step), and the render tests
# of the Python module on the NVIDIA EGL.
source docs/measurements/device-runs/unpack-pk.sh
echo "--- render bench"; timeout 150 $PY docs/measurements/python-render-bench.py 262144 1M 2>&1 | tee $L/render-bench.log | tail -4
echo "--- pytest test_render.py test_bit_for_bit.py"; timeout 120 $PY -m pytest tests/python/test_render.py tests/python/test_bit_for_bit.py -q -p no:cacheprovider 2>&1 | tee $L/pytest.log | tail -3
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"

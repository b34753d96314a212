#!/usr/bin/env python3
"""Checks that the tree's force walk instances are the same code before and after a change.

No cuobjdump or nvdisasm is installed on the CPU machine, but nvcc is: the PTX of each
walk_kernel<U, B> (force) instance of two builds is compared after the names that a change of file
name or of template arguments renames (the anonymous namespace's hash, the added <..., false>
flag, basic-block numbers, line info) are made equal. Identical PTX goes through the same ptxas:
the same SASS, the same step time. Also prints the opcode counts where they differ.

  FLAGS="-O3 -std=c++17 --use_fast_math -lineinfo --expt-relaxed-constexpr -arch=sm_90 -ptx -Isim/include -Isim/cuda"
  git show BASE:sim/cuda/tree/gpu_tree.cu > sim/cuda/tree/.base.cu    # and its gpu_tree.hpp, include renamed
  nvcc $FLAGS sim/cuda/tree/.base.cu -o base.ptx && nvcc $FLAGS sim/cuda/tree/gpu_tree.cu -o new.ptx
  scripts/compare-walk-ptx.py base.ptx new.ptx
Exit status 0 when every force instance matches, 1 otherwise.
"""
import collections
import re
import sys


def entries(path):
    found, name, body = {}, None, []
    for line in open(path).read().split("\n"):
        m = re.match(r"^(?:\.visible )?\.entry (\S+)\(", line)
        if m:
            name, body = m.group(1), [line]
            continue
        if name:
            body.append(line)
            if line == "}":
                found[name] = body
                name = None
    return found


def canonical(lines):
    out = []
    for line in lines:
        line = re.sub(r"_ZZ?N5nbody4cuda\d+_GLOBAL__N__[0-9a-f]+_\d+_[\w.]*?_cu_[0-9a-f]+", "ANON", line)
        line = re.sub(r"walk_kernelILi(\d)ELi(\d)E(Lb0E)?E", r"walk_kernelILi\1ELi\2EE", line)
        line = re.sub(r"\$L__BB\d+_", "$L__BB_", line)
        line = re.sub(r"_param_0\[\d+\]", "_param_0[N]", line)  # the parameter struct may grow at its end
        line = re.sub(r"\.loc\s.*|//.*", "", line)
        if line.strip():
            out.append(line)
    return out


def opcodes(lines):
    count = collections.Counter()
    for line in lines:
        m = re.match(r"\s+(?:@!?%p\d+\s+)?([a-z][\w.]*)\s", line)
        if m:
            count[m.group(1)] += 1
    return count


def force_instances(found):
    result = {}
    for name, body in found.items():
        m = re.search(r"walk_kernelILi(\d)ELi(\d)E(Lb0E)?E", name)
        if m:
            result[(m.group(1), m.group(2))] = body
    return result


def main(base_path, new_path):
    base, new = force_instances(entries(base_path)), force_instances(entries(new_path))
    same = True
    for key in sorted(base):
        a, b = canonical(base[key]), canonical(new.get(key, []))
        differing = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
        ca, cb = opcodes(a), opcodes(b)
        ops = {op: (ca[op], cb[op]) for op in set(ca) | set(cb) if ca[op] != cb[op]}
        print(f"walk_kernel<U={key[0]}, B={key[1]}>: {sum(ca.values())} -> {sum(cb.values())} instructions, "
              f"{differing} lines differ" + (f", opcodes {ops}" if ops else ""))
        same = same and differing == 0
    return 0 if same and base else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

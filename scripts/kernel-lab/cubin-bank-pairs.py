#!/usr/bin/env python3
"""Same-bank operand pairs per interaction in the unit-mass j-loop of a kernel in an sm_90 cubin,
read straight from the machine code, so that no disassembler (cuobjdump is not on the development
machines) is needed: the lab's variants can be screened here before any of them goes to the GPU.

    scripts/kernel-lab/cubin-bank-pairs.py file.cubin [kernel-name-substring]

The fields (checked against cuobjdump's listing of the same code): opcode = bits 0-11, Rd = 16-23,
Ra = 24-31, Rb = 32-39, Rc = bits 64-71, operand reuse flags A/B/C = bits 122-124. The loop is the
longest run of FFMA/FADD/FMUL/MUFU/LDS instructions with at most two FMULs per MUFU; the counting
rule is sass-bank-pairs.py's (two banks, register number mod 2; an operand the previous instruction
marked .reuse in the same slot is not read)."""
import collections, struct, sys

FFMA, FADD, FMUL, MUFU, LDS = 0x23, 0x21, 0x20, 0x08, 0x84


def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + k * shentsize) for k in range(shnum)]
    strtab = hdrs[shstrndx]
    def name(off):
        s = data[strtab[4] + off:]
        return s[:s.index(b'\0')].decode()
    return {name(h[0]): data[h[4]:h[4] + h[5]] for h in hdrs}


def decode(code):
    for k in range(0, len(code), 16):
        lo, hi = struct.unpack_from('<QQ', code, k)
        opc = lo & 0xfff
        yield opc, (lo >> 16) & 0xff, (lo >> 24) & 0xff, (lo >> 32) & 0xff, hi & 0xff, (hi >> 58) & 0x7


def sources(opc, ra, rb, rc):
    """(slot, register) pairs of the FP32 operands read from the register file."""
    kind, low = opc >> 8, opc & 0xff
    regs = []
    if low in (FFMA, FADD, FMUL):
        regs.append((0, ra))
        if kind == 0x2:  # register-register form
            regs.append((1, rb))
        if low == FFMA:
            regs.append((2, rc))
    return [(s, r) for s, r in regs if r != 255]


def hot_loop(ins):
    best, run = [], []
    for x in ins + [None]:
        if x is not None and (x[0] & 0xff) in (FFMA, FADD, FMUL, MUFU, LDS) and (x[0] & 0xff) != 0x84 or \
           x is not None and x[0] in (0x984, 0x981, 0xabb):  # LDS.128, LDG.128 (LAB_DIRECT), ULDC.64 (const_probe)
            run.append(x)
            continue
        mufu = sum(1 for y in run if (y[0] & 0xff) == MUFU and y[0] >> 8 == 3)
        fmul = sum(1 for y in run if (y[0] & 0xff) == FMUL)
        if mufu >= 8 and fmul <= 2 * mufu + 2 and len(run) > len(best):
            best = run
        run = []
    return best


def pairs(loop):
    total, prev_reuse = 0, {}
    for opc, rd, ra, rb, rc, reuse in loop:
        srcs = sources(opc, ra, rb, rc)
        now = {s: r for s, r in srcs if reuse >> s & 1}
        read = {r for s, r in srcs if prev_reuse.get(s) != r}
        prev_reuse = now
        banks = collections.Counter(r % 2 for r in read)
        total += max(banks.values()) - 1 if banks else 0
    return total


if __name__ == '__main__':
    secs = sections(open(sys.argv[1], 'rb').read())
    want = sys.argv[2] if len(sys.argv) > 2 else ''
    for name, code in secs.items():
        if not name.startswith('.text.') or want not in name:
            continue
        loop = hot_loop(list(decode(code)))
        if not loop:
            continue
        mufu = sum(1 for y in loop if (y[0] & 0xff) == MUFU and y[0] >> 8 == 3)
        print(f'{name[6:][:60]:60s} loop {len(loop):4d} instr {mufu:3d} MUFU  pairs/interaction {pairs(loop) / mufu:.2f}')

#!/usr/bin/env python3
"""sass_count.py - dynamic warp-instruction counts of CUDA kernels from their
compiled SASS, without a GPU: the counting half of bench/gpu_model.py.

From a host object (or an executable / static library member) it takes the
sm_90 cubins out of the .nv_fatbin section, disassembles each with nvdisasm,
and for every kernel builds the control-flow graph of each function (the
kernel and the device functions it calls), its natural loops, and then the
instructions one warp issues in one call:

  - straight-line code is counted as compiled;
  - a loop's blocks are counted once per iteration, with the trip count
    solved from the SASS where the loop is counted (an induction register
    stepped by a constant, compared with a constant, a kernel parameter
    field or a value derived from them), else taken from an annotation
    (gpu_model.py's tables, by the loop's ordinal; see --loops);
  - both sides of a branch are counted (a divergent warp runs both), except
    where the branch's condition is known for the parameter set and the warp
    (predicates computed from TaskParams fields, thread and lane indices and
    constants are evaluated for the 32 lanes of the warp: all agree, one
    side only), and except BRA.DIV's slow path (taken only by a warp that is
    not converged at a shuffle, which our kernels never are);
  - a call adds the callee's count; Keccak permutations (the keccak_f1600
    function, or a warp-wide round loop of shuffles) are left out and costed
    per permutation, for gpu_model.py to multiply by the algorithm's count.

CUDA 13 writes cubins that the newest nvdisasm this machine can get (Debian
12's CUDA 11.8, scripts/fetch-cuda-tools.sh) refuses by their header alone
(the new ELF OS/ABI and flags); the SASS encoding of sm_90 itself is the same.
So the header is rewritten to the old form before disassembly, and every
16-byte slot nvdisasm leaves out (instructions 11.8 does not know; in
practice VIADD, opcode 0x836/0xc36) is decoded here from its bits: each is
counted, and VIADD's destination, source and immediate are tracked like
IADD3's.

Exact for what it counts; what it does not model: per-lane divergence beyond
"both sides" (a data-dependent branch whose lanes all go one way is still
counted both ways), and memory or pipeline stalls (those are gpu_model.py's).
"""
import functools
import os
import re
import shutil
import struct
import subprocess
import tempfile

INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\S+):\s*$")
TARGET = re.compile(r"`\(([^)]+)\)")
CBANK = re.compile(r"^c\[0x0\]\[(0x[0-9a-f]+)\]$")
IMM = re.compile(r"^-?0x[0-9a-f]+$|^-?[0-9]+$")


# ---------------------------------------------------------------------------
# ELF and fatbin


def elf_sections(data):
    """{name: (offset, size)} of an ELF64 little-endian file."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = []
    for i in range(shnum):
        name, _typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        raw.append((name, off, size))
    strtab = raw[shstrndx][1]
    out = {}
    for name, off, size in raw:
        end = data.index(b"\0", strtab + name)
        out[data[strtab + name:end].decode()] = (off, size)
    return out


def fatbin_cubins(obj_bytes):
    """The sm_90 ELF images in an object's .nv_fatbin section, as bytes.
    Fatbin layout (as nvcc writes it): a 16-byte header (magic 0xBA55ED50,
    version, header size, size), then entries: kind (1 PTX, 2 ELF), version,
    entry header size, payload size, ..., at 56 the uncompressed size; an
    ELF payload starts with \\x7fELF, or with zstd's magic when compressed."""
    secs = elf_sections(obj_bytes)
    name = ".nv_fatbin" if ".nv_fatbin" in secs else "__nv_relfatbin" if "__nv_relfatbin" in secs else None
    if name is None:  # (__nv_relfatbin: objects built with -rdc)
        return []
    off, size = secs[name]
    fb = obj_bytes[off:off + size]
    out = []
    pos = 0
    while pos + 16 <= len(fb):
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", fb, pos)
        if magic != 0xBA55ED50:
            break
        entry = pos + hsize
        end = pos + hsize + fsize
        while entry < end:
            kind, _ev, ehsize, psize = struct.unpack_from("<HHIQ", fb, entry)
            payload = fb[entry + ehsize:entry + ehsize + psize]
            if kind == 2 and payload[:4] == ZSTD_MAGIC and ehsize >= 64:
                payload = unzstd(payload, struct.unpack_from("<Q", fb, entry + 56)[0])
            if kind == 2 and payload[:4] == b"\x7fELF":
                out.append(bytes(payload))
            entry += ehsize + psize
        pos = end
    return out


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def unzstd(data, size):
    """A zstd-compressed fatbin entry (CUDA 13 compresses some), through the
    zstd tool; the entry's padding after the frame makes it complain, so
    the output is accepted when it has the size the entry header gives."""
    zstd = shutil.which("zstd")
    if zstd is None:
        raise RuntimeError("a compressed cubin and no zstd tool to open it (apt-get install zstd)")
    out = subprocess.run([zstd, "-d", "-c", "-q"], input=bytes(data), capture_output=True).stdout
    if len(out) != size:
        raise RuntimeError("zstd gave %d bytes of a %d-byte cubin" % (len(out), size))
    return out


def legacy_header(cubin):
    """The cubin with the pre-CUDA-12.8 ELF header (OS/ABI 0x33, ABI version
    7, flags EF_CUDA_SM90 | virtual SM90 | 64-bit | unified texmode) that
    older nvdisasm reads. Only sm_90 is accepted."""
    d = bytearray(cubin)
    flags, = struct.unpack_from("<I", d, 0x30)
    if d[7] == 0x41:  # CUDA 13: arch in bits 8-15
        arch = (flags >> 8) & 0xFF
    else:
        arch = flags & 0xFF
    if arch != 90:
        raise ValueError("cubin for sm_%d, not sm_90" % arch)
    d[7], d[8] = 0x33, 7
    struct.pack_into("<I", d, 0x30, 0x5A055A)
    return bytes(d)


# ---------------------------------------------------------------------------
# Instructions


class Insn:
    __slots__ = ("addr", "guard", "op", "args", "text")

    def __init__(self, addr, guard, op, args, text):
        self.addr, self.guard, self.op, self.args, self.text = addr, guard, op, args, text

    @property
    def base(self):
        return self.op.split(".")[0]

    def __repr__(self):
        return "%05x %s" % (self.addr, self.text)


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(`":
            depth += 1
        elif ch in "])" and depth:
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_insn(addr, text):
    guard = None
    t = text
    if t.startswith("@"):
        g, t = t.split(None, 1)
        guard = g[1:]
    parts = t.split(None, 1)
    op = parts[0]
    args = split_args(parts[1]) if len(parts) > 1 else []
    return Insn(addr, guard, op, args, text)


def decode_unknown(addr, word0):
    """An instruction nvdisasm 11.8 skipped: VIADD (0x836 immediate, 0xc36
    constant bank) decoded from its bits (Rd 16-23, Ra 24-31, imm 32-63,
    guard 12-15); anything else as an opaque instruction."""
    opc = word0 & 0xFFF
    pred = (word0 >> 12) & 7
    neg = (word0 >> 15) & 1
    guard = None if pred == 7 and not neg else ("!" if neg else "") + ("PT" if pred == 7 else "P%d" % pred)
    rd, ra = (word0 >> 16) & 0xFF, (word0 >> 24) & 0xFF
    reg = lambda r: "RZ" if r == 255 else "R%d" % r
    if opc == 0x836:
        imm = (word0 >> 32) & 0xFFFFFFFF
        if imm >= 1 << 31:
            imm -= 1 << 32
        return Insn(addr, guard, "VIADD", [reg(rd), reg(ra), hex(imm)], "VIADD %s, %s, %s" % (reg(rd), reg(ra), hex(imm)))
    if opc == 0xC36:
        return Insn(addr, guard, "VIADD", [reg(rd), reg(ra), "c[?]"], "VIADD %s, %s, c[?]" % (reg(rd), reg(ra)))
    return Insn(addr, guard, "UNKNOWN_%03x" % opc, [], "UNKNOWN opcode 0x%03x" % opc)


class Function:
    def __init__(self, name, section):
        self.name, self.section = name, section
        self.insns = []
        self.labels = {}  # label -> addr

    @property
    def short(self):
        return demangle_short(self.name.split("$")[-1])


def demangle_short(mangled):
    """The last name component of an Itanium-mangled name (no c++filt needed)."""
    pos = 3 if mangled.startswith("_ZN") else 2 if mangled.startswith("_Z") else -1
    if pos < 0:
        return mangled
    names = []
    while pos < len(mangled) and mangled[pos].isdigit():
        end = pos
        while mangled[end].isdigit():
            end += 1
        n = int(mangled[pos:end])
        names.append(mangled[end:end + n])
        pos = end + n
    names = [n for n in names if not n.startswith("_GLOBAL__N")]
    return names[-1] if names else mangled


def kernel_registers(cubin):
    """{kernel: registers per thread}, from the EIATTR_REGCOUNT (0x2f)
    attributes of the cubin's .nv.info section (symbol index, count)."""
    secs = elf_sections(cubin)
    if ".nv.info" not in secs or ".symtab" not in secs or ".strtab" not in secs:
        return {}
    sym_off, sym_size = secs[".symtab"]
    str_off, _ = secs[".strtab"]
    names = []
    for i in range(sym_size // 24):
        n, = struct.unpack_from("<I", cubin, sym_off + 24 * i)
        names.append(cubin[str_off + n:cubin.index(b"\0", str_off + n)].decode())
    off, size = secs[".nv.info"]
    out = {}
    p = off
    while p + 4 <= off + size:
        fmt, attr = cubin[p], cubin[p + 1]
        if fmt == 4:  # EIFMT_SVAL: a 16-bit size, then the value
            n, = struct.unpack_from("<H", cubin, p + 2)
            if attr == 0x2F and n == 8:
                sym, regs = struct.unpack_from("<II", cubin, p + 4)
                if sym < len(names):
                    out[names[sym]] = regs
            p += 4 + n
        else:
            p += 4
    return out


def disassemble(nvdisasm, cubin):
    """Kernels of one cubin: {kernel name: {function name: Function}}, the
    kernel's own code under its name, each callee under its local label."""
    legacy = legacy_header(cubin)
    secs = elf_sections(legacy)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(legacy)
        f.flush()
        p = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("nvdisasm failed: " + p.stderr.strip())
    kernels = {}
    section = None
    func = None
    pending = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*\.section\s+(\.text\.[^,]+),", line)
        if m:
            section = m.group(1)
            kernels[section[6:]] = {}
            func, pending = None, []
            continue
        if section is None:
            continue
        m = LABEL.match(line)
        if m:
            lab = m.group(1)
            if lab.startswith(".text."):
                continue
            if lab.startswith(".L"):
                pending.append(lab)
            else:
                func = Function(lab, section)
                kernels[section[6:]][lab] = func
                pending = []
            continue
        m = INSN.match(line)
        if m and func is not None:
            addr = int(m.group(1), 16)
            for lab in pending:
                func.labels[lab] = addr
            pending = []
            func.insns.append(parse_insn(addr, m.group(2)))
    # Fill the slots nvdisasm skipped, from the section's bytes.
    for kname, funcs in kernels.items():
        off, size = secs[".text." + kname]
        ordered = sorted(funcs.values(), key=lambda fn: fn.insns[0].addr if fn.insns else 0)
        for i, fn in enumerate(ordered):
            if not fn.insns:
                continue
            end = ordered[i + 1].insns[0].addr if i + 1 < len(ordered) and ordered[i + 1].insns else size
            known = {ins.addr for ins in fn.insns}
            start = fn.insns[0].addr
            last = fn.insns[-1].addr
            for a in range(start, min(end, last + 16), 16):
                if a not in known:
                    w0, = struct.unpack_from("<Q", legacy, off + a)
                    fn.insns.append(decode_unknown(a, w0))
            fn.insns.sort(key=lambda ins: ins.addr)
    return kernels


# ---------------------------------------------------------------------------
# Control flow


def branch_target(ins):
    m = TARGET.search(ins.text)
    return m.group(1) if m else None


class Block:
    __slots__ = ("idx", "insns", "succ", "pred", "cold", "calls")

    def __init__(self, idx):
        self.idx, self.insns, self.succ, self.pred, self.cold, self.calls = idx, [], [], [], set(), []


def build_cfg(fn):
    insns = fn.insns
    addr_index = {ins.addr: i for i, ins in enumerate(insns)}
    leaders = {0}
    label_at = {}
    for lab, a in fn.labels.items():
        if a in addr_index:
            leaders.add(addr_index[a])
            label_at[lab] = addr_index[a]
    for i, ins in enumerate(insns):
        if ins.base in ("BRA", "EXIT", "RET", "BRX", "JMX", "JMP", "BPT", "KILL") and i + 1 < len(insns):
            leaders.add(i + 1)
    starts = sorted(leaders)
    block_of = {}
    blocks = []
    for bi, s in enumerate(starts):
        e = starts[bi + 1] if bi + 1 < len(starts) else len(insns)
        b = Block(bi)
        b.insns = insns[s:e]
        blocks.append(b)
        block_of[s] = bi
    for b in blocks:
        last = b.insns[-1]
        nxt = b.idx + 1 if b.idx + 1 < len(blocks) else None
        conditional = last.guard is not None and last.guard != "PT"
        for ins in b.insns:
            if ins.base == "CALL":
                t = branch_target(ins)
                if t:
                    b.calls.append(t)
        if last.base == "BRA":
            t = branch_target(last)
            tb = block_of.get(label_at.get(t)) if t else None
            if tb is not None:
                b.succ.append(tb)
                if ".DIV" in last.op:
                    b.cold.add(tb)
            if (conditional or ".DIV" in last.op) and nxt is not None:
                b.succ.append(nxt)
        elif last.base in ("EXIT", "RET", "BPT", "KILL", "BRX", "JMX", "JMP"):
            if conditional and nxt is not None:
                b.succ.append(nxt)
        elif nxt is not None:
            b.succ.append(nxt)
        for s in b.succ:
            blocks[s].pred.append(b.idx)
    return blocks


def dominators(blocks):
    """Immediate dominators (Cooper, Harvey, Kennedy), entry = block 0."""
    order, seen = [], set()
    stack = [(0, iter(blocks[0].succ))]
    seen.add(0)
    while stack:
        n, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(blocks[s].succ)))
                break
        else:
            order.append(n)
            stack.pop()
    rpo = list(reversed(order))
    pos = {n: i for i, n in enumerate(rpo)}
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            preds = [p for p in blocks[n].pred if p in idom]
            if not preds:
                continue
            new = preds[0]
            for p in preds[1:]:
                a, b = p, new
                while a != b:
                    while pos[a] > pos[b]:
                        a = idom[a]
                    while pos[b] > pos[a]:
                        b = idom[b]
                new = a
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    return idom, pos


def dominates(idom, a, b):
    while True:
        if a == b:
            return True
        if b == 0 or b not in idom:
            return False
        b = idom[b]


class Loop:
    def __init__(self, header):
        self.header, self.latches, self.body = header, [], {header}
        self.ordinal = 0


def natural_loops(blocks, idom):
    loops = {}
    for b in blocks:
        if b.idx not in idom:
            continue
        for s in b.succ:
            if dominates(idom, s, b.idx):
                lp = loops.setdefault(s, Loop(s))
                lp.latches.append(b.idx)
                stack = [b.idx]
                while stack:
                    n = stack.pop()
                    if n not in lp.body:
                        lp.body.add(n)
                        stack.extend(blocks[n].pred)
    out = sorted(loops.values(), key=lambda lp: blocks[lp.header].insns[0].addr)
    for i, lp in enumerate(out):
        lp.ordinal = i
    return out


# ---------------------------------------------------------------------------
# Values: what a register holds, as a function of (params, tid), when known.
# A linear pass in address order (values set before a loop and not written
# in it are what the loop sees); a register written by anything not modelled
# becomes unknown (None).


def const_value(tok):
    if tok in ("RZ", "URZ"):
        return 0
    if IMM.match(tok):
        return int(tok, 16) if "0x" in tok else int(tok)
    return None


def to_s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class Sym:
    """A value: kind 'const' (v), 'param' (byte offset into the kernel
    parameters), 'tid', or 'expr' (fn(env) with env = (params, tid))."""

    def __init__(self, fn, deps=()):
        self.fn, self.deps = fn, frozenset(deps)

    def __call__(self, env):
        return self.fn(env)


def sym_const(v):
    return Sym(lambda env, v=v: v)


def operand(tok, regs):
    neg = tok.startswith("-")
    t = tok[1:] if neg else tok
    t = t.split(".reuse")[0]
    if t.startswith("|"):
        return None
    c = const_value(t)
    if c is not None:
        s = sym_const(c)
    else:
        m = CBANK.match(t)
        if m:
            off = int(m.group(1), 16)
            s = Sym(lambda env, off=off: env[0].get(off), ("param",))
        else:
            s = regs.get(t)
    if s is None:
        return None
    if neg:
        return Sym(lambda env, s=s: None if s(env) is None else -s(env), s.deps)
    return s


def combine(fn, *syms):
    if any(s is None for s in syms):
        return None
    deps = set()
    for s in syms:
        deps |= s.deps

    def f(env):
        vals = [s(env) for s in syms]
        if any(v is None for v in vals):
            return None
        return to_s32(fn(*vals))
    return Sym(f, deps)


CMP = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b,
}


def isetp_sym(ins, regs, preds):
    """The predicate an ISETP/UISETP writes, as a Sym giving True/False, or None."""
    parts = ins.op.split(".")
    cmp = next((p for p in parts if p in CMP), None)
    unsigned = "U32" in parts
    combo = "AND" if "AND" in parts else "OR" if "OR" in parts else None
    if cmp is None or combo is None or len(ins.args) < 5:
        return None
    a, b = operand(ins.args[2], regs), operand(ins.args[3], regs)
    q = ins.args[4]
    qs = pred_sym(q, preds)
    if a is None or b is None or qs is None:
        return None

    def f(env):
        x, y, z = a(env), b(env), qs(env)
        if x is None or y is None or z is None:
            return None
        if unsigned:
            x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        r = CMP[cmp](x, y)
        return (r and z) if combo == "AND" else (r or z)
    return Sym(f, a.deps | b.deps | qs.deps)


def pred_sym(tok, preds):
    neg = tok.startswith("!")
    t = tok[1:] if neg else tok
    if t in ("PT", "UPT"):
        s = Sym(lambda env: True)
    else:
        s = preds.get(t)
    if s is None:
        return None
    if neg:
        return Sym(lambda env, s=s: None if s(env) is None else not s(env), s.deps)
    return s


def dests(ins):
    """Registers an instruction writes (best effort: its first operand, and
    the pair of a .64 load)."""
    if not ins.args:
        return []
    d = ins.args[0].split(".reuse")[0]
    if not re.match(r"^U?R\d+$", d):
        return []
    out = [d]
    if ".64" in ins.op or ins.base == "CS2R":
        pre = "UR" if d.startswith("UR") else "R"
        out.append("%s%d" % (pre, int(d[len(pre):]) + 1))
    if ".128" in ins.op:
        pre = "UR" if d.startswith("UR") else "R"
        out += ["%s%d" % (pre, int(d[len(pre):]) + k) for k in (1, 2, 3)]
    return out


def step(ins, regs, preds):
    """Updates regs/preds for one instruction."""
    op, base, a = ins.op, ins.base, ins.args
    if base in ("ISETP", "UISETP") and len(a) >= 2:
        s = isetp_sym(ins, regs, preds) if ins.guard is None else None
        preds[a[0]] = s
        if a[1] not in ("PT", "UPT"):
            preds[a[1]] = None
        return
    if base in ("PLOP3", "UPLOP3", "FSETP", "DSETP", "VOTE", "VOTEU", "R2P", "LDS", "SHFL") and a:
        for t in a[:2]:
            if re.match(r"^!?U?P\d+$", t):
                preds[t.lstrip("!")] = None
    ds = dests(ins)
    if not ds:
        return
    val = None
    if ins.guard is None:
        if base == "S2R" and len(a) == 2:
            if a[1] == "SR_TID.X":
                val = Sym(lambda env: env[1], ("tid",))
            elif a[1] == "SR_LANEID":
                val = Sym(lambda env: env[1] & 31, ("tid",))
        elif base in ("LDC", "ULDC") and len(a) == 2:
            m = CBANK.match(a[1])
            if m:
                off = int(m.group(1), 16)
                if ".64" in op:
                    regs[ds[0]] = Sym(lambda env, off=off: env[0].get(off), ("param",))
                    regs[ds[1]] = Sym(lambda env, off=off: env[0].get(off + 4), ("param",))
                    return
                if op in ("LDC", "ULDC"):
                    val = Sym(lambda env, off=off: env[0].get(off), ("param",))
        elif base in ("MOV", "UMOV") and len(a) == 2:
            val = operand(a[1], regs)
        elif op == "IMAD.MOV.U32" and len(a) == 4 and a[1] == "RZ" and a[2] == "RZ":
            val = operand(a[3], regs)
        elif op == "IMAD.MOV" and len(a) == 4 and a[1] == "RZ" and a[2] == "RZ":
            val = operand(a[3], regs)
        elif op in ("IADD3", "UIADD3") and len(a) == 4:
            val = combine(lambda x, y, z: x + y + z, operand(a[1], regs), operand(a[2], regs), operand(a[3], regs))
        elif op == "VIADD" and len(a) == 3:
            val = combine(lambda x, y: x + y, operand(a[1], regs), operand(a[2], regs))
        elif op in ("IMAD", "UIMAD", "IMAD.IADD") and len(a) == 4:
            val = combine(lambda x, y, z: x * y + z, operand(a[1], regs), operand(a[2], regs), operand(a[3], regs))
        elif op in ("IMAD.SHL.U32", "IMAD.SHL") and len(a) == 4:
            val = combine(lambda x, y, z: x * y + z, operand(a[1], regs), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.R.U32.HI", "USHF.R.U32.HI") and len(a) == 4 and a[1] in ("RZ", "URZ"):
            val = combine(lambda n, x: (x & 0xFFFFFFFF) >> (n & 31), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.R.S32.HI", "USHF.R.S32.HI") and len(a) == 4 and a[1] in ("RZ", "URZ"):
            val = combine(lambda n, x: to_s32(x) >> (n & 31), operand(a[2], regs), operand(a[3], regs))
        elif op in ("SHF.L.U32", "USHF.L.U32") and len(a) == 4 and a[3] in ("RZ", "URZ"):
            val = combine(lambda x, n: x << (n & 31), operand(a[1], regs), operand(a[2], regs))
        elif op in ("LOP3.LUT", "ULOP3.LUT") and len(a) >= 5:
            lut = const_value(a[4])
            x, y, z = operand(a[1], regs), operand(a[2], regs), operand(a[3], regs)
            if lut is not None and x is not None and y is not None and z is not None:
                def f3(u, v, w, lut=lut):
                    r = 0
                    for bit in range(32):
                        i = ((u >> bit) & 1) << 2 | ((v >> bit) & 1) << 1 | ((w >> bit) & 1)
                        r |= ((lut >> i) & 1) << bit
                    return r
                val = combine(f3, x, y, z)
        elif op in ("SEL", "USEL") and len(a) == 4:
            x, y, pz = operand(a[1], regs), operand(a[2], regs), pred_sym(a[3], preds)
            if x is not None and y is not None and pz is not None:
                val = Sym(lambda env: (lambda c: None if c is None else (x(env) if c else y(env)))(pz(env)),
                          x.deps | y.deps | pz.deps)
    for d in ds:
        regs[d] = None
    if val is not None:
        regs[ds[0]] = val


# ---------------------------------------------------------------------------
# Counting


class Analysis:
    """One function: blocks, loops, and the values the linear pass saw at
    each loop header and each ISETP."""

    def __init__(self, fn):
        self.fn = fn
        self.blocks = build_cfg(fn)
        self.idom, self.rpo = dominators(self.blocks)
        self.loops = natural_loops(self.blocks, self.idom)
        self.block_loops = {b.idx: [lp for lp in self.loops if b.idx in lp.body] for b in self.blocks}
        headers = {self.blocks[lp.header].insns[0].addr for lp in self.loops}
        self.at_header = {}
        self.isetp = {}   # addr -> Sym of the predicate written
        self.branch = {}  # addr -> Sym of a branch's guard
        self.values = {}  # addr -> {reg: Sym} before the instruction, for compares' operands
        regs, preds = {}, {}
        written = {}  # loop header addr -> registers and predicates its body writes
        for lp in self.loops:
            w = set()
            for n in lp.body:
                for ins in self.blocks[n].insns:
                    w.update(dests(ins))
                    if ins.base in ("ISETP", "UISETP", "PLOP3", "UPLOP3") and ins.args:
                        w.update(t.lstrip("!") for t in ins.args[:2])
            written[self.blocks[lp.header].insns[0].addr] = w
        for ins in fn.insns:
            if ins.addr in headers:
                # What the loop's own iterations see at entry (the loop solver's
                # start values), then its body's registers become unknown: a
                # value read in the loop must not change across iterations.
                self.at_header[ins.addr] = dict(regs)
                for r in written[ins.addr]:
                    regs.pop(r, None)
                    preds.pop(r, None)
            if ins.base in ("ISETP", "UISETP"):
                self.values[ins.addr] = dict(regs)
            if ins.base == "BRA" and ins.guard and ins.guard not in ("PT",):
                self.branch[ins.addr] = pred_sym(ins.guard, preds)
            step(ins, regs, preds)
            if ins.base in ("ISETP", "UISETP"):
                self.isetp[ins.addr] = preds.get(ins.args[0])
        self.block_of_addr = {ins.addr: b.idx for b in self.blocks for ins in b.insns}

    def position(self, addr):
        return self.block_of_addr[addr]

    def find_setp(self, blk, upto, pname):
        """The ISETP that last wrote predicate pname before index upto of
        block blk (through PLOP3 copies and 64-bit compares' low words):
        (insn, negated) or None."""
        neg = False
        insns = blk.insns[:upto]
        for ins in reversed(insns):
            writes = [t.lstrip("!") for t in ins.args[:2]] if ins.args else []
            if pname not in writes:
                continue
            if ins.guard:
                return None
            if ins.base in ("ISETP", "UISETP") and ins.args[0] == pname:
                if ".EX" not in ins.op:
                    return ins, neg
                # The high word of a 64-bit compare (against zero): the low
                # word's compare feeds it; counters stay below 2^32.
                if ins.args[3] not in ("RZ", "URZ") or len(ins.args) < 6:
                    return None
                pname = ins.args[5].lstrip("!")
                continue
            if ins.base == "PLOP3" and len(ins.args) == 7 and ins.args[1:4] == ["PT", "PT", "PT"] \
                    and ins.args[5] == "0x80":
                pname = ins.args[4]
                if pname.startswith("!"):
                    neg = not neg
                    pname = pname[1:]
                continue
            return None
        return None

    def solve_trip(self, lp, env_for, inner_trips):
        """Iterations of loop lp per entry, as (trip, exact), or None where
        the SASS does not show a counted loop. Exact: one compare of an
        induction register stepped once per iteration by a constant. Else
        an estimate: a compound condition (the tightest counted part), or a
        register stepped in several places or under a guard (all steps
        taken, nested loops' trips included). env_for(lane) -> env; the
        warp's trip is the most over its lanes."""
        cands = []
        for n in lp.body:
            last = self.blocks[n].insns[-1]
            if last.base != "BRA" or last.guard in (None, "PT") or ".DIV" in last.op:
                continue
            succ = self.blocks[n].succ
            target = succ[0] if succ else None
            if target == lp.header and n in lp.latches:
                cands.append((n, last, True))   # taken: continue
            elif target is not None and target not in lp.body:
                cands.append((n, last, False))  # taken: leave
            elif len(succ) > 1 and succ[1] not in lp.body and target in lp.body:
                cands.append((n, last, None))   # not taken: leave
        cands = [c for c in cands if all(dominates(self.idom, c[0], la) for la in lp.latches)]
        if len(cands) != 1:
            return None
        n, br, mode = cands[0]
        blk = self.blocks[n]
        gneg = br.guard.startswith("!")
        # The loop continues iff the guard predicate P == cont_pol.
        cont_pol = (not gneg) if mode in (True, None) else gneg
        found = self.find_setp(blk, len(blk.insns) - 1, br.guard.lstrip("!"))
        if found is None:
            return None
        comps = []  # (setp, pol): the component continues the loop iff its compare == pol
        todo = [(found[0], cont_pol != found[1], 0)]
        all_end = True
        while todo:
            setp, pol, depth = todo.pop()
            parts = setp.op.split(".")
            combo = "AND" if "AND" in parts else "OR"
            q = setp.args[4] if len(setp.args) > 4 else "PT"
            comps.append((setp, pol))
            if q in ("PT", "UPT"):
                continue
            # P = A combo Q: each part ends the loop alone for AND-continue / OR-exit.
            ends = (combo == "AND" and pol) or (combo == "OR" and not pol)
            all_end = all_end and ends
            idx = blk.insns.index(setp)
            sub = self.find_setp(blk, idx, q.lstrip("!")) if depth < 3 else None
            if sub is not None:
                todo.append((sub[0], pol != (q.startswith("!") != sub[1]), depth + 1))
            elif not ends:
                return None
        exact = len(comps) == 1
        trips = []
        for setp, pol in comps:
            t = self.solve_component(lp, setp, pol, env_for, inner_trips)
            if t is not None:
                trips.append(t[0])
                exact = exact and t[1]
        if not trips:
            return None
        return (min(trips) if all_end else max(trips)), exact

    def solve_component(self, lp, setp, pol, env_for, inner_trips):
        parts = setp.op.split(".")
        cmp = next((p for p in parts if p in CMP), None)
        if cmp is None or setp.guard:
            return None
        unsigned = "U32" in parts
        before = self.values.get(setp.addr, {})
        header_vals = self.at_header.get(self.blocks[lp.header].insns[0].addr, {})
        n = self.position(setp.addr)
        for side in (2, 3):
            r = setp.args[side].split(".reuse")[0]
            if not re.match(r"^U?R\d+$", r) or r in ("RZ", "URZ"):
                continue
            writes = [ins for m in lp.body for ins in self.blocks[m].insns if r in dests(ins)]
            if not writes:
                continue
            advance, exact, post = 0, len(writes) == 1, None
            for w in writes:
                stepv = None
                if w.op in ("IADD3", "UIADD3") and len(w.args) == 4 and w.args[1].split(".reuse")[0] == r \
                        and w.args[3] in ("RZ", "URZ"):
                    stepv = const_value(w.args[2])
                elif w.op == "VIADD" and len(w.args) == 3 and w.args[1].split(".reuse")[0] == r:
                    stepv = const_value(w.args[2])
                if not stepv:
                    advance = None
                    break
                wb = self.position(w.addr)
                mult = 1
                for inner in self.block_loops[wb]:
                    if inner is not lp and lp.header in inner.body:
                        continue  # an enclosing loop
                    if inner is not lp:
                        t = inner_trips.get(inner.header)
                        if t is None:
                            mult = None
                            break
                        mult *= t
                if mult is None:
                    advance = None
                    break
                if w.guard or mult != 1:
                    exact = False
                advance += stepv * mult
                if wb == n:
                    p_ = w.addr < setp.addr
                elif dominates(self.idom, wb, n):
                    p_ = True
                else:
                    p_ = False
                post = p_ if post is None or post == p_ else False
            if not advance:
                continue
            init = header_vals.get(r)
            other = operand(setp.args[5 - side], before)
            # (other is known at the compare only if it is the same every
            # iteration: the pass forgot every register the loop writes at its
            # header, so a value known here was rebuilt from invariants.)
            if init is None or other is None:
                continue
            most = 0
            for lane in range(32):
                env = env_for(lane)
                v, bound = init(env), other(env)
                if v is None or bound is None:
                    return None
                k = 0
                while True:
                    k += 1
                    if k > 1 << 16:
                        return None
                    x, y = (v + advance if post else v), bound
                    if side == 3:
                        x, y = y, x
                    if unsigned:
                        x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
                    else:
                        x, y = to_s32(x), to_s32(y)
                    if CMP[cmp](x, y) != pol:
                        break
                    v += advance
                most = max(most, k)
            return most, exact
        return None

    def reachable(self, env_for):
        """Blocks a warp can reach: BRA.DIV's slow paths and branches whose
        guard is the same for all 32 lanes drop their other edge."""
        seen = {0}
        stack = [0]
        while stack:
            n = stack.pop()
            b = self.blocks[n]
            last = b.insns[-1]
            succ = [s for s in b.succ if s not in b.cold]
            if last.base == "BRA" and len(b.succ) == 2 and last.addr in self.branch:
                g = self.branch[last.addr]
                if g is not None:
                    vals = {g(env_for(t)) for t in range(32)}
                    if vals == {True}:
                        succ = [b.succ[0]]
                    elif vals == {False}:
                        succ = [b.succ[1]]
            for s in succ:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return seen


def is_permutation_loop(an, lp):
    """A warp-wide Keccak-f permutation written as a loop over rounds: an
    innermost loop whose body is shuffles and bitwise logic (>= 8 SHFL and
    >= 30 LOP3 per iteration). Its instructions are hashing, counted per
    permutation (Counter.permutation_cost) times the permutations the
    algorithm makes, not by the loop's own trip count."""
    if any(other is not lp and other.header in lp.body for other in an.loops):
        return False
    ops = [ins.base for n in lp.body for ins in an.blocks[n].insns]
    return ops.count("SHFL") >= 8 and ops.count("LOP3") >= 30


def is_permutation_function(fn):
    return fn.short == "keccak_f1600"


def access_bytes(ins):
    """Bytes per lane of a load or store (LDL/STL/LDG/STG/LD/ST)."""
    for w, b in ((".128", 16), (".64", 8), (".U8", 1), (".S8", 1), (".U16", 2), (".S16", 2)):
        if w in ins.op:
            return b
    return 4


class Count:
    """What one warp issues: instructions outside hashing, and the bytes its
    lanes move through local (stack) and global memory."""

    def __init__(self, insns=0, local=0, glob=0):
        self.insns, self.local, self.glob = insns, local, glob

    def add(self, other, k=1):
        self.insns += k * other.insns
        self.local += k * other.local
        self.glob += k * other.glob


class Counter:
    """Counts a kernel's warp instructions per call, per context (a
    parameter environment and a warp index). Hashing is left out (a
    permutation's cost comes from permutation_cost; how many the algorithm
    makes, from gpu_model.py's tables); loops the SASS does not solve count
    once per entry unless `annotations` ({(function, loop ordinal): trip or
    callable(params)}) gives their trip."""

    def __init__(self, kernel_funcs, entry):
        self.funcs = kernel_funcs
        self.entry = entry
        self.analysis = {name: Analysis(fn) for name, fn in kernel_funcs.items()}
        self.registers = None

    def loops(self):
        for name, an in self.analysis.items():
            for lp in an.loops:
                yield name, an, lp

    def permutation_cost(self, params):
        """(instructions one lane's (or thread's) permutation issues,
        instructions a warp-wide permutation issues); None where the kernel
        has none."""
        lane = warp = None
        for name, an in self.analysis.items():
            if is_permutation_function(an.fn):
                lane = self.count(params, 0, {}, hashing=True, entry=name).insns
        env = lambda l: (params, l)
        for name, an, lp in self.loops():
            if not is_permutation_loop(an, lp):
                continue
            reach = an.reachable(env)  # without BRA.DIV's slow path
            body = [ins for n in lp.body if n in reach for ins in an.blocks[n].insns]
            t = an.solve_trip(lp, env, {})
            if t is not None:
                trips = t[0]
            else:
                # Rounds per iteration: its reads of the round constants
                # (constant bank 3, or global through the constant cache).
                rounds = sum(1 for ins in body if "c[0x3]" in ins.text or ".CONSTANT" in ins.op)
                trips = 24 / max(1, rounds)
            cost = len(body) * trips
            warp = cost if warp is None else min(warp, cost)
        return lane, warp

    def count(self, params, warp, annotations, tid_base=None, unresolved=None, estimated=None, hashing=False,
              entry=None):
        """A Count for one warp in one call of the kernel (or of function
        `entry`). params: {byte offset in the kernel parameters: value};
        warp: its index in the block (tid = 32 warp + lane), or tid_base.
        hashing: count permutations too (for permutation_cost)."""
        base = 32 * warp if tid_base is None else tid_base
        env_cache = {}

        def env_for(lane):
            e = env_cache.get(lane)
            if e is None:
                e = env_cache[lane] = (params, base + lane)
            return e

        @functools.lru_cache(maxsize=None)
        def fcount(name):
            an = self.analysis[name]
            reach = an.reachable(env_for)
            trips = {}
            short = an.fn.short
            skip = set()
            for lp in sorted(an.loops, key=lambda lp: len(lp.body)):  # inner loops first
                if not hashing and is_permutation_loop(an, lp):
                    skip |= lp.body
                    trips[lp.header] = 1
                    continue
                key = (short, lp.ordinal)
                if key in annotations:
                    a = annotations[key]
                    t = a(params) if callable(a) else a
                else:
                    solved = an.solve_trip(lp, env_for, trips)
                    t = solved[0] if solved else None
                    if t is None:
                        if unresolved is not None:
                            unresolved.append((name, lp))
                        t = 1
                    elif not solved[1] and estimated is not None:
                        estimated.append((name, lp, t))
                trips[lp.header] = t
            total = Count()
            for b in an.blocks:
                if b.idx not in reach or b.idx in skip:
                    continue
                f = 1
                for lp in an.block_loops[b.idx]:
                    f *= trips[lp.header]
                own = Count(len(b.insns))
                for ins in b.insns:
                    if ins.base in ("LDL", "STL"):
                        own.local += 32 * access_bytes(ins)
                    elif ins.base in ("LDG", "STG", "LD", "ST", "ATOMG", "RED"):
                        own.glob += 32 * access_bytes(ins)
                for c in b.calls:
                    if c in self.funcs and c != name:
                        if not hashing and is_permutation_function(self.analysis[c].fn):
                            own.insns -= 1  # the call itself is hashing's
                            continue
                        own.add(fcount(c))
                total.add(own, f)
            return total

        return fcount(entry or self.entry)


def loop_report(counter, params, warp=0):
    """Lines describing every loop of a kernel: function, ordinal, static
    size, depth, solved trip (or '?'), and what it calls; for annotating."""
    lines = []
    env = lambda lane: (params, 32 * warp + lane)
    for name, an, _ in [(n, a, None) for n, a in counter.analysis.items()]:
        trips = {}
        for lp in sorted(an.loops, key=lambda lp: len(lp.body)):
            t = an.solve_trip(lp, env, trips)
            trips[lp.header] = t[0] if t else None
        for lp in an.loops:
            t = an.solve_trip(lp, env, trips)
            size = sum(len(an.blocks[n].insns) for n in lp.body)
            depth = sum(1 for other in an.loops if lp.header in other.body and other is not lp)
            calls = sorted({demangle_short(c.split("$")[-1]) for n in lp.body for c in an.blocks[n].calls})
            first = an.blocks[lp.header].insns[0].addr
            lines.append("%-22s loop %3d  at %05x  %5d insns  depth %d  trip %s%s" % (
                an.fn.short[:22], lp.ordinal, first, size, depth,
                "?" if t is None else ("%d" % t[0]) + ("" if t[1] else " (estimate)"),
                ("  calls " + ",".join(calls)) if calls else ""))
    return lines


def find_nvdisasm(explicit=None):
    """nvdisasm: the given path, $NVDISASM, PATH, /usr/local/cuda/bin, or the
    copy scripts/fetch-cuda-tools.sh unpacks into its cache."""
    cands = [explicit, os.environ.get("NVDISASM"), shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm",
             os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mldsa-accel",
                          "cuda-tools", "bin", "nvdisasm")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None

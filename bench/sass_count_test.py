#!/usr/bin/env python3
"""sass_count_test.py - bench/sass_count.py's loop counting on small SASS
functions written here, each with its count made by hand (no nvcc or
nvdisasm needed): the loop shapes the compiler gives our kernels (a compare
hoisted to the top of the body, a rotated counter in a reused register, a
64-bit down-counter stepped on two exclusive paths, a loop the data decides,
annotated in the source). Exit 0 when every count matches, 1 otherwise."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_count as sc  # noqa: E402


def function(lines):
    """A Function from (label or None, text) rows, 16 bytes apart."""
    fn = sc.Function("k", ".text.k")
    for i, (label, text) in enumerate(lines):
        if label:
            fn.labels[label] = 16 * i
        fn.insns.append(sc.parse_insn(16 * i, text))
    return fn


def count(fn, annotations=None, unresolved=None):
    return sc.Counter({"k": fn}, "k").count({}, 0, annotations or {}, unresolved=unresolved).insns


def check(name, got, want, failures):
    ok = got == want
    print("%-58s %6s  (hand count %d)" % (name, got, want) + ("" if ok else "  FAILED"))
    if not ok:
        failures.append(name)


def main():
    failures = []

    # pack_bits' shape: the i < 256 compare sits at the top of the body, the
    # branch that closes the loop at its bottom, a guarded step between.
    # 1 + 256 x (4 + 1 + 1) + 1.
    fn = function([
        (None, "IMAD.MOV.U32 R0, RZ, RZ, RZ"),
        (".L_x_1", "VIADD R0, R0, 0x1"),
        (None, "ISETP.GE.U32.AND P3, PT, R0, 0x100, PT"),
        (None, "ISETP.GE.U32.AND P0, PT, R5, 0x8, PT"),
        (None, "@!P0 BRA `(.L_x_2)"),
        (None, "IADD3 R5, R5, -0x8, RZ"),
        (".L_x_2", "@!P3 BRA `(.L_x_1)"),
        (None, "EXIT"),
    ])
    check("hoisted compare: for (i = 0; i < 256; ++i)", count(fn), 1 + 256 * 6 + 1, failures)

    # The NTT's level loop as compiled: R2 = R6 + 1 compared, R6 reused as a
    # temporary, then R6 = R2 at the latch; R6 starts from an fp16 constant
    # load (HFMA2.MMA). 1 + 8 x 5 + 1.
    fn = function([
        (None, "HFMA2.MMA R6, -RZ, RZ, 0, 0"),
        (".L_x_1", "VIADD R2, R6, 0x1"),
        (None, "IMAD R6, R7, R7, RZ"),
        (None, "ISETP.GE.U32.AND P0, PT, R2, 0x8, PT"),
        (None, "MOV R6, R2"),
        (None, "@!P0 BRA `(.L_x_1)"),
        (None, "EXIT"),
    ])
    check("rotated counter: for (s = 0; s < 8; ++s), register reuse", count(fn), 1 + 8 * 5 + 1, failures)

    # The sponge's absorb: a 64-bit length of 64 bytes, less 8 (a whole
    # lane) or 1 (a byte) per iteration on exclusive paths; the larger step
    # is the one taken: 8 iterations, both paths counted (a warp runs both
    # sides of a branch it cannot tell). 2 + 8 x (3 + 3 + 2 + 3) + 1.
    fn = function([
        (None, "IMAD.MOV.U32 R4, RZ, RZ, 0x40"),
        (None, "IMAD.MOV.U32 R5, RZ, RZ, RZ"),
        (".L_hdr", "ISETP.GT.U32.AND P0, PT, R4, 0x7, PT"),
        (None, "ISETP.GT.U32.AND.EX P0, PT, R5, RZ, PT, P0"),
        (None, "@!P0 BRA `(.L_byte)"),
        (None, "IADD3 R4, P1, R4, -0x8, RZ"),
        (None, "IADD3.X R5, R5, -0x1, RZ, P1, !PT"),
        (None, "BRA `(.L_join)"),
        (".L_byte", "IADD3 R4, P1, R4, -0x1, RZ"),
        (None, "IADD3.X R5, R5, -0x1, RZ, P1, !PT"),
        (".L_join", "ISETP.NE.U32.AND P0, PT, R4, RZ, PT"),
        (None, "ISETP.NE.AND.EX P0, PT, R5, RZ, PT, P0"),
        (None, "@P0 BRA `(.L_hdr)"),
        (None, "EXIT"),
    ])
    check("64-bit down-counter, steps 8 | 1 on exclusive paths", count(fn), 2 + 8 * 11 + 1, failures)

    # A rejection loop: its trip is the data's, so the source annotates it
    # (`// model-trips: NAME`, tied through line info); the table gives 7.
    # Without the annotation it is unresolved and counted once.
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
        f.write("int ctr = 0;\nwhile (ctr < kN) {  // model-trips: test_draws\n")
        path = f.name
    try:
        sc.source_lines.cache_clear()
        rows = [
            (None, "IMAD.MOV.U32 R0, RZ, RZ, RZ"),
            (".L_x_1", "LDG.E R3, [R8.64]"),
            (None, "ISETP.GE.U32.AND P1, PT, R3, 0x7fe001, PT"),
            (None, "@!P1 VIADD R0, R0, 0x1"),
            (None, "ISETP.GE.AND P0, PT, R0, 0x100, PT"),
            (None, "@!P0 BRA `(.L_x_1)"),
            (None, "EXIT"),
        ]
        fn = function(rows)
        for ins in fn.insns[1:6]:
            ins.line = (path, 2)
        check("annotated rejection loop (model-trips: test_draws = 7)", count(fn, {"test_draws": 7}),
              1 + 7 * 5 + 1, failures)
        check("the same loop, no annotation: the guarded step's bound, 256", count(function(rows)),
              1 + 256 * 5 + 1, failures)
    finally:
        os.unlink(path)

    # A bound the SASS does not show (a register loaded from memory): the
    # loop counts once per entry and is reported as unresolved.
    fn = function([
        (None, "IMAD.MOV.U32 R0, RZ, RZ, RZ"),
        (None, "LDG.E R9, [R8.64]"),
        (".L_x_1", "VIADD R0, R0, 0x1"),
        (None, "ISETP.GE.U32.AND P0, PT, R0, R9, PT"),
        (None, "@!P0 BRA `(.L_x_1)"),
        (None, "EXIT"),
    ])
    unresolved = []
    got = count(fn, {}, unresolved)
    check("unknown bound: once per entry, reported (+1000 each)", got + 1000 * len(unresolved), 2 + 3 + 1 + 1000,
          failures)

    print("sass_count: %d checks failed" % len(failures) if failures else "sass_count: all loop counts as counted by hand")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""A pure-Python model of SM100 tcgen05 layouts (docs/tcgen05-facts.md), fast and import-light.

No torch or CUDA import anywhere here except `tensormap_driver`, which loads cuda.bindings when
a session is opened. Everything raises `common.LayoutError` (a BadInput, exit 2) for impossible
or undocumented input, and validators return `common.Problem(code, message, severity)` lists.

TMEM (`tmem`, spec §1-2)
    split_addr(addr) -> (lane, col); join_addr(lane, col)
    ld_map(shape, num, pack=False, taddr=0, imm=None) -> [Access(thread, reg, lane, col, reg_bit_lo,
        tmem_bit_lo, nbits)]: one warp's tcgen05.ld (st_map is the same map for tcgen05.st)
    register_cells(shape, num, thread, reg, ...); cell_owners(accesses) -> {(lane, col, bit): Access}
    regs_per_thread(shape, num); access_problems(accesses, warp) (lane-quarter rule, bounds)
    alloc_problems(ncols, previous, relinquished); min_alloc_columns(n)

MMA operands in TMEM (`accum`, spec §3.4-3.5)
    d_cell(M, m, n, d_tmem) -> (lane, col); accumulator_map(M, N, d_tmem) -> [AccumCell]
    a_cell(M, m, k, a_tmem, elem_bits) -> (lane, col, bit_lo)   (TS form); check_mn(M, N, ts)

Shared memory (`smem`, spec §5)
    desc_offset(major, swizzle, mn, k, elem_bytes, lbo, sbo, start) -> byte address (one descriptor)
    canonical_offset(...) (same); swizzle_addr(addr, swizzle); bank_of(addr)
    make_tile(major, swizzle, rows, cols, dtype, lbo=None, sbo=None, k_atom_stride=None, base=0)
        -> TileLayout: offset(row, k), place(row, k) -> ElementPlace (addr, core matrix, bank, chunk),
        element_at(addr) (inverse), mma_slices() -> per-MMA start/LBO/SBO/descriptor, problems()

Descriptors (`descriptors`, `wgmma`, `idesc`, spec §4, §6)
    encode_smem_desc(start, lbo, sbo, swizzle, base_offset=0, lbo_mode=0) -> int
    decode_smem_desc(value, major=None) -> SmemDescriptor(fields..., problems)
    advance_smem_desc(value, bytes); smem.element_address(desc, major, elem_bytes, mn, k)
    encode_wgmma_desc / decode_wgmma_desc / sm100_from_wgmma / wgmma_from_sm100 (Hopper)
    idesc.encode(a, b, d, m, n, a_major, b_major, neg_a, neg_b) -> int; idesc.decode(value)
        -> InstrDescriptor(fields..., problems); idesc.operand_problems(idesc, a_swizzle, b_swizzle, ts)

TMA (`tensormap`, `tensormap_driver`, `tma_agreement`, spec §8.1)
    make_params(...) / TensorMapParams; check_rules(p) -> [RuleResult]; validate(p) -> [Problem];
    is_valid(p); box_summary(p); seed002_params(...)
    tensormap_driver.DriverSession (real cuTensorMapEncodeTiled), build(p) -> BuildReport (both verdicts)
    tma_agreement.random_cases / seed002_cases / probe_cases / run / summary_line

Producer -> consumer maps and bank conflicts (`mapping`, `banks`)
    mapping.parse_producer("tmem:32x32b:num=8", M, N); parse_consumer("smem:K:128B" | "tmem:col=C", M, N)
    mapping.map_values(producer, consumer) -> [MapRecord(thread, load, reg, reg_bit_lo, m, n, dest)]
    mapping.plan_smem_stores / value_runs / tmem_store_plan
    banks.wavefronts(addresses_per_lane, width) -> WavefrontReport

Bit-packed words (`bitfields`, `fields`): each descriptor declared once as a BitTable; encode,
decode, structural validation, field views, SVG diagrams and kernels/common/desc_fields.gen.h
all derive from it. Swizzle arithmetic: `swizzle`; what a descriptor means (element -> byte,
spec §5.2): `canonical`. Imports run one way: swizzle <- canonical <- descriptors <- smem.

The pictures of these facts (tables, grids, SVG, JSON documents, verdict lines) are not here: they
are the shells' rendering, fmhactl/present/. The typed entry points for the CLI and the TUI are in
fmhactl/services/layout.py and fmhactl/services/tma.py.
"""

"""Layout questions as typed services: what the CLI (`fmhactl layout ...`) and the TUI both call.

Every function takes plain typed arguments, checks ranges and size caps before doing any work,
raises `fmhactl.errors.BadInput` (via `LayoutError`) for impossible input, and returns a frozen
dataclass. Nothing here prints, imports typer/rich, or touches a GPU. Spec sections cited are in
docs/tcgen05-facts.md.

The implementation is split by topic (layout_tmem, layout_smem, layout_desc, layout_limits); this
module is the one import point.
"""

from __future__ import annotations

from fmhactl.services.layout_limits import (  # noqa: F401
    MAX_REPEAT,
    MAX_SMEM_ADDR,
    MAX_TILE_COLS,
    MAX_TILE_ELEMENTS,
    MAX_TILE_ROWS,
    MAX_U32,
    MAX_WARP,
)
from fmhactl.services.layout_tmem import (  # noqa: F401
    AccumEntry,
    AccumLayout,
    ColumnPlanView,
    TmemAccess,
    TmemCell,
    TmemCellInfo,
    TmemColumnPlan,
    TmemRegion,
    accumulator_layout,
    column_plan_providers,
    lane_quarter_rule,
    register_column_plan,
    sm100_column_plan,
    tmem_access,
    tmem_cell,
    tmem_column_plan,
)
from fmhactl.services.layout_plan import (  # noqa: F401
    Sm100PlanReport,
    declared_head_dims,
    sm100_plan,
    sm100_plan_variants,
)
from fmhactl.services.layout_smem import (  # noqa: F401
    AccessPattern,
    InstructionBanks,
    LaneAccess,
    MmaDescriptorSlice,
    SmemPMap,
    SmemTile,
    check_tile_size,
    smem_p_map,
    smem_tile,
    warp_access,
)
from fmhactl.services.layout_desc import (  # noqa: F401
    AddressedElement,
    DESCRIPTOR_KINDS,
    DescriptorReach,
    DescriptorView,
    decode_descriptor,
    descriptor_reach,
    descriptor_table,
    edit_descriptor,
    encode_instr_descriptor,
    encode_smem_descriptor,
    encode_wgmma_descriptor,
    parse_word,
)

__all__ = [
    "AccessPattern",
    "AccumEntry",
    "AccumLayout",
    "AddressedElement",
    "ColumnPlanView",
    "DESCRIPTOR_KINDS",
    "DescriptorReach",
    "DescriptorView",
    "InstructionBanks",
    "LaneAccess",
    "MAX_REPEAT",
    "MAX_SMEM_ADDR",
    "MAX_TILE_COLS",
    "MAX_TILE_ELEMENTS",
    "MAX_TILE_ROWS",
    "MAX_U32",
    "MAX_WARP",
    "MmaDescriptorSlice",
    "Sm100PlanReport",
    "SmemPMap",
    "SmemTile",
    "TmemAccess",
    "TmemCell",
    "TmemCellInfo",
    "TmemColumnPlan",
    "TmemRegion",
    "accumulator_layout",
    "check_tile_size",
    "column_plan_providers",
    "declared_head_dims",
    "decode_descriptor",
    "descriptor_reach",
    "descriptor_table",
    "edit_descriptor",
    "encode_instr_descriptor",
    "encode_smem_descriptor",
    "encode_wgmma_descriptor",
    "lane_quarter_rule",
    "parse_word",
    "register_column_plan",
    "sm100_column_plan",
    "sm100_plan",
    "sm100_plan_variants",
    "smem_p_map",
    "smem_tile",
    "tmem_access",
    "tmem_cell",
    "tmem_column_plan",
    "warp_access",
]

"""fmhactl kernels as a PyTorch attention backend (import explicitly: `import fmhactl.torch`).

Importing this package registers torch.ops.fmhactl.attention. See docs/torch.md (attention_varlen:
packed sequences through the op).
"""

from __future__ import annotations

from fmhactl.torch.backends import BACKEND_ENV, Backend, set_backend, use_backend
from fmhactl.torch.hf import register_transformers
from fmhactl.torch.merge import merge_by_lse
from fmhactl.torch.op import AttentionInputError, attention, backend_for
from fmhactl.torch.varlen import attention_varlen

__all__ = ["BACKEND_ENV", "AttentionInputError", "Backend", "attention", "attention_varlen", "backend_for",
           "merge_by_lse", "register_transformers", "set_backend", "use_backend"]

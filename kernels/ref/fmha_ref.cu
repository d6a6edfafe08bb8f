// Variant `ref`: see fmha_ref.cuh.
#include "ref/fmha_ref.cuh"

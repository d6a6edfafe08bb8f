"""Build service: which builds a request means, running them, and recording them."""

from __future__ import annotations

from collections.abc import Sequence

from fmhactl.build.compiler import BuildResult, CompileError, build, targets_for
from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.registry import get_variant, load_registry
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.modes import COMPILE_ONLY


def native_arch() -> str:
    """The arch of the GPU here, asked of the driver without creating a torch context."""
    from fmhactl.runtime.driver import check
    from fmhactl.runtime.modes import gpu_arch

    try:
        from cuda.bindings import driver
        check(driver.cuInit(0), "cuInit")
        device = check(driver.cuDeviceGet(0), "cuDeviceGet")
        attr = driver.CUdevice_attribute
        major = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cc")
        minor = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cc")
    except Exception as exc:  # noqa: BLE001 - any failure here means "no usable GPU"
        raise MissingEnvironment(f"--arch native needs a GPU: {exc}") from None
    arch = gpu_arch((major, minor))
    if arch is None:
        raise MissingEnvironment(f"no build target for compute capability {major}.{minor}")
    return arch


def build_variants(names: Sequence[str], *, all_variants: bool = False, arch: str | None = None,
                   force: bool = False, store: ResultStore | None = None) -> list[BuildResult]:
    registry = load_registry()
    variants = list(registry.values()) if all_variants else [get_variant(n, registry) for n in names]
    if arch == "native":
        arch = native_arch()
    results: list[BuildResult] = []
    session = new_session_id()
    owned = store is None
    store = store or ResultStore()
    try:
        for variant in variants:
            targets = targets_for(variant, arch)
            if not targets and not all_variants:
                raise BadInput(f"variant {variant.name} has no {arch} build (archs: {', '.join(variant.archs)})")
            for target in targets:
                try:
                    result = build(variant, target, force=force)
                except CompileError as exc:
                    store.add(ResultRow(kind="build", variant=variant.name, arch=target.arch, mode=COMPILE_ONLY,
                                        status="ERROR", metrics={"error": str(exc), "emulated": target.emulated},
                                        session=session))
                    raise
                results.append(result)
                store.add(ResultRow(
                    kind="build", variant=variant.name, arch=target.arch, mode=COMPILE_ONLY, status="OK",
                    metrics=result.to_dict(), source_hash=result.source_hash,
                    toolchain=result.toolchain, session=session))
    finally:
        if owned:
            store.close()
    return results

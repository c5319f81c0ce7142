"""The built-in platform profiles, as data (contract section 2, "Platforms").

Each names what is false on its platform (`guards`), what is true there (`true`) and what
names hold (`values`), matched as the ROCm pass matches its own section: a plain entry is a
last name (leading underscores ignored, a call or a module-level flag: `is_cuda`,
`current_platform.is_cuda()`, sglang's `_is_cuda`), a dotted one that full name however
imported (`torch.cuda.is_available`). A name no profile mentions is unknown there, and
unknown counts as running.

`rocm` is the `rocm-safety` preset's `guards`, `rocm` and `values` (a test holds the two
equal); a configuration with a `rocm_safety` section judges `rocm` by that section instead,
so the pass and `platform: rocm` never disagree.
"""

from __future__ import annotations

from import_policy.config.model import Origin, Policy, Profile

# The platform tests vLLM and sglang spell (`current_platform.is_xpu()`, `_is_npu`), each
# true on one platform only.
_TESTS = ("is_cuda", "is_rocm", "is_hip", "is_xpu", "is_cpu", "is_tpu", "is_npu", "is_musa", "is_mps", "is_hpu")
# True on both NVIDIA and AMD GPUs (vLLM's `is_cuda_alike`: CUDA or ROCm).
_ALIKE = "is_cuda_alike"


def _others(*true: str) -> tuple[str, ...]:
    return tuple(test for test in _TESTS if test not in true)


_ORIGIN = Origin("built-in", 0)

BUILTIN: dict[str, Profile] = {
    # PyTorch's ROCm wheel on an AMD GPU: `torch.version.hip` is set, `torch.version.cuda` is
    # None. As the `rocm-safety` preset says it (rules/rocm-safety.yaml).
    "rocm": Profile(
        "rocm",
        guards=("TYPE_CHECKING", *_others("is_rocm", "is_hip"), "torch.version.cuda"),
        true=("is_rocm", "is_hip", _ALIKE, "torch.version.hip"),
        values=(("torch.version.cuda", None),),
        origin=_ORIGIN,
    ),
    # PyTorch's CUDA wheel on an NVIDIA GPU: `torch.cuda.is_available()` is true,
    # `torch.version.cuda` a version string (which one the profile does not say), no HIP.
    "cuda": Profile(
        "cuda",
        guards=("TYPE_CHECKING", *_others("is_cuda"), "torch.xpu.is_available", "torch.version.xpu"),
        true=("is_cuda", _ALIKE, "torch.cuda.is_available", "torch.version.cuda"),
        values=(("torch.version.hip", None),),
        origin=_ORIGIN,
    ),
    # A machine without an accelerator, with the default wheel (a CUDA build on Linux):
    # `torch.version.cuda` is set or not depending on the wheel, so the profile leaves it
    # unknown; every accelerator test is false, `torch.cuda.is_available()` too.
    "cpu": Profile(
        "cpu",
        guards=(
            "TYPE_CHECKING", *_others("is_cpu"), _ALIKE, "torch.cuda.is_available", "torch.xpu.is_available",
        ),
        true=("is_cpu",),
        values=(("torch.version.hip", None),),
        origin=_ORIGIN,
    ),
    # PyTorch's XPU wheel on an Intel GPU: `torch.xpu.is_available()` is true, the build has
    # no CUDA and no HIP version, and `torch.cuda.is_available()` is false.
    "xpu": Profile(
        "xpu",
        guards=("TYPE_CHECKING", *_others("is_xpu"), _ALIKE, "torch.cuda.is_available"),
        true=("is_xpu", "torch.xpu.is_available", "torch.version.xpu"),
        values=(("torch.version.cuda", None), ("torch.version.hip", None)),
        origin=_ORIGIN,
    ),
}

# What a graph rule's `platform:` may name besides a declared profile: `any` (every branch
# runs but type-checking-only code) and the built-in profiles.
ANY = "any"
BUILTIN_NAMES = tuple(BUILTIN)



def profile_named(policy: Policy, name: str) -> Profile | None:
    """The profile a rule or `why --platform` names: declared, the `rocm_safety` section's
    (`rocm`), else built in; None for `any` or a name no profile has."""
    for profile in policy.platforms:
        if profile.name == name:
            return profile
    if name == "rocm" and policy.rocm_safety is not None:
        rocm = policy.rocm_safety
        return Profile("rocm", rocm.guards, rocm.rocm, rocm.values, rocm.origin)
    return BUILTIN.get(name)


__all__ = ["ANY", "BUILTIN", "BUILTIN_NAMES", "profile_named"]

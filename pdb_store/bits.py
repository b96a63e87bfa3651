"""Gathering and scattering the bits of a mask: BMI2's ``pext`` and ``pdep`` where fast.

The search keeps a placement's blank cells packed (bit i for its i-th free cell) and
floods regions over board cells; :func:`extract_bits` and :func:`deposit_bits` convert
between the two. On CPUs with fast BMI2 each is one instruction; AMD before Zen 3 runs
them in microcode (hundreds of cycles), and older CPUs lack them, so there the same
functions are loops over the set bits.
"""

import numpy as np
from llvmlite import binding, ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tilesweep.solver.jit import inline_kernel
from tilesweep.solver.ranking import popcount

#: CPUs (LLVM's names) whose ``pext``/``pdep`` are microcoded and slow.
_SLOW_BMI2 = ("znver1", "znver2", "bdver4")


def _fast_bmi2() -> bool:
    """Whether this host runs ``pext`` and ``pdep`` in hardware."""
    return bool(binding.get_host_cpu_features().get("bmi2")) and \
        binding.get_host_cpu_name() not in _SLOW_BMI2


FAST_BMI2 = _fast_bmi2()


def _bmi2_intrinsic(name):
    """A numba intrinsic calling ``llvm.x86.bmi.<name>.64`` on two int64."""
    def typer(typingctx, value, mask):
        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64, i64]), f"llvm.x86.bmi.{name}.64")
            value_arg, mask_arg = (context.cast(builder, a, t, types.int64)
                                   for a, t in zip(args, signature.args))
            return builder.call(function, [value_arg, mask_arg])
        return types.int64(value, mask), codegen
    typer.__name__ = name
    return intrinsic(typer)


_pext = _bmi2_intrinsic("pext")
_pdep = _bmi2_intrinsic("pdep")

@inline_kernel
def extract_bits_pext(value, mask):
    """The bits of ``value`` at the set bits of ``mask``, packed: bit i for mask bit i."""
    return _pext(value, mask)


@inline_kernel
def deposit_bits_pdep(packed, mask):
    """Bit i of ``packed`` moved to the i-th set bit of ``mask``: the inverse of
    :func:`extract_bits_pext`."""
    return _pdep(packed, mask)


@inline_kernel
def extract_bits_loop(value, mask):
    """:func:`extract_bits_pext` without BMI2: a step per set bit of ``value & mask``."""
    packed, cells = np.int64(0), value & mask
    while cells != 0:
        low = cells & -cells
        packed |= np.int64(1) << popcount(mask & (low - 1))
        cells &= cells - 1
    return packed


@inline_kernel
def deposit_bits_loop(packed, mask):
    """:func:`deposit_bits_pdep` without BMI2: a step per set bit of ``mask``."""
    cells, i = np.int64(0), 0
    while mask != 0:
        low = mask & -mask
        if (packed >> i) & 1:
            cells |= low
        mask &= mask - 1
        i += 1
    return cells


if FAST_BMI2:
    extract_bits, deposit_bits = extract_bits_pext, deposit_bits_pdep
else:
    extract_bits, deposit_bits = extract_bits_loop, deposit_bits_loop

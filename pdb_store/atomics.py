"""Atomic read-modify-write on array elements for parallel numba kernels.

Numba exposes no atomics on the CPU target, so this module emits LLVM's ``atomicrmw``
instruction directly. The parallel backward BFS uses :func:`atomic_or` to set blank
bits of a placement that several threads may reach in the same layer: no bit is lost,
and exactly one thread sees a given bit as new.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def atomic_or(typingctx, array, index, value):
    """Atomically ``array[index] |= value`` and return the element's previous value.

    Parameters
    ----------
    array : uint16[:] or uint32[:] or uint64[:] (C-contiguous, writable)
    index : int
        Element index; not bounds-checked, not wrapped.
    value : int
        Bits to set, converted to ``array.dtype``.

    Returns
    -------
    array.dtype
        The element before the update.
    """
    if not (isinstance(array, types.Array) and array.ndim == 1
            and isinstance(array.dtype, types.Integer) and array.mutable):
        return None
    if not isinstance(index, types.Integer) or not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type, value_type = signature.args
        array_value, index_value, bits = args
        view = context.make_array(array_type)(context, builder, array_value)
        position = context.cast(builder, index_value, index_type, types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [position])
        bits = context.cast(builder, bits, value_type, array_type.dtype)
        return builder.atomic_rmw("or", pointer, bits, "monotonic")

    return array.dtype(array, index, value), codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring ``array[index]`` into its caches, without waiting for it.

    A search that knows the next few dozen places it will read issues these first, so the
    cache misses overlap instead of following one another (``index`` is not checked).
    """
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        array_value, index_value = args
        view = context.make_array(array_type)(context, builder, array_value)
        position = context.cast(builder, index_value, index_type, types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [position])
        byte_pointer = builder.bitcast(pointer, ir.IntType(8).as_pointer())
        int32 = ir.IntType(32)
        signature_ir = ir.FunctionType(ir.VoidType(), [byte_pointer.type, int32, int32, int32])
        function = cgutils.get_or_insert_function(builder.module, signature_ir, "llvm.prefetch.p0")
        # read, high temporal locality, data cache
        builder.call(function, [byte_pointer, int32(0), int32(3), int32(1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen


__all__ = ["atomic_or", "prefetch"]

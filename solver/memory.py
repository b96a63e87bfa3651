"""Reads of a heuristic's tables by address, below what numba offers on arrays.

A kernel holds its pattern databases' addresses in one array (:func:`table_addresses`)
and reads an entry with :func:`byte_at`: a runtime index into a tuple of arrays compiles
to an indirect jump on the index, which mispredicts when the moved tile's group changes
from node to node. :func:`prefetch` asks for an entry before it is read.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import inline_kernel


@intrinsic
def data_address(typingctx, array):
    """The address of ``array``'s first element, as an int64 (for :func:`byte_at`)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.ptrtoint(data, ir.IntType(64))
    return types.int64(array), codegen


@inline_kernel
def table_addresses(tables):
    """The address of each table of a heuristic (:func:`data_address`)."""
    out = np.zeros(len(tables), dtype=np.int64)
    for g in range(len(tables)):
        out[g] = data_address(tables[g])
    return out


def _byte_pointer(context, builder, signature, args):
    """``address + index`` as a byte pointer."""
    index = context.cast(builder, args[1], signature.args[1], types.int64)
    return builder.inttoptr(builder.add(args[0], index), ir.IntType(8).as_pointer())


@intrinsic
def byte_at(typingctx, address, index):
    """The unsigned byte at ``address + index``: a read of the table at ``address``.

    The tables are in a tuple, and a runtime index into a tuple of arrays compiles to an
    indirect jump on the index, which mispredicts when the moved tile's group changes from
    node to node; an array of their addresses (:func:`table_addresses`) does not.
    """
    def codegen(context, builder, signature, args):
        return builder.zext(builder.load(_byte_pointer(context, builder, signature, args)), ir.IntType(64))
    return types.int64(address, index), codegen


@intrinsic
def prefetch(typingctx, address, index):
    """Ask the CPU to fetch the byte at ``address + index`` (a table entry, as
    :func:`byte_at`) into its caches without waiting for it.

    A table lookup is a cache (and TLB) miss in tables of 58 to 519 MB; issuing the
    lookups of all children of a node before reading any lets them overlap.
    """
    def codegen(context, builder, signature, args):
        address = _byte_pointer(context, builder, signature, args)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch." + address.type.intrinsic_name)
        # read, keep in all cache levels, data
        builder.call(fn, [address, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(address, index), codegen

"""A launch through host tensor descriptors, for `scan --call
launch:desc_launch` (the worker captures the first launch: the kernel, its
arguments, descriptors included, and its options). torch is not needed:
the tensors are the few attributes a descriptor and the launcher read."""
from triton.tools.tensor_descriptor import TensorDescriptor

from kernels import desc_copy


class Bf16:
    itemsize = 2

    def __str__(self):
        return "torch.bfloat16"


class Tensor:

    def __init__(self, rows, cols):
        self.dtype = Bf16()
        self.shape = (rows, cols)

    def data_ptr(self):
        return 1 << 20

    def stride(self):
        return (self.shape[1], 1)


def desc_launch():
    a_desc = TensorDescriptor.from_tensor(Tensor(256, 64), [64, 64])
    b_desc = TensorDescriptor.from_tensor(Tensor(256, 64), [64, 64])
    desc_copy[(4, )](a_desc, b_desc, BLOCK_M=64, BLOCK_N=64, num_warps=4, launch_pdl=True)

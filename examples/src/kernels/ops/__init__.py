from kernels.ops import attention, matmul

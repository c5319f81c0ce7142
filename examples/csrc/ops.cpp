// A C++ extension kept to the stable ABI: include and token rules.
#include <ATen/ATen.h>                    // the unstable ABI: reported
#include <torch/csrc/stable/library.h>    // carved out by `except`

// "TORCH_LIBRARY" in a string or a comment never counts.
static const char* kName = "TORCH_LIBRARY";

TORCH_LIBRARY(example_ops, m) {
  m.def("attend(Tensor x) -> Tensor");
}

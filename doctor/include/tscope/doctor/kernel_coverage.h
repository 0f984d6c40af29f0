#pragma once
// Whether every translation unit of the checked binaries can launch its kernels on a device:
// the question behind "no kernel image is available for execution on the device".

#include <span>
#include <string>

#include "tscope/doctor/fatbin.h"
#include "tscope/doctor/report.h"

namespace tscope::doctor {

struct KernelCoverage {
  int units = 0;          // fatbinary containers seen
  int jit_units = 0;      // units that run only after the driver JIT-compiles their PTX
  int failing_units = 0;  // units with no image for the device at all
  // "<file> translation unit <n> (<images>)" for the first failing unit, or else the first
  // unit that needs the JIT; empty when every unit has machine code.
  std::string example;
};

KernelCoverage assess_kernel_coverage(std::span<const BinaryReport> binaries,
                                      ComputeCapability device);

}  // namespace tscope::doctor

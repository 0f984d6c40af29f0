#include "tscope/doctor/kernel_coverage.h"

#include <fmt/format.h>

namespace tscope::doctor {
namespace {

std::string image_names(std::span<const EmbeddedImage> images) {
  std::string names;
  for (const EmbeddedImage& image : images) {
    names += (names.empty() ? "" : " ") + image.name();
  }
  return names.empty() ? "no images" : names;
}

}  // namespace

KernelCoverage assess_kernel_coverage(std::span<const BinaryReport> binaries,
                                      ComputeCapability device) {
  KernelCoverage coverage;
  for (const BinaryReport& binary : binaries) {
    for (std::size_t unit = 0; unit < binary.containers.size(); ++unit) {
      const auto& images = binary.containers[unit].images;
      const KernelImageMatch match = match_kernel_image(images, device).match;
      ++coverage.units;
      const auto describe = [&] {
        return fmt::format("{} translation unit {} ({})", binary.path, unit, image_names(images));
      };
      if (match == KernelImageMatch::none) {
        if (coverage.failing_units++ == 0) {
          coverage.example = describe();
        }
      } else if (match == KernelImageMatch::ptx_jit) {
        if (coverage.failing_units == 0 && coverage.jit_units == 0) {
          coverage.example = describe();
        }
        ++coverage.jit_units;
      }
    }
  }
  return coverage;
}

}  // namespace tscope::doctor

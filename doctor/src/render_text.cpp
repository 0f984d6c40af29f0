#include <fmt/format.h>

#include <string>

#include "tscope/doctor/render.h"

namespace tscope::doctor {

std::string render_text(const Report& report) {
  std::string text = "tscope doctor: ";
  text += report.built_with ? fmt::format("built with CUDA {}\n", report.built_with->to_string())
                            : std::string("built without CUDA\n");
  for (const Diagnosis& diagnosis : report.diagnoses) {
    text += fmt::format("  [{:<7}] {}: {}\n", status_name(diagnosis.status), diagnosis.check,
                        diagnosis.found);
    if (!diagnosis.action.empty()) {
      text += fmt::format("            fix: {}\n", diagnosis.action);
    }
  }
  for (const BinaryReport& binary : report.binaries) {
    std::string images;
    for (const EmbeddedImage& image : binary.distinct_images()) {
      images += (images.empty() ? "" : " ") + image.name();
    }
    text += images.empty() ? fmt::format("  GPU code in {}: none\n", binary.path)
                           : fmt::format("  GPU code in {}: {} ({} translation units)\n",
                                         binary.path, images, binary.containers.size());
  }
  text += fmt::format("GPU usable: {}\n", report.gpu_usable() ? "yes" : "no");
  return text;
}

}  // namespace tscope::doctor

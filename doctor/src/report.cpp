#include "tscope/doctor/report.h"

#include <algorithm>
#include <tuple>

namespace tscope::doctor {

std::string_view status_name(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::warning:
      return "warning";
    case Status::error:
      return "error";
  }
  return "error";
}

std::vector<EmbeddedImage> BinaryReport::distinct_images() const {
  std::vector<EmbeddedImage> images;
  for (const FatbinContainer& container : containers) {
    images.insert(images.end(), container.images.begin(), container.images.end());
  }
  const auto order = [](const EmbeddedImage& image) {
    return std::tuple(image.kind, image.arch, image.variant);
  };
  std::ranges::sort(images, {}, order);
  // std::unique rather than std::ranges::unique: clang 14 cannot take libstdc++ 12's subrange.
  images.erase(std::unique(images.begin(), images.end()), images.end());
  return images;
}

bool Report::gpu_usable() const {
  return !devices.empty() && std::ranges::none_of(diagnoses, [](const Diagnosis& diagnosis) {
    return diagnosis.status == Status::error;
  });
}

}  // namespace tscope::doctor

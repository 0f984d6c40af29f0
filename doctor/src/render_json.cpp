#include <fmt/format.h>

#include <string>
#include <string_view>

#include "tscope/doctor/render.h"

namespace tscope::doctor {
namespace {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char character : text) {
    switch (character) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(character) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(character));
        } else {
          out += character;
        }
    }
  }
  return out + "\"";
}

template <typename Value>
std::string optional_version(const std::optional<Value>& version) {
  return version ? json_string(version->to_string()) : "null";
}

template <typename Items, typename Render>
std::string array(const Items& items, Render render) {
  std::string out = "[";
  for (const auto& item : items) {
    out += (out.size() > 1 ? "," : "") + render(item);
  }
  return out + "]";
}

}  // namespace

std::string render_json(const Report& report) {
  const std::string diagnoses = array(report.diagnoses, [](const Diagnosis& diagnosis) {
    return fmt::format(R"({{"check":{},"status":{},"found":{},"action":{}}})",
                       json_string(diagnosis.check), json_string(status_name(diagnosis.status)),
                       json_string(diagnosis.found), json_string(diagnosis.action));
  });
  const std::string devices = array(report.devices, [](const DeviceReport& device) {
    return fmt::format(R"({{"index":{},"name":{},"compute_capability":"{}.{}","memory_bytes":{}}})",
                       device.index, json_string(device.name), device.compute_capability.major,
                       device.compute_capability.minor, device.memory_bytes);
  });
  const std::string libraries = array(report.libraries, [](const LibraryReport& library) {
    return fmt::format(R"({{"id":{},"name":{},"file":{},"loaded":{},"version":{},"error":{}}})",
                       json_string(library.id), json_string(library.name),
                       json_string(library.file), library.loaded,
                       library.loaded ? json_string(library.version) : "null",
                       library.loaded ? "null" : json_string(library.error));
  });
  const std::string binaries = array(report.binaries, [](const BinaryReport& binary) {
    return fmt::format(R"({{"path":{},"translation_units":{},"images":{}}})",
                       json_string(binary.path), binary.containers.size(),
                       array(binary.distinct_images(),
                             [](const EmbeddedImage& image) { return json_string(image.name()); }));
  });
  const std::string bandwidth =
      report.bandwidth
          ? fmt::format(
                R"({{"device":{},"bytes_per_copy":{},"pinned_gb_per_s":{:.3f},"pageable_gb_per_s":{:.3f}}})",
                report.bandwidth->device, report.bandwidth->bytes_per_copy,
                report.bandwidth->pinned_gb_per_s, report.bandwidth->pageable_gb_per_s)
          : "null";
  return fmt::format(
      R"({{"gpu_usable":{},"built_with_cuda":{},"cuda_version":{},"driver_cuda_version":{},"driver_version":{},)"
      R"("diagnoses":{},"devices":{},"libraries":{},"binaries":{},"bandwidth":{}}})"
      "\n",
      report.gpu_usable(), report.built_with_cuda, optional_version(report.built_with),
      optional_version(report.driver_supports), optional_version(report.driver_release), diagnoses,
      devices, libraries, binaries, bandwidth);
}

}  // namespace tscope::doctor

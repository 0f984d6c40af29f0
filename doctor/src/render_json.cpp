// The JSON report of `tscope doctor --json`, written by the JSON writer every report shares.

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>

#include "tscope/doctor/render.h"
#include "tscope/report/json_writer.h"

namespace tscope::doctor {
namespace {

template <typename Value>
void write_version(JsonWriter& json, std::string_view name, const std::optional<Value>& version) {
  json.key(name);
  if (version) {
    json.value(version->to_string());
  } else {
    json.null();
  }
}

// The library's version when it loaded, else why it did not.
void write_library(JsonWriter& json, const LibraryReport& library) {
  json.begin_object();
  json.field("id", library.id);
  json.field("name", library.name);
  json.field("file", library.file);
  json.field("loaded", library.loaded);
  json.key("version");
  if (library.loaded) {
    json.value(library.version);
  } else {
    json.null();
  }
  json.key("error");
  if (library.loaded) {
    json.null();
  } else {
    json.value(library.error);
  }
  json.end_object();
}

void write_binary(JsonWriter& json, const BinaryReport& binary) {
  json.begin_object();
  json.field("path", binary.path);
  json.field("translation_units", binary.containers.size());
  json.key("images");
  json.begin_array();
  for (const EmbeddedImage& image : binary.distinct_images())
    json.value(image.name());
  json.end_array();
  json.end_object();
}

void write_bandwidth(JsonWriter& json, const std::optional<BandwidthReport>& bandwidth) {
  json.key("bandwidth");
  if (!bandwidth) {
    json.null();
    return;
  }
  json.begin_object();
  json.field("device", bandwidth->device);
  json.field("bytes_per_copy", bandwidth->bytes_per_copy);
  json.field("pinned_gb_per_s", bandwidth->pinned_gb_per_s);
  json.field("pageable_gb_per_s", bandwidth->pageable_gb_per_s);
  json.end_object();
}

}  // namespace

std::string render_json(const Report& report) {
  JsonWriter json;
  json.begin_object();
  json.field("gpu_usable", report.gpu_usable());
  json.field("built_with_cuda", report.built_with_cuda);
  write_version(json, "cuda_version", report.built_with);
  write_version(json, "driver_cuda_version", report.driver_supports);
  write_version(json, "driver_version", report.driver_release);
  json.key("diagnoses");
  json.begin_array();
  for (const Diagnosis& diagnosis : report.diagnoses) {
    json.begin_object();
    json.field("check", diagnosis.check);
    json.field("status", status_name(diagnosis.status));
    json.field("found", diagnosis.found);
    json.field("action", diagnosis.action);
    json.end_object();
  }
  json.end_array();
  json.key("devices");
  json.begin_array();
  for (const DeviceReport& device : report.devices) {
    json.begin_object();
    json.field("index", device.index);
    json.field("name", device.name);
    json.field("compute_capability", fmt::format("{}.{}", device.compute_capability.major,
                                                 device.compute_capability.minor));
    json.field("memory_bytes", device.memory_bytes);
    json.end_object();
  }
  json.end_array();
  json.key("libraries");
  json.begin_array();
  for (const LibraryReport& library : report.libraries)
    write_library(json, library);
  json.end_array();
  json.key("binaries");
  json.begin_array();
  for (const BinaryReport& binary : report.binaries)
    write_binary(json, binary);
  json.end_array();
  write_bandwidth(json, report.bandwidth);
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::doctor

#pragma once
// Where a tensor's storage lives: the host, or one CUDA device by index.

#include <compare>
#include <cstdint>
#include <string>

namespace tscope::engine {

enum class DeviceType : std::uint8_t { kCpu, kCuda };
inline constexpr std::size_t kDeviceTypeCount = 2;

class Device {
 public:
  static constexpr Device cpu() { return Device(DeviceType::kCpu, 0); }
  static constexpr Device cuda(int index) { return Device(DeviceType::kCuda, index); }

  constexpr DeviceType type() const { return type_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return type_ == DeviceType::kCpu; }

  // "cpu" or "cuda:N", as error messages and traces name devices.
  std::string to_string() const;

  constexpr bool operator==(const Device&) const = default;

 private:
  constexpr Device(DeviceType type, int index) : type_(type), index_(index) {}

  DeviceType type_;
  int index_;
};

}  // namespace tscope::engine

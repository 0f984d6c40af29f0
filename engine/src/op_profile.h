#pragma once
// What the profiler records for each op at the dispatcher: the tensors it read and wrote, their
// shapes, and estimates of its flops and bytes moved (the trace's op detail, which fusion
// analysis follows). Costs nothing beyond one atomic load when no profiler session runs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>

#include "tscope/engine/tensor.h"
#include "tscope/profiler/record.h"

namespace tscope::engine {

enum class OpKind : std::uint16_t;

class OpProfile {
 public:
  explicit OpProfile(OpKind op);
  OpProfile(const OpProfile&) = delete;
  OpProfile& operator=(const OpProfile&) = delete;

  bool recording() const { return range_.recording(); }
  // Tensors beyond kMaxTensors per side still count towards bytes but are not listed.
  void add_read(const Tensor& tensor);
  void add_written(const Tensor& tensor);
  void add_result(const Tensor& tensor) { add_written(tensor); }
  void add_result(const std::pair<Tensor, Tensor>& tensors) {
    add_written(tensors.first);
    add_written(tensors.second);
  }
  void add_result(const std::tuple<Tensor, Tensor, Tensor>& tensors) {
    std::apply([this](const auto&... each) { (add_written(each), ...); }, tensors);
  }
  // Records the op's span with its detail. The tensors added must still be alive.
  void finish();

 private:
  static constexpr std::size_t kMaxTensors = 8;

  // The tensors on one side of the op, read or written: the first kMaxTensors listed, all counted.
  struct Side {
    std::array<profiler::OpTensor, kMaxTensors> listed{};
    std::size_t listed_count = 0;
    std::uint64_t elements = 0;
    std::uint64_t largest_elements = 0;
    std::uint64_t bytes = 0;

    void add(const Tensor& tensor);
    std::span<const profiler::OpTensor> tensors() const { return {listed.data(), listed_count}; }
  };

  OpKind op_;
  profiler::OpRange range_;
  Side read_;
  Side written_;
};

}  // namespace tscope::engine

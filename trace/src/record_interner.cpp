#include "tscope/trace/record_interner.h"

namespace tscope::trace {

std::uint64_t record_hash(const SpanDetail& detail) {
  RecordHash hash;
  hash.mix(detail.kernel);
  hash.mix(detail.copy);
  hash.mix(detail.op);
  hash.mix(detail.args.begin);
  hash.mix(detail.args.count);
  return hash.value();
}

std::uint64_t record_hash(const KernelInfo& kernel) {
  RecordHash hash;
  hash.mix_all(std::span<const std::uint32_t>(kernel.grid));
  hash.mix_all(std::span<const std::uint32_t>(kernel.block));
  hash.mix(kernel.registers_per_thread);
  hash.mix(kernel.static_shared_bytes);
  hash.mix(kernel.dynamic_shared_bytes);
  hash.mix(static_cast<std::uint64_t>(kernel.device));
  hash.mix(static_cast<std::uint64_t>(kernel.stream));
  return hash.value();
}

std::uint64_t record_hash(const CopyInfo& copy) {
  RecordHash hash;
  hash.mix(copy.bytes);
  hash.mix(static_cast<std::uint64_t>(copy.direction));
  hash.mix(static_cast<std::uint64_t>(copy.source));
  hash.mix(static_cast<std::uint64_t>(copy.destination));
  return hash.value();
}

std::uint64_t record_hash(const OpDetail& op) {
  RecordHash hash;
  hash.mix(op.input_shapes);
  hash.mix(op.flops);
  hash.mix(op.bytes_read);
  hash.mix(op.bytes_written);
  return hash.value();
}

std::uint64_t record_hash(const MemoryContext& context) {
  RecordHash hash;
  hash.mix(static_cast<std::uint64_t>(context.action));
  hash.mix(static_cast<std::uint64_t>(context.device));
  hash.mix(context.owner_op);
  hash.mix(context.scope);
  hash.mix(context.total_reserved);
  return hash.value();
}

std::uint64_t record_hash(const std::vector<std::vector<std::int64_t>>& shapes) {
  RecordHash hash;
  hash.mix(shapes.size());
  for (const std::vector<std::int64_t>& shape : shapes)
    hash.mix_all(std::span<const std::int64_t>(shape));
  return hash.value();
}

}  // namespace tscope::trace

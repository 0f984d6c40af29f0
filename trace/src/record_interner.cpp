#include "tscope/trace/record_interner.h"

namespace tscope::trace {

std::uint64_t record_hash(const SpanDetail& detail) {
  return RecordHash()
      .mix(detail.kernel, detail.copy, detail.op, detail.args.begin, detail.args.count)
      .value();
}

std::uint64_t record_hash(const KernelInfo& kernel) {
  RecordHash hash;
  hash.mix_all(std::span<const std::uint32_t>(kernel.grid));
  hash.mix_all(std::span<const std::uint32_t>(kernel.block));
  return hash
      .mix(kernel.registers_per_thread, kernel.static_shared_bytes, kernel.dynamic_shared_bytes,
           kernel.device, kernel.stream)
      .value();
}

std::uint64_t record_hash(const CopyInfo& copy) {
  return RecordHash().mix(copy.bytes, copy.direction, copy.source, copy.destination).value();
}

std::uint64_t record_hash(const OpDetail& op) {
  return RecordHash().mix(op.input_shapes, op.flops, op.bytes_read, op.bytes_written).value();
}

std::uint64_t record_hash(const MemoryContext& context) {
  return RecordHash()
      .mix(context.action, context.device, context.owner_op, context.scope, context.total_reserved)
      .value();
}

std::uint64_t record_hash(const std::vector<std::vector<std::int64_t>>& shapes) {
  RecordHash hash;
  hash.mix(shapes.size());
  for (const std::vector<std::int64_t>& shape : shapes)
    hash.mix_all(std::span<const std::int64_t>(shape));
  return hash.value();
}

}  // namespace tscope::trace

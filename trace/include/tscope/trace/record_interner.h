#pragma once
// Keeps one copy of each distinct record of a Trace side table (span detail, kernel launch
// geometry, copy kinds, operator work, memory event contexts) for TraceBuilder: a training trace
// repeats the same launches and ops every step, so the events that carry equal detail share one
// entry.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/errors.h"
#include "tscope/trace/event_details.h"
#include "tscope/trace/hashed_values.h"

namespace tscope::trace {

// FNV-1a over 64-bit words: cheap, and good enough to bucket records compared in full anyway.
class RecordHash {
 public:
  // Mixes each value in turn as one 64-bit word (integers and enums).
  template <typename... Words>
  RecordHash& mix(Words... words) {
    ((hash_ = (hash_ ^ static_cast<std::uint64_t>(words)) * 0x100000001b3ull), ...);
    return *this;
  }
  template <typename Integer>
  void mix_all(std::span<const Integer> values) {
    mix(values.size());
    for (const Integer value : values)
      mix(static_cast<std::uint64_t>(value));
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

std::uint64_t record_hash(const SpanDetail& detail);
std::uint64_t record_hash(const KernelInfo& kernel);
std::uint64_t record_hash(const CopyInfo& copy);
std::uint64_t record_hash(const OpDetail& op);
std::uint64_t record_hash(const MemoryContext& context);
std::uint64_t record_hash(const std::vector<std::vector<std::int64_t>>& shapes);

template <typename Record>
class RecordInterner {
 public:
  // The index in `table` of a record equal to `record`, appending it when none is stored yet.
  // Every call must pass the same table.
  std::uint32_t store(std::vector<Record>& table, const Record& record) {
    return by_hash_.find_or_add(
        record_hash(record), [&](std::uint32_t stored) { return table[stored] == record; },
        [&] {
          if (table.size() >= kNoIndex) {
            throw TraceError("more than 2^32 - 1 distinct side-table records");
          }
          table.push_back(record);
          return static_cast<std::uint32_t>(table.size() - 1);
        });
  }

 private:
  HashedValues<std::uint32_t> by_hash_;
};

}  // namespace tscope::trace

#include "perfetto_trace_decoder.h"

#include <zlib.h>

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace tscope::testing {
namespace {

// One field of a message: its number, wire type and value (a varint, 8 fixed bytes or a run).
struct WireField {
  std::uint32_t number = 0;
  std::uint32_t wire_type = 0;
  std::uint64_t integer = 0;
  std::string_view bytes;
};

class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  bool next(WireField& field) {
    if (position_ == bytes_.size()) return false;
    const std::uint64_t tag = varint();
    field.number = static_cast<std::uint32_t>(tag >> 3);
    field.wire_type = static_cast<std::uint32_t>(tag & 7);
    if (field.number == 0) fail("field number 0");
    switch (field.wire_type) {
      case 0:
        field.integer = varint();
        break;
      case 1:
        require(8);
        std::memcpy(&field.integer, bytes_.data() + position_, 8);  // little-endian host
        position_ += 8;
        break;
      case 2: {
        const std::uint64_t length = varint();
        require(length);
        field.bytes = bytes_.substr(position_, length);
        position_ += length;
        break;
      }
      default:
        fail("unexpected wire type " + std::to_string(field.wire_type));
    }
    return true;
  }

 private:
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      require(1);
      const auto byte = static_cast<std::uint8_t>(bytes_[position_++]);
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail("varint longer than 10 bytes");
  }
  void require(std::uint64_t count) {
    if (bytes_.size() - position_ < count) fail("message cut short");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at offset " + std::to_string(position_));
  }

  std::string_view bytes_;
  std::size_t position_ = 0;
};

void expect_wire(const WireField& field, std::uint32_t wire_type, const char* name) {
  if (field.wire_type != wire_type) {
    throw std::runtime_error(std::string(name) + " has wire type " +
                             std::to_string(field.wire_type));
  }
}

PerfettoTrackDescriptor decode_descriptor(std::string_view bytes) {
  PerfettoTrackDescriptor descriptor;
  WireReader reader(bytes);
  for (WireField field; reader.next(field);) {
    if (field.number == 1) descriptor.uuid = field.integer;
    if (field.number == 5) descriptor.parent_uuid = field.integer;
    if (field.number == 2) descriptor.name = std::string(field.bytes);
    if (field.number == 8) descriptor.counter = true;
    if (field.number == 3) {  // ProcessDescriptor {pid = 1, process_name = 6}
      WireReader process(field.bytes);
      for (WireField inner; process.next(inner);) {
        if (inner.number == 1) descriptor.process_pid = static_cast<std::int64_t>(inner.integer);
        if (inner.number == 6) descriptor.process_name = std::string(inner.bytes);
      }
    }
    if (field.number == 4) {  // ThreadDescriptor {pid = 1, tid = 2, thread_name = 5}
      WireReader thread(field.bytes);
      for (WireField inner; thread.next(inner);) {
        if (inner.number == 1) descriptor.thread_pid = static_cast<std::int64_t>(inner.integer);
        if (inner.number == 2) descriptor.thread_tid = static_cast<std::int64_t>(inner.integer);
      }
    }
  }
  return descriptor;
}

PerfettoTrackEvent decode_event(std::string_view bytes) {
  PerfettoTrackEvent event;
  WireReader reader(bytes);
  for (WireField field; reader.next(field);) {
    switch (field.number) {
      case 9:
        event.type = static_cast<PerfettoEventType>(field.integer);
        break;
      case 11:
        event.track_uuid = field.integer;
        break;
      case 10:
        event.name_iid = field.integer;
        break;
      case 3:
        event.category_iids.push_back(field.integer);
        break;
      case 30:
        event.counter_value = static_cast<double>(static_cast<std::int64_t>(field.integer));
        break;
      case 44: {
        expect_wire(field, 1, "double_counter_value");
        double value;
        std::memcpy(&value, &field.integer, sizeof value);
        event.counter_value = value;
        break;
      }
      case 47:
        expect_wire(field, 1, "flow_ids");
        event.flow_ids.push_back(field.integer);
        break;
      case 48:
        expect_wire(field, 1, "terminating_flow_ids");
        event.terminating_flow_ids.push_back(field.integer);
        break;
      case 4: {  // DebugAnnotation {name_iid = 1, ..., string_value_iid = 17}
        WireReader annotation(field.bytes);
        for (WireField inner; annotation.next(inner);) {
          if (inner.number == 1) event.annotation_name_iids.push_back(inner.integer);
          if (inner.number == 17) event.annotation_value_iids.push_back(inner.integer);
        }
        break;
      }
      default:
        break;
    }
  }
  return event;
}

PerfettoPacket decode_packet(std::string_view bytes) {
  PerfettoPacket packet;
  WireReader reader(bytes);
  for (WireField field; reader.next(field);) {
    switch (field.number) {
      case 8:
        packet.timestamp = field.integer;
        break;
      case 10:
        packet.sequence_id = field.integer;
        break;
      case 13:
        packet.sequence_flags = field.integer;
        break;
      case 60:
        packet.descriptor = decode_descriptor(field.bytes);
        break;
      case 11:
        packet.event = decode_event(field.bytes);
        break;
      case 12: {  // InternedData: each table's entries are {iid = 1, name = 2}
        WireReader interned(field.bytes);
        for (WireField table; interned.next(table);) {
          expect_wire(table, 2, "interned entry");
          std::pair<std::uint64_t, std::string> entry;
          WireReader fields(table.bytes);
          for (WireField inner; fields.next(inner);) {
            if (inner.number == 1) entry.first = inner.integer;
            if (inner.number == 2) entry.second = std::string(inner.bytes);
          }
          packet.interned[table.number].push_back(std::move(entry));
        }
        break;
      }
      default:
        break;
    }
  }
  return packet;
}

std::string read_maybe_gzip(const std::filesystem::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw std::runtime_error("cannot open " + path.string());
  std::string bytes;
  char buffer[1 << 16];
  for (int read = 0; (read = gzread(file, buffer, sizeof buffer)) > 0;)
    bytes.append(buffer, static_cast<std::size_t>(read));
  gzclose(file);
  return bytes;
}

}  // namespace

std::vector<PerfettoPacket> decode_perfetto_trace(const std::filesystem::path& path) {
  const std::string bytes = read_maybe_gzip(path);
  std::vector<PerfettoPacket> packets;
  WireReader reader(bytes);
  for (WireField field; reader.next(field);) {
    if (field.number != 1)
      throw std::runtime_error("Trace has field " + std::to_string(field.number));
    expect_wire(field, 2, "Trace.packet");
    packets.push_back(decode_packet(field.bytes));
  }
  return packets;
}

}  // namespace tscope::testing

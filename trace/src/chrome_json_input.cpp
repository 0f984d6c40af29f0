#include "tscope/trace/chrome_json_input.h"

#include <simdjson.h>
#include <zlib.h>

#include "chrome_byte_source.h"

namespace tscope::trace {
namespace {

using chrome_json::ChromeByteSource;

// The whole text of a source, as one string. A small text (ChromeByteSource::kSmallText), plain or
// gzip, is read in one piece of its own size (and one byte to see the end), so it costs no large
// zeroed buffer.
std::string read_all(ChromeByteSource source) {
  constexpr std::size_t kChunk = std::size_t{1} << 22;
  source.text_ends_within(ChromeByteSource::kSmallText);
  std::string text;
  std::size_t size = 0;
  for (;;) {
    const std::size_t chunk = source.read_size(kChunk);
    text.resize(size + chunk);
    const std::size_t count = source.read(text.data() + size, chunk);
    size += count;
    if (count == 0) break;
  }
  text.resize(size);
  return text;
}

}  // namespace

ChromeJsonInput::ChromeJsonInput(std::string bytes, std::string source_name)
    : buffer_(std::move(bytes)), size_(buffer_.size()), source_name_(std::move(source_name)) {
  buffer_.append(simdjson::SIMDJSON_PADDING, '\0');
}

ChromeJsonInput ChromeJsonInput::from_bytes(std::string_view bytes, std::string source_name,
                                            std::uint64_t max_bytes) {
  std::string text = read_all(ChromeByteSource::over_memory(bytes, source_name, max_bytes));
  return ChromeJsonInput(std::move(text), std::move(source_name));
}

ChromeJsonInput ChromeJsonInput::read_file(const std::filesystem::path& path,
                                           std::uint64_t max_bytes) {
  return ChromeJsonInput(read_all(ChromeByteSource::open_file(path, max_bytes)), path.string());
}

std::string ChromeJsonInput::peek(std::span<const std::uint8_t> head) {
  const std::string_view bytes(reinterpret_cast<const char*>(head.data()), head.size());
  if (!ChromeByteSource::is_gzip(bytes)) return std::string(bytes);
  std::string text(head.size() * 4 + 64, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return {};
  stream.next_in = const_cast<Bytef*>(head.data());
  stream.avail_in = static_cast<uInt>(head.size());
  stream.next_out = reinterpret_cast<Bytef*>(text.data());
  stream.avail_out = static_cast<uInt>(text.size());
  // A cut-off stream is expected here: whatever inflated before the cut is enough to sniff.
  inflate(&stream, Z_SYNC_FLUSH);
  text.resize(text.size() - stream.avail_out);
  inflateEnd(&stream);
  return text;
}

}  // namespace tscope::trace

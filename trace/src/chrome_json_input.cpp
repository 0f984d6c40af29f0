#include "tscope/trace/chrome_json_input.h"

#include <simdjson.h>
#include <zlib.h>

#include <fstream>
#include <limits>

#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string inflate_gzip(std::string_view compressed, const std::string& source_name,
                         std::uint64_t max_bytes) {
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip wrapper and verify its CRC.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    throw FormatError(source_name, 0, "cannot initialise zlib");
  }
  std::string inflated;
  inflated.resize(std::min<std::uint64_t>(
      max_bytes, std::max<std::size_t>(compressed.size() * 4, std::size_t{1} << 16)));
  std::size_t produced = 0;
  std::size_t consumed = 0;
  for (;;) {
    // zlib counts in 32-bit units, so feed large inputs and outputs in slices.
    constexpr std::size_t kSlice = std::numeric_limits<uInt>::max() / 2;
    if (produced == inflated.size()) {
      if (inflated.size() >= max_bytes) {
        inflateEnd(&stream);
        throw FormatError(
            source_name, consumed,
            "gzip data inflates beyond the limit of " + std::to_string(max_bytes) + " bytes");
      }
      inflated.resize(std::min<std::uint64_t>(max_bytes, inflated.size() * 2));
    }
    const std::size_t in_slice = std::min(compressed.size() - consumed, kSlice);
    const std::size_t out_slice = std::min(inflated.size() - produced, kSlice);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
    stream.avail_in = static_cast<uInt>(in_slice);
    stream.next_out = reinterpret_cast<Bytef*>(inflated.data() + produced);
    stream.avail_out = static_cast<uInt>(out_slice);
    const int status = inflate(&stream, Z_NO_FLUSH);
    consumed += in_slice - stream.avail_in;
    produced += out_slice - stream.avail_out;
    if (status == Z_STREAM_END) {
      // A .gz may hold several members back to back (gzip -c a b > c); read them all.
      if (consumed < compressed.size() && is_gzip(compressed.substr(consumed))) {
        inflateReset(&stream);
        continue;
      }
      break;
    }
    if (status == Z_BUF_ERROR && consumed == compressed.size() && stream.avail_out != 0) {
      inflateEnd(&stream);
      throw FormatError(source_name, consumed, "gzip data ends before its stream does");
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      const std::string reason = stream.msg != nullptr ? stream.msg : "corrupt gzip data";
      inflateEnd(&stream);
      throw FormatError(source_name, consumed, "gzip: " + reason);
    }
  }
  inflateEnd(&stream);
  inflated.resize(produced);
  return inflated;
}

}  // namespace

ChromeJsonInput::ChromeJsonInput(std::string bytes, std::string source_name)
    : buffer_(std::move(bytes)), size_(buffer_.size()), source_name_(std::move(source_name)) {
  buffer_.append(simdjson::SIMDJSON_PADDING, '\0');
}

ChromeJsonInput ChromeJsonInput::from_bytes(std::string_view bytes, std::string source_name,
                                            std::uint64_t max_bytes) {
  if (is_gzip(bytes)) {
    std::string inflated = inflate_gzip(bytes, source_name, max_bytes);
    return ChromeJsonInput(std::move(inflated), std::move(source_name));
  }
  if (bytes.size() > max_bytes) {
    throw FormatError(source_name, max_bytes,
                      "file is larger than the limit of " + std::to_string(max_bytes) + " bytes");
  }
  return ChromeJsonInput(std::string(bytes), std::move(source_name));
}

ChromeJsonInput ChromeJsonInput::read_file(const std::filesystem::path& path,
                                           std::uint64_t max_bytes) {
  const std::string name = path.string();
  std::ifstream file(path, std::ios::binary);
  if (!file) throw IoError(path, "cannot open file");
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw IoError(path, "cannot read file size: " + error.message());
  if (size > max_bytes) {
    throw FormatError(name, max_bytes,
                      "file is larger than the limit of " + std::to_string(max_bytes) + " bytes");
  }
  std::string bytes(size, '\0');
  file.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(file.gcount()) != size) {
    throw IoError(path, "read ended after " + std::to_string(file.gcount()) + " of " +
                            std::to_string(size) + " bytes");
  }
  if (is_gzip(bytes)) return ChromeJsonInput(inflate_gzip(bytes, name, max_bytes), name);
  return ChromeJsonInput(std::move(bytes), name);
}

std::string ChromeJsonInput::peek(std::span<const std::uint8_t> head) {
  const std::string_view bytes(reinterpret_cast<const char*>(head.data()), head.size());
  if (!is_gzip(bytes)) return std::string(bytes);
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

void ChromeJsonInput::close_unterminated_array() {
  std::size_t end = size_;
  const auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (end > 0 && is_space(buffer_[end - 1]))
    --end;
  if (end > 0 && buffer_[end - 1] == ',') --end;
  buffer_.resize(end);
  buffer_.push_back(']');
  size_ = buffer_.size();
  buffer_.append(simdjson::SIMDJSON_PADDING, '\0');
}

}  // namespace tscope::trace

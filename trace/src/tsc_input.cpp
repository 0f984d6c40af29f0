#include "tsc_input.h"

#include <system_error>

#include "tscope/trace/errors.h"

namespace tscope::trace {

TscFileInput::TscFileInput(const std::filesystem::path& path)
    : path_(path), file_(path, std::ios::binary) {
  if (!file_) throw IoError(path, "cannot open for reading");
  std::error_code error;
  size_ = std::filesystem::file_size(path, error);
  if (error) throw IoError(path, "cannot read its size: " + error.message());
}

std::span<const std::uint8_t> TscFileInput::bytes_at(std::uint64_t offset, std::size_t length) {
  // Grown to the largest chunk read so far, never shrunk: a file of many chunks reuses it.
  if (buffer_.size() < length) buffer_.resize(length);
  file_.seekg(static_cast<std::streamoff>(offset));
  file_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(length));
  // Short only when the file shrank after its size was taken (a writer truncating it).
  if (!file_ || static_cast<std::size_t>(file_.gcount()) != length) {
    throw IoError(path_, "read of " + std::to_string(length) + " bytes at byte " +
                             std::to_string(offset) + " failed");
  }
  return {buffer_.data(), length};
}

}  // namespace tscope::trace

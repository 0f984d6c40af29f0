#pragma once
// Typed errors of the trace layer. Readers treat every input as untrusted and report what is wrong
// with it together with the file and byte offset, so a user can find the damage.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tscope::trace {

// Misuse of the model API (an unknown track index, an event on the wrong kind of track).
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file could not be opened, read or written.
class IoError : public TraceError {
 public:
  IoError(const std::filesystem::path& path, const std::string& what);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// An input is not a valid trace: bad magic, unsupported version, checksum mismatch, a size or
// varint that runs past its bounds. `offset` is the byte offset in the file where it was found.
class FormatError : public TraceError {
 public:
  FormatError(const std::filesystem::path& path, std::uint64_t offset, const std::string& what);
  const std::filesystem::path& path() const { return path_; }
  std::uint64_t offset() const { return offset_; }

 private:
  std::filesystem::path path_;
  std::uint64_t offset_;
};

// What a reader throws when memory runs out (std::bad_alloc) while it reads `path`, `offset` bytes
// in. Under a limit on the process (ulimit -v, a container) that happens on an input too large or
// too hostile for the limit: a fact about the input, reported as bad input naming the file and the
// offset reached, not as tscope's own failure.
FormatError out_of_memory_reading(const std::filesystem::path& path, std::uint64_t offset);

}  // namespace tscope::trace

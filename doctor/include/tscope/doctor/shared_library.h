#pragma once
// An owned dlopen handle with typed symbol lookup: how the doctor reaches the CUDA libraries
// without linking them, so `tscope` starts on machines that have none of them.

#include <stdexcept>
#include <string>

namespace tscope::doctor {

// A library could not be opened or lacks a symbol; what() names the library, the symbol and
// the loader's own message.
class SharedLibraryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SharedLibrary {
 public:
  // Opens `name` as the dynamic loader would (LD_LIBRARY_PATH, ld.so.cache, RUNPATH).
  // Throws SharedLibraryError with dlerror()'s text when it cannot.
  explicit SharedLibrary(std::string name);
  ~SharedLibrary();

  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& name() const { return name_; }

  // The symbol `symbol_name` as a pointer to `Function`, whose type the caller takes from the
  // library's own header (decltype of the declaration) so a signature cannot drift.
  template <typename Function>
  Function* symbol(const char* symbol_name) const {
    return reinterpret_cast<Function*>(raw_symbol(symbol_name));
  }

 private:
  void* raw_symbol(const char* symbol_name) const;

  std::string name_;
  void* handle_ = nullptr;
};

}  // namespace tscope::doctor

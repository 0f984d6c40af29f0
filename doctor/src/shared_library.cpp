#include "tscope/doctor/shared_library.h"

#include <dlfcn.h>

#include <utility>

namespace tscope::doctor {

SharedLibrary::SharedLibrary(std::string name) : name_(std::move(name)) {
  handle_ = dlopen(name_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* reason = dlerror();
    throw SharedLibraryError("cannot load " + name_ + ": " +
                             (reason ? reason : "unknown dlopen error"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) {
    dlclose(handle_);
  }
}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : name_(std::move(other.name_)), handle_(std::exchange(other.handle_, nullptr)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) {
      dlclose(handle_);
    }
    name_ = std::move(other.name_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void* SharedLibrary::raw_symbol(const char* symbol_name) const {
  dlerror();
  void* address = dlsym(handle_, symbol_name);
  // A symbol may legitimately be null, so dlerror() and not the address tells failure apart.
  if (const char* reason = dlerror(); reason != nullptr) {
    throw SharedLibraryError("symbol " + std::string(symbol_name) + " not found in " + name_ +
                             ": " + reason);
  }
  return address;
}

}  // namespace tscope::doctor

// Stands in for the CUDA driver on machines without one: loads the library CUDA_INJECTION64_PATH
// names and calls its InitializeInjection, as libcuda does during cuInit, then carries on and
// exits with code 5, as a program that goes on without its GPU would.

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr) {
    std::fprintf(stderr, "CUDA_INJECTION64_PATH is not set\n");
    return 2;
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 2;
  }
  using InitializeInjection = int (*)();
  auto initialize = reinterpret_cast<InitializeInjection>(dlsym(library, "InitializeInjection"));
  if (initialize == nullptr) {
    std::fprintf(stderr, "%s has no InitializeInjection\n", path);
    return 2;
  }
  std::printf("InitializeInjection returned %d; the program runs on\n", initialize());
  return 5;
}

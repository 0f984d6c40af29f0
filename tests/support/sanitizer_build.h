// Whether this test binary runs under AddressSanitizer or ThreadSanitizer, whose allocators keep
// freed memory in quarantine (256 MiB by default): bounds on resident memory allow that much more.
#pragma once

namespace tscope::testing {

constexpr bool sanitizer_build() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace tscope::testing

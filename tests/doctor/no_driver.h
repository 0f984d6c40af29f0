#pragma once
// The doctor's "no driver" behaviour can only be observed where libcuda.so.1 is absent (CI, a
// container started without --gpus); on a machine with a driver those tests skip and say why.

#include <gtest/gtest.h>

#include "tscope/doctor/shared_library.h"

namespace tscope::doctor::testing {

inline bool nvidia_driver_installed() {
  try {
    const SharedLibrary driver("libcuda.so.1");
    return true;
  } catch (const SharedLibraryError&) {
    return false;
  }
}

}  // namespace tscope::doctor::testing

#define TSCOPE_REQUIRE_NO_NVIDIA_DRIVER()                                                         \
  do {                                                                                            \
    if (::tscope::doctor::testing::nvidia_driver_installed()) {                                   \
      GTEST_SKIP() << "libcuda.so.1 loads here: the no-driver diagnosis needs a machine without " \
                      "an NVIDIA driver";                                                         \
    }                                                                                             \
  } while (0)

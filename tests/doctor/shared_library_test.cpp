// The dlopen wrapper on a library every machine has (zlib), and its errors on ones it lacks.

#include "tscope/doctor/shared_library.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <utility>

namespace tscope::doctor {
namespace {

TEST(SharedLibraryTest, TypedSymbolCallsIntoTheLoadedLibrary) {
  const SharedLibrary zlib("libz.so.1");
  auto version = zlib.symbol<decltype(::zlibVersion)>("zlibVersion");
  // The major version of the library must match the header this test was built with.
  EXPECT_EQ(std::string(version()).substr(0, 2), std::string(ZLIB_VERSION).substr(0, 2));
}

TEST(SharedLibraryTest, MissingLibraryErrorNamesIt) {
  try {
    SharedLibrary library("libtscope-no-such-library.so.7");
    FAIL() << "a missing library loaded";
  } catch (const SharedLibraryError& error) {
    EXPECT_NE(std::string(error.what()).find("libtscope-no-such-library.so.7"), std::string::npos)
        << error.what();
  }
}

TEST(SharedLibraryTest, MissingSymbolErrorNamesSymbolAndLibrary) {
  const SharedLibrary zlib("libz.so.1");
  try {
    zlib.symbol<void()>("tscope_no_such_symbol");
    FAIL() << "a missing symbol resolved";
  } catch (const SharedLibraryError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("tscope_no_such_symbol"), std::string::npos) << message;
    EXPECT_NE(message.find("libz.so.1"), std::string::npos) << message;
  }
}

TEST(SharedLibraryTest, MovedLibraryStaysUsable) {
  SharedLibrary original("libz.so.1");
  const SharedLibrary moved(std::move(original));
  EXPECT_EQ(moved.name(), "libz.so.1");
  EXPECT_NE(moved.symbol<decltype(::zlibVersion)>("zlibVersion"), nullptr);
}

}  // namespace
}  // namespace tscope::doctor

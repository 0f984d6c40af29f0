// `tscope info` on Nsight Systems exports made to exhaust its memory, run as a child process under
// an address-space limit: a value of nearly 1 GB (a zeroblob: SQLite writes it without holding it,
// in about a second) where the reader expects a string and where it expects an integer. SQLite
// refuses to load a value past the reader's limit, so each is bad input (exit 2) naming the file,
// the row and the query, in bounded memory. Each database is generated here.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "limited_tscope_run.h"
#include "sanitizer_build.h"

namespace tscope {
namespace {

using testing::expect_bad_input;
using testing::run_info_limited;

// Just under SQLite's own limit on a value (10^9 bytes), above the 768 MiB the child may map.
constexpr int kHugeValueBytes = 999'999'000;

// A database made of `sql`, with pages and journal set for writing a gigabyte fast.
std::filesystem::path make_database(const std::string& name, const std::string& sql) {
  const std::filesystem::path path = testing::scratch_path(name);
  std::filesystem::remove(path);
  sqlite3* database = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &database), SQLITE_OK);
  const std::string script =
      "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + sql;
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(database, script.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(database);
  return path;
}

const std::string kHugeValue = "zeroblob(" + std::to_string(kHugeValueBytes) + ")";

TEST(NsysMemoryBound, AGigabyteValueInTheStringTableIsBadInputNamingItsRow) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const auto path =
      make_database("huge_string.sqlite",
                    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO StringIds VALUES (1, 'kernel'), (2, " +
                        kHugeValue + ");");
  expect_bad_input(run_info_limited(path), path,
                   "a value longer than the reader's limit of 16777216 bytes in row 2 of "
                   "\"SELECT id, value FROM StringIds\"");
  std::filesystem::remove(path);
}

TEST(NsysMemoryBound, AGigabyteBlobWhereAnIntegerBelongsIsBadInputNamingItsRow) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const auto path = make_database(
      "huge_integer.sqlite",
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
      " text TEXT, textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (1, 2, 59, 'step', NULL, 0), (" +
          kHugeValue + ", 4, 59, 'step', NULL, 0);");
  expect_bad_input(run_info_limited(path), path, "bytes in row 2 of \"SELECT start, end");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope

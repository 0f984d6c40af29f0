// libFuzzer entry point for the Nsight Systems SQLite reader, structure-aware: an input is a
// program of schema and value edits applied to a real export (nsys_base.sqlite, cut down by
// make_nsys_base.py), so that the reader's queries meet missing tables and columns, renamed
// columns, values of the wrong type, absurd numbers, duplicated and deleted rows, instead of
// stopping at SQLite's own corruption checks. An input whose first byte is 0xff is instead the raw
// file, for those checks. The reader must load the result or throw FormatError or IoError.

#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tscope/trace/errors.h"
#include "tscope/trace/nsys_sqlite_reader.h"

namespace {

struct Table {
  std::string name;
  std::vector<std::string> columns;
};

// Reads the fuzzer's bytes front to back; past the end every read is zero.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  bool done() const { return position_ >= bytes_.size(); }
  std::uint8_t byte() { return done() ? 0 : bytes_[position_++]; }
  std::int64_t int64() {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value = (value << 8) | byte();
    return static_cast<std::int64_t>(value);
  }
  std::string text(std::size_t length) {
    std::string out;
    while (out.size() < length && !done())
      out.push_back(static_cast<char>(byte()));
    return out;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t position_ = 0;
};

std::vector<char> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

const std::vector<char>& base_export() {
  static const std::vector<char> bytes = read_file(TSCOPE_NSYS_BASE);
  return bytes;
}

sqlite3* open_copy_of_base() {
  sqlite3* database = nullptr;
  sqlite3_open(":memory:", &database);
  const std::vector<char>& base = base_export();
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(base.size()));
  std::memcpy(copy, base.data(), base.size());
  sqlite3_deserialize(database, "main", copy, static_cast<sqlite3_int64>(base.size()),
                      static_cast<sqlite3_int64>(base.size()),
                      SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  return database;
}

std::vector<Table> tables_of(sqlite3* database) {
  std::vector<Table> tables;
  sqlite3_stmt* rows = nullptr;
  sqlite3_prepare_v2(database, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &rows,
                     nullptr);
  while (sqlite3_step(rows) == SQLITE_ROW)
    tables.push_back({reinterpret_cast<const char*>(sqlite3_column_text(rows, 0)), {}});
  sqlite3_finalize(rows);
  for (Table& table : tables) {
    sqlite3_stmt* columns = nullptr;
    sqlite3_prepare_v2(database, ("PRAGMA table_info(\"" + table.name + "\")").c_str(), -1,
                       &columns, nullptr);
    while (sqlite3_step(columns) == SQLITE_ROW)
      table.columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(columns, 1)));
    sqlite3_finalize(columns);
  }
  return tables;
}

// Binds a value of a fuzzer-chosen type: extremes of int64, any int64, reals including infinity
// (SQLite stores NaN as NULL), text, blobs and NULL.
void bind_value(sqlite3_stmt* statement, ByteReader& input) {
  switch (input.byte() % 8) {
    case 0:
      sqlite3_bind_int64(statement, 1, std::numeric_limits<std::int64_t>::max());
      break;
    case 1:
      sqlite3_bind_int64(statement, 1, std::numeric_limits<std::int64_t>::min());
      break;
    case 2:
      sqlite3_bind_int64(statement, 1, input.int64());
      break;
    case 3:
      sqlite3_bind_int64(statement, 1, static_cast<std::int8_t>(input.byte()));
      break;
    case 4: {
      const double reals[] = {std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              1e300,
                              -1e300,
                              0.5,
                              std::numeric_limits<double>::quiet_NaN()};
      sqlite3_bind_double(statement, 1, reals[input.byte() % std::size(reals)]);
      break;
    }
    case 5: {
      const std::string text = input.text(input.byte());
      sqlite3_bind_text(statement, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      break;
    }
    case 6: {
      const std::string blob = input.text(input.byte());
      sqlite3_bind_blob(statement, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
      break;
    }
    default:
      sqlite3_bind_null(statement, 1);
  }
}

void run(sqlite3* database, const std::string& sql) {
  sqlite3_exec(database, sql.c_str(), nullptr, nullptr, nullptr);
}

// One edit; failures (a column already dropped, a constraint) just leave the database as it was.
void apply_edit(sqlite3* database, const std::vector<Table>& tables, ByteReader& input) {
  const Table& table = tables[input.byte() % tables.size()];
  const std::string name = "\"" + table.name + "\"";
  const std::string column = table.columns.empty()
                                 ? "rowid"
                                 : "\"" + table.columns[input.byte() % table.columns.size()] + "\"";
  switch (input.byte() % 8) {
    case 0:
      run(database, "DROP TABLE " + name);
      break;
    case 1:
      run(database, "ALTER TABLE " + name + " DROP COLUMN " + column);
      break;
    case 2:
      run(database, "ALTER TABLE " + name + " RENAME COLUMN " + column + " TO renamed");
      break;
    case 3:
    case 4: {
      // One row (by position) or every row gets the value.
      const std::string where = input.byte() % 2 == 0
                                    ? " WHERE rowid IN (SELECT rowid FROM " + name +
                                          " LIMIT 1 OFFSET " + std::to_string(input.byte()) + ")"
                                    : "";
      sqlite3_stmt* statement = nullptr;
      if (sqlite3_prepare_v2(database,
                             ("UPDATE " + name + " SET " + column + " = ?1" + where).c_str(), -1,
                             &statement, nullptr) == SQLITE_OK) {
        bind_value(statement, input);
        sqlite3_step(statement);
      }
      sqlite3_finalize(statement);
      break;
    }
    case 5:
      run(database, "DELETE FROM " + name + " WHERE rowid % " +
                        std::to_string(input.byte() % 4 + 1) + " = 0");
      break;
    case 6:
      // Duplicates: the same correlation ids, string ids and thread ids twice.
      run(database, "INSERT INTO " + name + " SELECT * FROM " + name + " LIMIT " +
                        std::to_string(input.byte()));
      break;
    default:
      // A table of the same name whose columns hold text where numbers belong.
      run(database, "DROP TABLE " + name);
      run(database, "CREATE TABLE " + name + " AS SELECT 'x' AS " + column);
  }
}

std::vector<unsigned char> serialized(sqlite3* database) {
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(database, "main", &size, 0);
  std::vector<unsigned char> out(bytes, bytes + size);
  sqlite3_free(bytes);
  return out;
}

const std::filesystem::path& scratch_file() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("tscope-nsys-fuzz-" + std::to_string(getpid()) + ".sqlite");
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<unsigned char> file;
  if (size > 0 && data[0] == 0xff) {
    file.assign(data + 1, data + size);
  } else {
    sqlite3* database = open_copy_of_base();
    const std::vector<Table> tables = tables_of(database);
    ByteReader input({data, size});
    for (int edits = 0; !input.done() && edits < 64 && !tables.empty(); ++edits)
      apply_edit(database, tables, input);
    file = serialized(database);
    sqlite3_close(database);
  }
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.data()),
              static_cast<std::streamsize>(file.size()));
  }
  try {
    tscope::trace::read_nsys_sqlite(scratch_file());
  } catch (const tscope::trace::FormatError&) {
  } catch (const tscope::trace::IoError&) {
  }
  return 0;
}

#include "tscope/trace/nsys_sqlite_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <string>
#include <unordered_map>

#include "import_stats.h"
#include "tscope/trace/chrome_kineto_names.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

// nsys serialises a thread as hardware id (8 bits), VM id (8), pid (24) and tid (24).
constexpr std::int64_t kIdMask = 0xFFFFFF;
std::int64_t pid_of(std::int64_t global_id) {
  return (global_id >> 24) & kIdMask;
}
std::int64_t tid_of(std::int64_t global_id) {
  return global_id & kIdMask;
}

// nsys' own enums (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND), which differ from CUPTI's.
CopyDirection direction_of(std::int64_t copy_kind) {
  switch (copy_kind) {
    case 1:   // HtoD
    case 3:   // HtoA
    case 11:  // unified HtoD
      return CopyDirection::kHostToDevice;
    case 2:   // DtoH
    case 4:   // AtoH
    case 12:  // unified DtoH
      return CopyDirection::kDeviceToHost;
    case 5:   // AtoA
    case 6:   // AtoD
    case 7:   // DtoA
    case 8:   // DtoD
    case 13:  // unified DtoD
      return CopyDirection::kDeviceToDevice;
    case 9:
      return CopyDirection::kHostToHost;
    case 10:
      return CopyDirection::kPeerToPeer;
    default:
      return CopyDirection::kUnknown;
  }
}

MemoryKind memory_kind_of(std::int64_t kind) {
  switch (kind) {
    case 0:
      return MemoryKind::kPageable;
    case 1:
      return MemoryKind::kPinned;
    case 2:  // device
    case 3:  // array
    case 5:  // device static
      return MemoryKind::kDevice;
    case 4:  // managed
    case 6:  // managed static
      return MemoryKind::kManaged;
    default:
      return MemoryKind::kUnknown;
  }
}

// The longest string or blob any value the reader queries may hold, far beyond any name an export
// holds (a demangled C++ template kernel runs to a few KiB). SQLite refuses a longer value before
// it loads it, so a hostile value costs no memory; unlimited, it would load a value of up to 1 GB
// and the string table would copy it.
constexpr int kMaxValueBytes = 16 << 20;

// NVTX_EVENTS.eventType values that carry a range or a mark.
constexpr std::int64_t kNvtxMark = 34;
constexpr std::int64_t kNvtxPushPopRange = 59;
constexpr std::int64_t kNvtxStartEndRange = 60;

class Statement {
 public:
  Statement(sqlite3* database, const std::string& sql, const std::filesystem::path& path)
      : sql_(sql), path_(path) {
    if (sqlite3_prepare_v2(database, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
      throw FormatError(path, 0,
                        "sqlite: " + std::string(sqlite3_errmsg(database)) + " in \"" + sql + "\"");
    }
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool step() {
    ++row_;
    const int status = sqlite3_step(statement_);
    if (status == SQLITE_ROW) return true;
    if (status == SQLITE_DONE) return false;
    if (status == SQLITE_NOMEM) throw std::bad_alloc();
    const std::string where = " in row " + std::to_string(row_) + " of \"" + sql_ + "\"";
    if (status == SQLITE_TOOBIG) {
      throw FormatError(path_, 0,
                        "a value longer than the reader's limit of " +
                            std::to_string(kMaxValueBytes) + " bytes" + where);
    }
    throw FormatError(
        path_, 0, "sqlite: " + std::string(sqlite3_errmsg(sqlite3_db_handle(statement_))) + where);
  }
  bool is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
  std::string_view text(int column) const {
    const auto* bytes = sqlite3_column_text(statement_, column);
    // Null for a NULL value, and also when converting a blob or number to text ran out of memory.
    if (bytes == nullptr) {
      if (sqlite3_errcode(sqlite3_db_handle(statement_)) == SQLITE_NOMEM) throw std::bad_alloc();
      return {};
    }
    return {reinterpret_cast<const char*>(bytes),
            static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
  }

 private:
  sqlite3_stmt* statement_ = nullptr;
  std::string sql_;
  std::uint64_t row_ = 0;
  const std::filesystem::path& path_;
};

class NsysImporter {
 public:
  explicit NsysImporter(const std::filesystem::path& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &database_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string message =
          database_ != nullptr ? sqlite3_errmsg(database_) : "out of memory";
      sqlite3_close(database_);
      throw IoError(path, "cannot open as SQLite: " + message);
    }
    sqlite3_limit(database_, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  }
  ~NsysImporter() { sqlite3_close(database_); }
  NsysImporter(const NsysImporter&) = delete;
  NsysImporter& operator=(const NsysImporter&) = delete;

  Trace import() {
    Statement tables(database_, "SELECT name FROM sqlite_master WHERE type = 'table'", path_);
    while (tables.step())
      tables_.insert(std::string(tables.text(0)));
    if (!tables_.contains("StringIds")) {
      throw FormatError(path_, 0, "an SQLite file without a StringIds table is not an nsys export");
    }
    read_strings();
    read_names();
    read_runtime();
    read_nvtx();
    read_kernels();
    read_copies();
    read_memsets();
    builder_.metadata().source_format = "nsys-sqlite";
    stats_.write_to(builder_);
    // Runtime calls and the GPU work they launched share a correlation id; finalize links them.
    return builder_.finalize();
  }

 private:
  bool has(const char* table) const { return tables_.contains(table); }

  StringId string(std::int64_t nsys_id) const {
    const auto found = strings_.find(nsys_id);
    return found == strings_.end() ? kEmptyString : found->second;
  }

  void read_strings() {
    Statement rows(database_, "SELECT id, value FROM StringIds", path_);
    while (rows.step())
      strings_[rows.integer(0)] = builder_.intern(rows.text(1));
  }

  void read_names() {
    if (has("PROCESSES")) {
      Statement rows(database_, "SELECT pid, name FROM PROCESSES", path_);
      while (rows.step())
        process_names_[rows.integer(0)] = std::string(rows.text(1));
    }
    if (has("ThreadNames")) {
      Statement rows(database_, "SELECT globalTid, nameId FROM ThreadNames", path_);
      while (rows.step())
        thread_names_[rows.integer(0)] = string(rows.integer(1));
    }
    if (has("TARGET_INFO_GPU")) {
      Statement rows(database_, "SELECT id, name FROM TARGET_INFO_GPU", path_);
      while (rows.step()) {
        builder_.set_metadata_value("device." + std::to_string(rows.integer(0)) + ".name",
                                    rows.text(1));
      }
    }
  }

  std::uint32_t process(std::int64_t pid) {
    if (const auto found = processes_.find(pid); found != processes_.end()) return found->second;
    Process record;
    record.pid = pid;
    const auto name = process_names_.find(pid);
    record.name = builder_.intern(name != process_names_.end() ? name->second
                                                               : "process " + std::to_string(pid));
    const std::uint32_t index = builder_.add_process(record);
    processes_.emplace(pid, index);
    return index;
  }

  std::uint32_t host_track(std::int64_t global_tid) {
    if (const auto found = host_tracks_.find(global_tid); found != host_tracks_.end()) {
      return found->second;
    }
    TrackInfo info;
    info.kind = TrackKind::kHostThread;
    info.process = process(pid_of(global_tid));
    info.thread_id = tid_of(global_tid);
    const auto name = thread_names_.find(global_tid);
    info.name = name != thread_names_.end()
                    ? name->second
                    : builder_.intern("thread " + std::to_string(info.thread_id));
    const std::uint32_t track = builder_.add_track(info);
    host_tracks_.emplace(global_tid, track);
    return track;
  }

  // GPU streams belong to the process that launched onto them, so launches and the GPU work
  // they started link within one process.
  std::uint32_t gpu_track(std::int64_t global_pid, std::int64_t device, std::int64_t stream) {
    const auto key = std::make_tuple(pid_of(global_pid), device, stream);
    if (const auto found = gpu_tracks_.find(key); found != gpu_tracks_.end()) return found->second;
    TrackInfo info;
    info.kind = TrackKind::kGpuStream;
    info.process = process(pid_of(global_pid));
    info.device = static_cast<std::int32_t>(device);
    info.stream = stream;
    info.name = builder_.intern("stream " + std::to_string(stream));
    const std::uint32_t track = builder_.add_track(info);
    gpu_tracks_.emplace(key, track);
    return track;
  }

  void read_runtime() {
    if (!has("CUPTI_ACTIVITY_KIND_RUNTIME")) return;
    Statement rows(database_,
                   "SELECT start, end, globalTid, correlationId, nameId "
                   "FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                   path_);
    while (rows.step()) {
      SpanRecord span;
      span.start = rows.integer(0);
      span.end = std::max(span.start, rows.integer(1));
      span.name = string(rows.integer(4));
      // cuda* names are the runtime API; cu* names (cuModuleGetLoadingMode) the driver API.
      span.category = builder_.strings().view(span.name).starts_with("cuda") ? Category::kRuntimeApi
                                                                             : Category::kDriverApi;
      span.correlation_id = static_cast<std::uint32_t>(rows.integer(3));
      builder_.add_span(host_track(rows.integer(2)), span);
    }
  }

  void read_nvtx() {
    if (!has("NVTX_EVENTS")) return;
    // Push/pop and start/end ranges are both ranges here; every other row is a mark.
    Statement rows(database_,
                   "SELECT start, end, eventType, text, textId, globalTid FROM NVTX_EVENTS "
                   "WHERE eventType IN (" +
                       std::to_string(kNvtxMark) + ", " + std::to_string(kNvtxPushPopRange) + ", " +
                       std::to_string(kNvtxStartEndRange) + ")",
                   path_);
    while (rows.step()) {
      const StringId name =
          rows.is_null(3) ? string(rows.integer(4)) : builder_.intern(rows.text(3));
      const std::uint32_t track = host_track(rows.integer(5));
      const std::int64_t type = rows.integer(2);
      if (type == kNvtxMark) {
        builder_.add_instant(track, {rows.integer(0), name, Category::kUserAnnotation, {}});
      } else if (rows.is_null(1)) {
        // A range still open when the capture stopped: nsys leaves its end NULL.
        stats_.add("nsys.nvtx_range_without_end");
      } else {
        SpanRecord span;
        span.start = rows.integer(0);
        if (rows.integer(1) < span.start) stats_.add("nsys.nvtx_range_ends_before_start");
        span.end = std::max(span.start, rows.integer(1));
        span.name = name;
        span.category = Category::kUserAnnotation;
        builder_.add_span(track, span);
      }
    }
  }

  void read_kernels() {
    if (!has("CUPTI_ACTIVITY_KIND_KERNEL")) return;
    Statement rows(
        database_,
        "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName, "
        "gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, "
        "staticSharedMemory, dynamicSharedMemory FROM CUPTI_ACTIVITY_KIND_KERNEL",
        path_);
    while (rows.step()) {
      SpanRecord span;
      span.start = rows.integer(0);
      span.end = std::max(span.start, rows.integer(1));
      span.name = string(rows.integer(6));
      span.category = Category::kKernel;
      span.correlation_id = static_cast<std::uint32_t>(rows.integer(4));
      KernelInfo kernel;
      const auto dim = [&](int column) { return static_cast<std::uint32_t>(rows.integer(column)); };
      kernel.grid = {dim(7), dim(8), dim(9)};
      kernel.block = {dim(10), dim(11), dim(12)};
      kernel.registers_per_thread = dim(13);
      kernel.static_shared_bytes = dim(14);
      kernel.dynamic_shared_bytes = dim(15);
      kernel.device = static_cast<std::int32_t>(rows.integer(2));
      kernel.stream = rows.integer(3);
      span.kernel = kernel;
      builder_.add_span(gpu_track(rows.integer(5), rows.integer(2), rows.integer(3)), span);
    }
  }

  void read_copies() {
    if (!has("CUPTI_ACTIVITY_KIND_MEMCPY")) return;
    Statement rows(database_,
                   "SELECT start, end, deviceId, streamId, correlationId, globalPid, bytes, "
                   "copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
                   path_);
    while (rows.step()) {
      CopyInfo copy;
      copy.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, rows.integer(6)));
      copy.direction = direction_of(rows.integer(7));
      copy.source = rows.is_null(8) ? MemoryKind::kUnknown : memory_kind_of(rows.integer(8));
      copy.destination = rows.is_null(9) ? MemoryKind::kUnknown : memory_kind_of(rows.integer(9));
      SpanRecord span;
      span.start = rows.integer(0);
      span.end = std::max(span.start, rows.integer(1));
      span.name = builder_.intern(kineto_copy_name(copy));
      span.category = Category::kMemcpy;
      span.correlation_id = static_cast<std::uint32_t>(rows.integer(4));
      span.copy = copy;
      builder_.add_span(gpu_track(rows.integer(5), rows.integer(2), rows.integer(3)), span);
    }
  }

  void read_memsets() {
    if (!has("CUPTI_ACTIVITY_KIND_MEMSET")) return;
    Statement rows(
        database_,
        "SELECT start, end, deviceId, streamId, correlationId, globalPid, bytes, memKind "
        "FROM CUPTI_ACTIVITY_KIND_MEMSET",
        path_);
    while (rows.step()) {
      CopyInfo memset;
      memset.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, rows.integer(6)));
      memset.destination = rows.is_null(7) ? MemoryKind::kDevice : memory_kind_of(rows.integer(7));
      SpanRecord span;
      span.start = rows.integer(0);
      span.end = std::max(span.start, rows.integer(1));
      span.name = builder_.intern(kineto_memset_name(memset.destination));
      span.category = Category::kMemset;
      span.correlation_id = static_cast<std::uint32_t>(rows.integer(4));
      span.copy = memset;
      builder_.add_span(gpu_track(rows.integer(5), rows.integer(2), rows.integer(3)), span);
    }
  }

  const std::filesystem::path& path_;
  sqlite3* database_ = nullptr;
  std::set<std::string> tables_;
  TraceBuilder builder_;
  ImportStats stats_;  // what could not be used, by reason
  std::unordered_map<std::int64_t, StringId> strings_;
  std::map<std::int64_t, std::string> process_names_;
  std::map<std::int64_t, StringId> thread_names_;
  std::map<std::int64_t, std::uint32_t> processes_;
  std::map<std::int64_t, std::uint32_t> host_tracks_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::uint32_t> gpu_tracks_;
};

}  // namespace

bool looks_like_sqlite(std::span<const std::uint8_t> bytes) {
  static constexpr char kMagic[] = "SQLite format 3";  // followed by a NUL, 16 bytes in all
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

Trace read_nsys_sqlite(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw IoError(path, "no such file");
  try {
    return NsysImporter(path).import();
  } catch (const FormatError&) {
    throw;
  } catch (const IoError&) {
    throw;
  } catch (const TraceError& error) {
    // The model refused a value of the export (a time beyond +-2^62 ns, an end before its start).
    throw FormatError(path, 0, error.what());
  } catch (const std::bad_alloc&) {
    // SQLite gives no byte offset of the row it read.
    throw out_of_memory_reading(path, 0);
  }
}

}  // namespace tscope::trace

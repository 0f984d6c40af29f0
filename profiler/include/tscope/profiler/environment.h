#pragma once
// How `tscope record` asks the programs it runs to record: environment variables naming the
// output file and the process meant to write it (a child's own children must not write there).

#include <string_view>

namespace tscope::profiler {

inline constexpr std::string_view kRecordOutputVariable = "TSCOPE_RECORD_OUTPUT";
inline constexpr std::string_view kRecordPidVariable = "TSCOPE_RECORD_PID";
// `tscope record --buffer-mb` and `--flush-ms`: SessionOptions' buffer_bytes_per_thread and
// flush_interval; a value that does not parse as a positive integer leaves the default.
inline constexpr std::string_view kRecordBufferBytesVariable = "TSCOPE_RECORD_BUFFER_BYTES";
inline constexpr std::string_view kRecordFlushMsVariable = "TSCOPE_RECORD_FLUSH_MS";

// Starts, at most once per process, the session the environment asks for, and makes it finish
// its file at exit and on SIGINT/SIGTERM (unless the program handles those itself). Returns true
// when that session runs. Throws ProfilerError or trace::IoError when it cannot start.
bool start_environment_session();

}  // namespace tscope::profiler

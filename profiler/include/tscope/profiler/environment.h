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
// `tscope record`'s capture window (SessionOptions::window): capture not before this
// CLOCK_MONOTONIC time in ns (the program's start plus --delay), for this many ns (--duration),
// steps "A:B" (--steps), from the first NVTX range of this name until it closes
// (--capture-range), toggled by each byte that can be read from this descriptor (fed by SIGUSR1
// to tscope record), and starting paused when the last is 1 (--start-paused).
inline constexpr std::string_view kRecordNotBeforeVariable = "TSCOPE_RECORD_NOT_BEFORE_NS";
inline constexpr std::string_view kRecordDurationVariable = "TSCOPE_RECORD_DURATION_NS";
inline constexpr std::string_view kRecordStepsVariable = "TSCOPE_RECORD_STEPS";
inline constexpr std::string_view kRecordCaptureRangeVariable = "TSCOPE_RECORD_CAPTURE_RANGE";
inline constexpr std::string_view kRecordToggleFdVariable = "TSCOPE_RECORD_TOGGLE_FD";
inline constexpr std::string_view kRecordStartPausedVariable = "TSCOPE_RECORD_START_PAUSED";
// Every variable above, which a recording's child environment replaces.
inline constexpr std::string_view kRecordVariables[] = {
    kRecordOutputVariable,  kRecordPidVariable,          kRecordBufferBytesVariable,
    kRecordFlushMsVariable, kRecordNotBeforeVariable,    kRecordDurationVariable,
    kRecordStepsVariable,   kRecordCaptureRangeVariable, kRecordToggleFdVariable};

// Starts, at most once per process, the session the environment asks for, and makes it finish
// its file at exit and on SIGINT/SIGTERM (unless the program handles those itself). Returns true
// when that session runs. Throws ProfilerError or trace::IoError when it cannot start.
bool start_environment_session();

}  // namespace tscope::profiler

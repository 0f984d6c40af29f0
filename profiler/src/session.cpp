#include "tscope/profiler/session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "collector.h"
#include "cupti/gpu_session_writer.h"
#include "process_counters.h"
#include "process_metadata.h"
#include "thread_buffers.h"
#include "tscope/profiler/record.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::profiler {
namespace {

// Bytes written to the writer thread's wake pipe.
constexpr char kStopRequest = 's';
constexpr char kFinishedNotice = 'f';

std::atomic<std::uint32_t> last_generation{0};

class Pipe {
 public:
  Pipe() {
    if (pipe2(descriptors_, O_CLOEXEC) != 0) {
      throw ProfilerError(std::string("cannot create the session's wake pipe: ") +
                          std::strerror(errno));
    }
  }
  ~Pipe() {
    close(descriptors_[0]);
    close(descriptors_[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  int read_end() const { return descriptors_[0]; }
  // Async-signal-safe.
  void send(char byte) const {
    while (write(descriptors_[1], &byte, 1) < 0 && errno == EINTR) {
    }
  }

 private:
  int descriptors_[2] = {-1, -1};
};

// Async-signal-safe: waits until `descriptor` is readable or `timeout_ms` passed.
bool wait_readable(int descriptor, int timeout_ms) {
  pollfd request{descriptor, POLLIN, 0};
  for (;;) {
    const int ready = poll(&request, 1, timeout_ms);
    if (ready >= 0) return ready > 0;
    if (errno != EINTR) return false;
  }
}

}  // namespace

// Owns the background thread of one running session and everything it writes with.
class SessionWriter {
 public:
  explicit SessionWriter(const SessionOptions& options)
      : options_(options),
        sink_(options.output, trace::TscWriterOptions{.source_format = "tscope-profiler"}),
        generation_(next_generation()),
        collector_(sink_, generation_, clock_),
        gpu_(sink_, collector_.process()) {
    sink_.set_metadata_value("recorder", "tscope profiler");
    sink_.set_metadata_value("flush_interval_ms", std::to_string(options.flush_interval.count()));
    sink_.set_metadata_value("buffer_bytes_per_thread",
                             std::to_string(options.buffer_bytes_per_thread));
    ThreadBufferRegistry::instance().set_capacity_for_new_buffers(options.buffer_bytes_per_thread);
    copy_process_metadata();
    if (options_.sample_process_counters) sample_counters();
    detail::active_generation.store(generation_, std::memory_order_release);
    thread_ = std::thread([this] { run(); });
  }
  ~SessionWriter() {
    if (thread_.joinable()) {
      wake_.send(kStopRequest);
      thread_.join();
    }
  }
  SessionWriter(const SessionWriter&) = delete;
  SessionWriter& operator=(const SessionWriter&) = delete;

  SessionSummary stop() {
    if (thread_.joinable()) {
      wake_.send(kStopRequest);
      thread_.join();
    }
    if (failure_) std::rethrow_exception(failure_);
    return {collector_.events() + gpu_.events(), collector_.dropped_events(),
            sink_.bytes_written()};
  }

  // Async-signal-safe.
  void finish_from_signal_handler(std::chrono::milliseconds timeout) {
    wake_.send(kStopRequest);
    wait_readable(finished_.read_end(), static_cast<int>(timeout.count()));
  }

 private:
  static std::uint32_t next_generation() {
    // 0 means "no session", and records carry the low byte, which must differ from the last one.
    std::uint32_t generation = last_generation.fetch_add(1) + 1;
    if ((generation & 0xff) == 0) generation = last_generation.fetch_add(1) + 1;
    return generation;
  }

  void sample_counters() {
    const ProcessSample sample = counters_.sample();
    collector_.add_counter_sample(kRssCounter, sample.time, static_cast<double>(sample.rss_bytes));
    if (sample.cpu_percent)
      collector_.add_counter_sample(kCpuCounter, sample.time, *sample.cpu_percent);
  }

  // The values set through set_trace_metadata, when any changed since the last copy.
  void copy_process_metadata() {
    if (process_metadata_version() == metadata_version_) return;
    const ProcessMetadata metadata = process_metadata();
    for (const auto& [key, value] : metadata.values)
      sink_.set_metadata_value(key, value);
    metadata_version_ = metadata.version;
  }

  void cycle() {
    clock_.resync();
    collector_.drain();
    gpu_.drain();
    if (options_.sample_process_counters) sample_counters();
    copy_process_metadata();
    sink_.flush();
  }

  void run() {
    pthread_setname_np(pthread_self(), "tscope writer");
    // A termination signal must reach a program thread, whose handler waits for this one. A file
    // grown past RLIMIT_FSIZE must fail this thread's write with EFBIG (and end the recording)
    // rather than kill the program with SIGXFSZ.
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
    try {
      while (!wait_readable(wake_.read_end(), static_cast<int>(options_.flush_interval.count()))) {
        cycle();
      }
    } catch (...) {
      failure_ = std::current_exception();
    }
    detail::active_generation.store(0, std::memory_order_release);
    try {
      clock_.resync();
      gpu_.finish();
      collector_.finish(monotonic_ns());
      if (options_.sample_process_counters) sample_counters();
      copy_process_metadata();
      sink_.close();
    } catch (...) {
      if (!failure_) failure_ = std::current_exception();
    }
    finished_.send(kFinishedNotice);
  }

  SessionOptions options_;
  trace::TscWriter sink_;
  TickClock clock_;
  std::uint32_t generation_;
  Collector collector_;
  GpuSessionWriter gpu_;
  ProcessCounters counters_;
  Pipe wake_;
  Pipe finished_;
  std::exception_ptr failure_;
  std::uint64_t metadata_version_ = 0;
  std::thread thread_;
};

namespace {

// The running session's writer, for finish_from_signal_handler; the mutex serialises starts and
// stops so that two sessions never interleave.
std::mutex running_mutex;
std::atomic<SessionWriter*> running_writer{nullptr};

}  // namespace

Session::Session(SessionOptions options) : options_(std::move(options)) {}

Session::~Session() {
  try {
    stop();
  } catch (...) {
    // Destructors must not throw; stop() reports the same error to callers who ask.
  }
}

void Session::start() {
  if (writer_) throw ProfilerError("the session is already running");
  if (options_.flush_interval.count() <= 0) {
    throw ProfilerError("session flush interval must be positive");
  }
  const std::lock_guard lock(running_mutex);
  if (running_writer.load() != nullptr) {
    throw ProfilerError("another profiler session is already running in this process");
  }
  writer_ = std::make_unique<SessionWriter>(options_);
  running_writer.store(writer_.get());
}

SessionSummary Session::stop() {
  if (!writer_) return {};
  const std::lock_guard lock(running_mutex);
  running_writer.store(nullptr);
  const std::unique_ptr<SessionWriter> writer = std::move(writer_);
  return writer->stop();
}

bool Session::running() const {
  return writer_ != nullptr;
}

void Session::finish_from_signal_handler(std::chrono::milliseconds timeout) {
  if (SessionWriter* writer = running_writer.load(); writer != nullptr) {
    writer->finish_from_signal_handler(timeout);
  }
}

}  // namespace tscope::profiler

#include "tscope/profiler/session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "capture_gate.h"
#include "collector.h"
#include "cupti/gpu_session_writer.h"
#include "process_counters.h"
#include "process_metadata.h"
#include "thread_buffers.h"
#include "tscope/profiler/record.h"
#include "tscope/trace/capture_window.h"
#include "tscope/trace/host_metadata.h"
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

// The signals the writer thread blocks. A termination signal must reach a program thread, whose
// handler waits for the writer. A file grown past RLIMIT_FSIZE must fail the writer's write with
// EFBIG (and end the recording) rather than kill the program with SIGXFSZ.
const sigset_t& writer_signals() {
  static const sigset_t blocked = [] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGXFSZ);
    return set;
  }();
  return blocked;
}

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
    sink_.set_metadata_value(trace::kHostCpusKey, std::to_string(usable_cpus()));
    ThreadBufferRegistry::instance().set_capacity_for_new_buffers(options.buffer_bytes_per_thread);
    copy_process_metadata();
    CaptureGate::instance().begin(options.window, generation_, &next_generation, monotonic_ns());
    sample_counters();
    // The thread is born with the signals of writer_signals() blocked: one delivered before it
    // could block them itself would run the program's finishing handler on this thread, which
    // would then wait for itself.
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &writer_signals(), &previous);
    thread_ = std::thread([this] { run(); });
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
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

  // The CPUs this process may run on (its affinity mask, which a container's or taskset's limit
  // narrows), which the what-if replay shares among the threads it sees busy.
  static unsigned usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
      return static_cast<unsigned>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
  }

  // Samples only while capture is on: outside the window nothing is recorded.
  void sample_counters() {
    if (!options_.sample_process_counters || !CaptureGate::instance().capturing()) return;
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
    sample_counters();
    copy_process_metadata();
    sink_.flush();
  }

  // Reads the toggle bytes that arrived and applies each; false once the other end closed.
  bool read_toggles(int descriptor) {
    char bytes[64];
    const ssize_t got = read(descriptor, bytes, sizeof bytes);
    if (got <= 0) return got < 0 && errno == EINTR;
    for (ssize_t i = 0; i < got; ++i) {
      const std::uint32_t opened = CaptureGate::instance().toggle(monotonic_ns());
      if (opened != 0) collector_.accept_generation(opened);
    }
    return true;
  }

  // Until a stop request: drains every flush interval, and wakes for the capture window's
  // deadlines (delay, duration) and toggles.
  void loop() {
    const trace::TimeNs interval =
        std::chrono::duration_cast<std::chrono::nanoseconds>(options_.flush_interval).count();
    trace::TimeNs next_cycle = monotonic_ns() + interval;
    int toggles = options_.window.toggle_descriptor;
    for (;;) {
      const trace::TimeNs now = monotonic_ns();
      trace::TimeNs wake_at = next_cycle;
      if (const auto deadline = CaptureGate::instance().next_deadline())
        wake_at = std::min(wake_at, *deadline);
      const trace::TimeNs wait = std::max<trace::TimeNs>(wake_at - now, 0);
      const timespec timeout{static_cast<time_t>(wait / 1'000'000'000),
                             static_cast<long>(wait % 1'000'000'000)};
      pollfd requests[2] = {{wake_.read_end(), POLLIN, 0}, {toggles, POLLIN, 0}};
      const int ready = ppoll(requests, toggles >= 0 ? 2 : 1, &timeout, nullptr);
      if (ready < 0 && errno != EINTR) return;
      if (ready > 0 && (requests[0].revents & POLLIN) != 0) return;
      if (ready > 0 && toggles >= 0 && requests[1].revents != 0 && !read_toggles(toggles))
        toggles = -1;
      const std::uint32_t opened = CaptureGate::instance().advance(monotonic_ns());
      if (opened != 0) collector_.accept_generation(opened);
      // Ranges open when capture closed (on any thread) end there: their ends are not recorded.
      if (const auto closed = CaptureGate::instance().closed_at(); closed && closed != ended_at_) {
        collector_.close_capture(*closed);
        ended_at_ = closed;
      }
      if (monotonic_ns() >= next_cycle) {
        cycle();
        next_cycle += interval;
        next_cycle = std::max(next_cycle, monotonic_ns());
      }
    }
  }

  void run() {
    pthread_setname_np(pthread_self(), "tscope writer");
    keeping_first_failure([this] { loop(); });
    const trace::TimeNs stop = monotonic_ns();
    // The last sample, while capture is still on. It writes through the sink, which a failed
    // write (a full disk) has closed: that error must not escape this thread.
    keeping_first_failure([this] { sample_counters(); });
    const std::optional<trace::CaptureWindow> window = CaptureGate::instance().end(stop);
    detail::active_generation.store(0, std::memory_order_release);
    keeping_first_failure([&] {
      clock_.resync();
      gpu_.finish();
      // Ranges still open when the window closed end with it, and what began after it is left
      // out, also when the program stopped before this thread woke to see the close.
      if (window) collector_.close_capture(window->end);
      collector_.finish(window ? window->end : stop);
      if (window) {
        sink_.set_metadata_value(trace::kCaptureBeginKey, std::to_string(window->begin));
        sink_.set_metadata_value(trace::kCaptureEndKey, std::to_string(window->end));
      }
      copy_process_metadata();
      sink_.close();
    });
    finished_.send(kFinishedNotice);
  }

  // Runs `step` and keeps the first exception the writer thread threw, which stop() reports;
  // later ones (a sink already closed by that failure) only follow from it.
  template <typename Step>
  void keeping_first_failure(Step&& step) {
    try {
      step();
    } catch (...) {
      if (!failure_) failure_ = std::current_exception();
    }
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
  std::optional<trace::TimeNs> ended_at_;  // the last close of capture whose ranges were ended
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
  // Destructors must not throw; stop() reports the same error to callers who ask.
  try {
    stop();
  } catch (...) {  // NOLINT(bugprone-empty-catch): the error is stop()'s to report, see above
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

#include "distributed/mpi_comm_thread.h"

#include <mpi.h>
#include <pthread.h>

#include <string>

#include "tscope/engine/distributed/errors.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::distributed {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw DistributedError(std::string(call) + " failed with MPI error " + std::to_string(code) +
                         ": " + std::string(text, static_cast<std::size_t>(length)));
}

MpiCommThread& MpiCommThread::instance() {
  // Destroyed at exit, after main returns: MPI is finalised then.
  static MpiCommThread thread;
  return thread;
}

MpiCommThread::MpiCommThread() {
  thread_ = std::thread([this] { serve(); });
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return initialised_ || init_failure_; });
  if (init_failure_) {
    stopping_ = true;
    lock.unlock();
    changed_.notify_all();
    thread_.join();
    std::rethrow_exception(init_failure_);
  }
}

MpiCommThread::~MpiCommThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MpiCommThread::enqueue(std::function<void()> job) {
  {
    const std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  changed_.notify_all();
}

void MpiCommThread::run(const std::function<void()>& job) {
  std::mutex done_mutex;
  std::condition_variable done_changed;
  bool done = false;
  std::exception_ptr failure;
  enqueue([&] {
    try {
      job();
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard lock(done_mutex);
    done = true;
    done_changed.notify_all();
  });
  std::unique_lock lock(done_mutex);
  done_changed.wait(lock, [&] { return done; });
  if (failure) std::rethrow_exception(failure);
}

void MpiCommThread::serve() {
  // The name a trace gives this thread's track (pthread's, read when it first records).
  pthread_setname_np(pthread_self(), "mpi comm");
  profiler::name_current_thread("mpi comm");
  try {
    int provided = MPI_THREAD_SINGLE;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
              "MPI_Init_thread");
    // Only this thread calls MPI, so FUNNELED suffices; SERIALIZED leaves room for more.
    if (provided < MPI_THREAD_FUNNELED) {
      throw DistributedError("MPI_Init_thread gave thread level " + std::to_string(provided) +
                             ", below MPI_THREAD_FUNNELED");
    }
    // Failures come back as codes that check_mpi turns into exceptions, not as aborts.
    check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
              "MPI_Comm_set_errhandler");
    const std::lock_guard lock(mutex_);
    initialised_ = true;
  } catch (...) {
    const std::lock_guard lock(mutex_);
    init_failure_ = std::current_exception();
  }
  changed_.notify_all();
  if (init_failure_) return;

  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) break;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
  MPI_Finalize();
}

}  // namespace tscope::engine::distributed

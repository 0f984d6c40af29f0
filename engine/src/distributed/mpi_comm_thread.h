#pragma once
// The process's one MPI thread, as in PyTorch's ProcessGroupMPI: it initialises MPI
// (MPI_THREAD_SERIALIZED), runs every MPI call in the order they were queued, and finalises MPI
// at exit. Callers queue work and go on computing, so communication overlaps their compute.

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace tscope::engine::distributed {

class MpiCommThread {
 public:
  // Started on first use, with MPI initialised; throws DistributedError when MPI cannot start.
  static MpiCommThread& instance();
  ~MpiCommThread();
  MpiCommThread(const MpiCommThread&) = delete;
  MpiCommThread& operator=(const MpiCommThread&) = delete;

  // Runs `job` on the thread after everything queued before it.
  void enqueue(std::function<void()> job);
  // Runs `job` on the thread and waits for it; rethrows what it threw.
  void run(const std::function<void()>& job);

 private:
  MpiCommThread();
  void serve();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  bool initialised_ = false;
  std::exception_ptr init_failure_;
  std::thread thread_;
};

// Throws DistributedError naming `call` and MPI's error string unless `code` is MPI_SUCCESS.
void check_mpi(int code, const char* call);

}  // namespace tscope::engine::distributed

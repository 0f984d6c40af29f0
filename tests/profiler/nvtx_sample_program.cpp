// A program that knows nothing of tensorscope: it uses NVTX the way an application or a library
// does, so the tests can check what `tscope record` captures from it. The mode is the first
// argument:
//   run [CODE]  ranges, marks, a domain with a named category and a registered string, a range
//               that ends on another thread and two named threads; then exits with CODE
//   wait        opens the range "waiting", prints "ready" and sleeps until a signal ends it
//   crash       records the range "before crash", waits for it to be flushed, then SIGKILLs itself
//   steps N MS [PREFIX]  N training steps as a PyTorch program shows them through NVTX: the
//               ranges "ProfilerStep#1" to "ProfilerStep#N" (or PREFIX followed by the number,
//               "step " for a program naming them so), each around a "forward" range of MS ms;
//               prints each step's name as it starts

#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

std::uint32_t thread_id() {
  return static_cast<std::uint32_t>(syscall(SYS_gettid));
}

int run(int exit_code) {
  nvtxNameOsThreadA(thread_id(), "sample main");
  nvtxRangePushA("outer");
  nvtxRangePushA("inner");
  nvtxMarkA("checkpoint");
  nvtxRangePop();
  nvtxRangePop();

  nvtxDomainHandle_t domain = nvtxDomainCreateA("sample domain");
  nvtxDomainNameCategoryA(domain, 7, "io");
  nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered name");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.category = 7;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = registered;
  attributes.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  attributes.payload.llValue = 42;
  nvtxDomainRangePushEx(domain, &attributes);
  nvtxDomainRangePop(domain);

  const nvtxRangeId_t across = nvtxRangeStartA("across threads");
  std::thread worker([across] {
    nvtxNameOsThreadA(thread_id(), "sample worker");
    nvtxRangePushA("worker range");
    nvtxRangePop();
    nvtxRangeEnd(across);
  });
  worker.join();
  return exit_code;
}

int wait_for_signal() {
  nvtxRangePushA("waiting");
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;)
    pause();
}

int crash() {
  nvtxRangePushA("before crash");
  nvtxRangePop();
  // Several writer flush intervals, so the range is in the file before the kill.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  std::raise(SIGKILL);
  return 1;
}

int steps(int count, int milliseconds, const char* prefix) {
  nvtxRangePushA("setup");
  nvtxRangePop();
  for (int step = 1; step <= count; ++step) {
    const std::string name = prefix + std::to_string(step);
    nvtxRangePushA(name.c_str());
    std::printf("%s\n", name.c_str());
    std::fflush(stdout);
    nvtxRangePushA("forward");
    std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
    nvtxRangePop();
    nvtxRangePop();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "run";
  if (std::strcmp(mode, "run") == 0) return run(argc > 2 ? std::atoi(argv[2]) : 0);
  if (std::strcmp(mode, "wait") == 0) return wait_for_signal();
  if (std::strcmp(mode, "crash") == 0) return crash();
  if (std::strcmp(mode, "steps") == 0 && argc > 3)
    return steps(std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? argv[4] : "ProfilerStep#");
  std::fprintf(stderr, "usage: %s [run [CODE] | wait | crash | steps N MS [PREFIX]]\n", argv[0]);
  return 2;
}

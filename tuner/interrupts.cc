// The interrupt handlers of the tuner and the service (see interrupts.h).
#include "tuner/interrupts.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace sweep {

namespace {

std::atomic<int> g_signals{0};

void OnSignal(int) {
  if (g_signals.fetch_add(1) >= 1) {
    const char msg[] = "\nsweep: second interrupt, exiting now (committed results are safe)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

}  // namespace

void CatchInterrupts() {
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool Interrupted() { return g_signals.load() > 0; }

}  // namespace sweep

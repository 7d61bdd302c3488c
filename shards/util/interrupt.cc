#include "shards/util/interrupt.h"

#include <atomic>
#include <csignal>

namespace sg {
namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) { g_interrupted.store(true, std::memory_order_relaxed); }
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGHUP, on_signal);  // a closed terminal: clean up like SIGTERM
  std::signal(SIGQUIT, on_signal);
}

bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }
void request_interrupt() { g_interrupted.store(true, std::memory_order_relaxed); }
void clear_interrupt() { g_interrupted.store(false, std::memory_order_relaxed); }

}  // namespace sg

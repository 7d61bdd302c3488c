#include "base/interrupt.h"

#include <atomic>
#include <csignal>

namespace sg {
namespace {
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_has_poll{false};
std::function<bool()> g_poll;  // read only while g_has_poll
extern "C" void on_signal(int) { g_interrupted.store(true, std::memory_order_relaxed); }
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGHUP, on_signal);  // a closed terminal: clean up like SIGTERM
  std::signal(SIGQUIT, on_signal);
}

bool interrupt_requested() {
  if (g_interrupted.load(std::memory_order_relaxed)) return true;
  return g_has_poll.load(std::memory_order_acquire) && g_poll();
}
void request_interrupt() { g_interrupted.store(true, std::memory_order_relaxed); }
void clear_interrupt() { g_interrupted.store(false, std::memory_order_relaxed); }

void set_stop_poll(std::function<bool()> poll) {
  g_has_poll.store(false, std::memory_order_release);
  g_poll = std::move(poll);
  if (g_poll) g_has_poll.store(true, std::memory_order_release);
}

}  // namespace sg

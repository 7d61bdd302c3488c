// A process-wide "stop" request (SIGINT/SIGTERM/SIGHUP/SIGQUIT, or a
// library caller's stop poll): long loops poll it and return
// Status::Interrupted so that cleanup runs on the normal error path.
#pragma once

#include <functional>

namespace sg {

void install_interrupt_handlers();
bool interrupt_requested();
void request_interrupt();  // for tests
void clear_interrupt();    // for tests

// While set, interrupt_requested() also asks `poll` (from any thread; it
// must be cheap and thread-safe). Set and cleared around one call, not
// while work runs; a null poll clears it.
void set_stop_poll(std::function<bool()> poll);

// Sets a stop poll for its lifetime.
class ScopedStopPoll {
 public:
  explicit ScopedStopPoll(std::function<bool()> poll) : active_(static_cast<bool>(poll)) {
    if (active_) set_stop_poll(std::move(poll));
  }
  ~ScopedStopPoll() {
    if (active_) set_stop_poll(nullptr);
  }
  ScopedStopPoll(const ScopedStopPoll&) = delete;
  ScopedStopPoll& operator=(const ScopedStopPoll&) = delete;

 private:
  bool active_;
};

}  // namespace sg

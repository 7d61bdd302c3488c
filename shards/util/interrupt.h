// A process-wide "stop" request (SIGINT/SIGTERM/SIGHUP/SIGQUIT): long loops poll it and
// return Status::Interrupted so that cleanup runs on the normal error path.
#pragma once

namespace sg {

void install_interrupt_handlers();
bool interrupt_requested();
void request_interrupt();  // for tests
void clear_interrupt();    // for tests

}  // namespace sg

// Ingest's progress line (phase, edges/s, ETA), for a terminal or a
// library caller, and the phase times for its summary line.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sg {

class IngestProgress {
 public:
  // Gets the status line now and then ("" ends it); null: none.
  void set_sink(std::function<void(const std::string&)> sink) { sink_ = std::move(sink); }
  void set_hook(std::function<void(const std::string&)> hook) { hook_ = std::move(hook); }
  // Ends the previous phase; `total_units` (e.g. input bytes) gives the ETA,
  // 0 if unknown.
  void begin_phase(const std::string& name, uint64_t total_units);
  // `edges` more edges done; `units_done` so far in this phase.
  void advance(uint64_t edges, uint64_t units_done);
  void end();
  // Adds a figure to the open phase's parentheses (e.g. "spilled 0.91 GB").
  void add_detail(const std::string& text);
  // "route 1.2 s (1.8 cores, peak 40 MiB, spilled 0.91 GB), sort 0.8 s (...), ...":
  // cores = the process's CPU time (user and system, all threads) over the
  // phase's wall time.
  std::string summary() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Phase {
    std::string name;
    double seconds = 0;
    double cpu_seconds = 0;       // the process's, user and system
    uint64_t peak_rss_bytes = 0;  // VmHWM when the phase ended
    std::string details;          // ", spilled 0.91 GB"
  };
  std::function<void(const std::string&)> sink_;
  std::function<void(const std::string&)> hook_;
  bool open_ = false;
  std::vector<Phase> phases_;
  Clock::time_point phase_start_{}, last_print_{};
  double phase_cpu_start_ = 0;
  uint64_t total_units_ = 0, edges_ = 0;
};

}  // namespace sg

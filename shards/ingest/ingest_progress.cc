#include "shards/ingest/ingest_progress.h"

#include <cstdio>

#include "base/process_memory.h"

namespace sg {

void IngestProgress::begin_phase(const std::string& name, uint64_t total_units) {
  end();
  open_ = true;
  phases_.push_back(Phase{name, 0, 0, 0, {}});
  phase_start_ = last_print_ = Clock::now();
  phase_cpu_start_ = process_cpu_seconds();
  total_units_ = total_units;
  edges_ = 0;
  if (sink_) sink_("ingest: " + name);
  if (hook_) hook_(name);
}

void IngestProgress::advance(uint64_t edges, uint64_t units_done) {
  edges_ += edges;
  if (!sink_) return;
  const Clock::time_point now = Clock::now();
  if (now - last_print_ < std::chrono::milliseconds(250)) return;
  last_print_ = now;
  const double seconds = std::chrono::duration<double>(now - phase_start_).count();
  const double rate = seconds > 0 ? edges_ / seconds : 0;
  char line[256];
  int length = std::snprintf(line, sizeof(line), "ingest: %s, %.1f M edges, %.1f M edges/s",
                             phases_.back().name.c_str(), edges_ / 1e6, rate / 1e6);
  if (total_units_ > 0 && units_done > 0 && units_done <= total_units_ && length > 0 &&
      static_cast<size_t>(length) < sizeof(line)) {
    const double eta = seconds * static_cast<double>(total_units_ - units_done) / static_cast<double>(units_done);
    std::snprintf(line + length, sizeof(line) - static_cast<size_t>(length), ", %.0f%%, ETA %.0f s",
                  100.0 * units_done / total_units_, eta);
  }
  sink_(line);
}

void IngestProgress::end() {
  if (!open_) return;
  open_ = false;
  if (sink_) sink_("");
  phases_.back().seconds = std::chrono::duration<double>(Clock::now() - phase_start_).count();
  phases_.back().cpu_seconds = process_cpu_seconds() - phase_cpu_start_;
  phases_.back().peak_rss_bytes = peak_rss_bytes();
}

void IngestProgress::add_detail(const std::string& text) {
  if (open_) phases_.back().details += ", " + text;
}

std::string IngestProgress::summary() const {
  std::string text;
  for (const Phase& p : phases_) {
    char part[160];
    std::snprintf(part, sizeof(part), "%s%s %.2f s (%.1f cores, peak %llu MiB", text.empty() ? "" : ", ",
                  p.name.c_str(), p.seconds, p.seconds > 0 ? p.cpu_seconds / p.seconds : 0.0,
                  static_cast<unsigned long long>(p.peak_rss_bytes >> 20));
    text += part + p.details + ")";
  }
  return text;
}

}  // namespace sg

#include "core/run_log.h"

#include <cstdio>
#include <utility>

namespace sg {

void RunLog::open(std::string label, std::function<void(const std::string&)> progress, bool quiet) {
  label_ = std::move(label);
  progress_ = std::move(progress);
  quiet_ = quiet;
}

void RunLog::note(const std::string& text) {
  notices_ += text + "\n";
  if (!quiet_) std::fprintf(stderr, "shardgraph: %s\n", text.c_str());
}

void RunLog::set_iteration(int iteration) {
  iteration_ = iteration;
  iteration_starts_.push_back(std::chrono::steady_clock::now());
}

std::vector<double> RunLog::iteration_seconds() const {
  std::vector<double> seconds;
  for (size_t i = 0; i + 1 < iteration_starts_.size(); ++i) {
    seconds.push_back(std::chrono::duration<double>(iteration_starts_[i + 1] - iteration_starts_[i]).count());
  }
  return seconds;
}

void RunLog::add(StepStats step) {
  bytes_read_ += step.bytes_read();
  steps_.push_back(std::move(step));
  if (progress_) report_progress(steps_.back());
}

void RunLog::adopt_reversed(RunLog* other) {
  for (StepStats& step : other->steps_) {
    step.reversed = true;
    step.iteration = iteration_;
    const uint64_t bytes = step.bytes_read();
    bytes_read_ += bytes;
    other->bytes_read_ -= bytes;
    steps_.push_back(std::move(step));
  }
  other->steps_.clear();
}

RunTotals RunLog::totals() const {
  RunTotals t = sum_steps(steps_);
  t.add(folded_);
  return t;
}

void RunLog::fold_middle() {
  if (steps_.size() < kMaxKeptSteps) return;
  const auto begin = steps_.begin() + kEndSteps;
  const auto end = steps_.end() - kEndSteps;
  for (auto it = begin; it != end; ++it) folded_.add(*it);
  folded_steps_ += static_cast<uint64_t>(end - begin);
  steps_.erase(begin, end);
}

void RunLog::merge_since(size_t first) {
  if (steps_.size() > first + 1) merge_parts(first);
  fold_middle();
}

void RunLog::merge_parts(size_t first) {
  StepStats merged = steps_[first];
  for (size_t i = first + 1; i < steps_.size(); ++i) {
    const StepStats& part = steps_[i];
    merged.chunks += part.chunks;
    merged.edges_decoded += part.edges_decoded;
    for (size_t d = 0; d < merged.device_bytes.size() && d < part.device_bytes.size(); ++d) {
      merged.device_bytes[d] += part.device_bytes[d];
      merged.device_requests[d] += part.device_requests[d];
    }
    merged.io_wait_seconds += part.io_wait_seconds;
    merged.decode_seconds += part.decode_seconds;
    merged.compute_seconds += part.compute_seconds;
    merged.cached_chunks += part.cached_chunks;
    merged.reread_chunks += part.reread_chunks;
    merged.decoded_cache_chunks += part.decoded_cache_chunks;
    merged.decoded_cache_bytes += part.decoded_cache_bytes;
  }
  steps_.resize(first);
  steps_.push_back(std::move(merged));
}

void RunLog::record_plan(const StepPlan& plan, StepStats* step) {
  step->intervals_skipped = plan.intervals_skipped;
  step->predicted_seconds = plan.predicted.seconds;
  step->predicted_io_seconds = plan.predicted.io_seconds;
  step->predicted_cpu_seconds = plan.predicted.cpu_seconds;
  step->predicted_bytes = plan.predicted.bytes;
  step->predicted_requests = plan.predicted.requests;
  step->pull_seconds = plan.pull_seconds;
  step->push_seconds = plan.push_seconds;
  step->decisions = plan.intervals;
  step->selective_intervals = 0;
  for (const IntervalDecision& d : plan.intervals) step->selective_intervals += d.selective;
  step->useful_bytes = plan.useful_bytes;
  step->read_ahead_bytes = plan.read_ahead_bytes;
}

void RunLog::report_progress(const StepStats& step) const {
  char line[256];
  std::snprintf(line, sizeof(line), "[%s] iteration %d  %s  active %llu  read %.1f MB  %.0f MB/s   ", label_.c_str(),
                step.iteration, step.mode.c_str(), static_cast<unsigned long long>(step.active_vertices),
                static_cast<double>(bytes_read_) / 1e6,
                step.seconds > 0 ? static_cast<double>(step.bytes_read()) / 1e6 / step.seconds : 0.0);
  progress_(line);
}

}  // namespace sg

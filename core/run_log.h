// The record of a run on one engine: each step's statistics (run_stats.h),
// the iterations' wall times, and the notices the run gave (a budget
// exceeded, a preset used instead of a calibrated profile, ...).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/run_stats.h"
#include "scheduler/step_plan.h"

namespace sg {

class RunLog {
 public:
  // `label` prefixes the progress line `progress` gets after each step
  // (null: none); `quiet`: notices are kept, not printed.
  void open(std::string label, std::function<void(const std::string&)> progress, bool quiet);

  // A notice: kept for --stats and printed on stderr unless quiet.
  void note(const std::string& text);
  const std::string& notices() const { return notices_; }

  // Marks the start of an iteration (steps are tagged with it, and its wall
  // time runs until the next mark).
  void set_iteration(int iteration);
  int iteration() const { return iteration_; }
  // Marks the end of the last iteration (the app returned).
  void end_iterations() { iteration_starts_.push_back(std::chrono::steady_clock::now()); }
  // Wall seconds of each iteration between the marks.
  std::vector<double> iteration_seconds() const;

  // The steps kept in detail. The log is bounded: once it holds
  // kMaxKeptSteps, every step but the first and the last kEndSteps is
  // folded into totals (a BFS along a path of 200,000 vertices took 630
  // bytes a step, 126 MB, before).
  static constexpr size_t kMaxKeptSteps = 8192;
  static constexpr size_t kEndSteps = 1024;
  const std::vector<StepStats>& steps() const { return steps_; }
  std::vector<StepStats>& steps() { return steps_; }
  // Steps recorded, kept or folded (a clock: it only grows, but for parts
  // merged into their step).
  uint64_t step_count() const { return folded_steps_ + steps_.size(); }
  uint64_t folded_steps() const { return folded_steps_; }
  // Over every step, kept and folded.
  RunTotals totals() const;
  // Records a step (or a part of one, see merge_since) and reports it.
  void add(StepStats step);
  // Moves `other`'s kept steps to the end of this log, marked reversed and
  // tagged with this log's iteration (a distributed run's reverse engine).
  void adopt_reversed(RunLog* other);
  // The parts recorded since `first` merged into one step, which ends it
  // (the log is folded here, between steps, when it is full).
  void merge_since(size_t first);
  // The step's plan as a whole into `step`.
  static void record_plan(const StepPlan& plan, StepStats* step);

 private:
  void report_progress(const StepStats& step) const;
  void merge_parts(size_t first);
  void fold_middle();

  std::string label_ = "run";
  std::function<void(const std::string&)> progress_;
  bool quiet_ = false;
  int iteration_ = 0;
  std::vector<std::chrono::steady_clock::time_point> iteration_starts_;
  std::vector<StepStats> steps_;
  uint64_t folded_steps_ = 0;
  RunTotals folded_;
  // Bytes read by every step recorded here, for the progress line: a
  // running total, since summing the kept steps cost up to kMaxKeptSteps
  // additions a step. Merging and folding steps keep it.
  uint64_t bytes_read_ = 0;
  std::string notices_;
};

}  // namespace sg

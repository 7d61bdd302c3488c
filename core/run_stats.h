// Statistics of one edge_map step: what was read from where, and where the
// time went. `--stats FILE.json` writes them for a whole run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scheduler/step_plan.h"

namespace sg {

struct StepStats {
  int iteration = 0;
  std::string mode;       // "pull" (full scan of the in-space) or "push" (from the out-space)
  std::string io_mode;    // the --io setting in force: auto, full or selective
  bool reversed = false;  // over the transposed graph (e.g. WCC on directed graphs)
  uint64_t active_vertices = 0;
  uint64_t next_active_vertices = 0;
  uint32_t intervals = 0;
  uint32_t intervals_skipped = 0;
  uint64_t chunks = 0;
  uint64_t edges_decoded = 0;
  std::vector<uint64_t> device_bytes;
  std::vector<uint64_t> device_requests;
  double io_wait_seconds = 0;  // wall time the engine waited for reads
  double decode_seconds = 0;   // CPU time decoding chunks, summed over threads
  double compute_seconds = 0;  // CPU time in updates, summed over threads
  double seconds = 0;

  // The planner's prediction for this step, and the alternatives it costed.
  double predicted_seconds = 0;
  double predicted_io_seconds = 0;
  double predicted_cpu_seconds = 0;
  uint64_t predicted_bytes = 0;
  uint64_t predicted_requests = 0;
  double pull_seconds = -1;  // -1: not considered
  double push_seconds = -1;
  std::vector<IntervalDecision> decisions;
  uint32_t selective_intervals = 0;
  uint64_t cached_chunks = 0;         // chunks served from the chunk cache
  uint64_t reread_chunks = 0;         // cached when the step began, evicted before their turn, read from the devices
  uint64_t decoded_cache_chunks = 0;  // of those, served already decoded
  uint64_t decoded_cache_bytes = 0;   // their compressed bytes
  uint64_t useful_bytes = 0;          // estimated bytes of the active lists (push)
  uint64_t read_ahead_bytes = 0;      // planned: chunks read past the active ones, for the cache
  // Vertex arrays loaded by range (core/vertex_residency.h): passes over the
  // step's chunks (one per range of neighbours held), groups of chunks
  // (one per range of the interval side), and the range I/O.
  uint32_t vertex_passes = 1;
  uint32_t vertex_groups = 1;
  bool vertex_groups_outer = false;  // groups outside, each streaming every pass (else passes outside)
  uint64_t vertex_bytes_loaded = 0;
  uint64_t vertex_bytes_written = 0;
  double vertex_io_seconds = 0;
  // Distributed runs: this rank's exchange for the step (source values
  // before it, the next frontier after it; docs/scale-out.md).
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  double exchange_seconds = 0;
  uint64_t active_owned = 0;     // of the active sources, those this rank owns (sent their values)
  uint64_t next_owned = 0;       // of the next frontier, those this rank found
  bool sources_current = false;  // every mirror already held its owner's value: none sent
  // The exchange model's figures for the step (scheduler/exchange_model.h):
  // the bytes this rank should receive, and the seconds the network needs
  // for the step's collectives (exchange_seconds also holds waiting for
  // slower ranks).
  uint64_t predicted_bytes_received = 0;
  double network_seconds = 0;

  uint64_t bytes_read() const {
    uint64_t total = 0;
    for (uint64_t b : device_bytes) total += b;
    return total;
  }
};

struct RunTotals {
  uint64_t bytes_read = 0;
  uint64_t requests = 0;
  double seconds = 0;
  double io_wait_seconds = 0;
  uint64_t steps = 0;
  uint64_t pull_steps = 0;

  void add(const StepStats& step);
  void add(const RunTotals& other);
};

RunTotals sum_steps(const std::vector<StepStats>& steps);
// One step as a JSON object (--stats writes them one at a time).
nlohmann::json step_json(const StepStats& step);

}  // namespace sg

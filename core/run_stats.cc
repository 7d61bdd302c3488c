#include "core/run_stats.h"

#include <nlohmann/json.hpp>

namespace sg {

void RunTotals::add(const StepStats& step) {
  bytes_read += step.bytes_read();
  for (uint64_t r : step.device_requests) requests += r;
  seconds += step.seconds;
  io_wait_seconds += step.io_wait_seconds;
  ++steps;
  pull_steps += step.mode == "pull";
}

void RunTotals::add(const RunTotals& other) {
  bytes_read += other.bytes_read;
  requests += other.requests;
  seconds += other.seconds;
  io_wait_seconds += other.io_wait_seconds;
  steps += other.steps;
  pull_steps += other.pull_steps;
}

RunTotals sum_steps(const std::vector<StepStats>& steps) {
  RunTotals t;
  for (const StepStats& s : steps) t.add(s);
  return t;
}

nlohmann::json step_json(const StepStats& s) {
  nlohmann::json decisions = nlohmann::json::array();
  for (const IntervalDecision& d : s.decisions) {
    decisions.push_back({{"interval", d.interval},
                         {"block", d.block},
                         {"full_seconds", d.full_seconds},
                         {"selective_seconds", d.selective_seconds},
                         {"choice", d.selective ? "selective" : "full"}});
  }
  return {{"iteration", s.iteration},
          {"mode", s.mode},
          {"io_mode", s.io_mode},
          {"predicted_seconds", s.predicted_seconds},
          {"predicted_io_seconds", s.predicted_io_seconds},
          {"predicted_cpu_seconds", s.predicted_cpu_seconds},
          {"predicted_bytes", s.predicted_bytes},
          {"predicted_requests", s.predicted_requests},
          {"pull_seconds", s.pull_seconds},
          {"push_seconds", s.push_seconds},
          {"selective_intervals", s.selective_intervals},
          {"interval_decisions", decisions},
          {"cached_chunks", s.cached_chunks},
          {"reread_chunks", s.reread_chunks},
          {"decoded_cache_chunks", s.decoded_cache_chunks},
          {"decoded_cache_bytes", s.decoded_cache_bytes},
          {"useful_bytes", s.useful_bytes},
          {"read_ahead_bytes", s.read_ahead_bytes},
          {"vertex_passes", s.vertex_passes},
          {"vertex_groups", s.vertex_groups},
          {"vertex_groups_outer", s.vertex_groups_outer},
          {"vertex_bytes_loaded", s.vertex_bytes_loaded},
          {"vertex_bytes_written", s.vertex_bytes_written},
          {"vertex_io_seconds", s.vertex_io_seconds},
          {"reversed", s.reversed},
          {"bytes_sent", s.bytes_sent},
          {"bytes_received", s.bytes_received},
          {"exchange_seconds", s.exchange_seconds},
          {"active_owned", s.active_owned},
          {"next_owned", s.next_owned},
          {"sources_current", s.sources_current},
          {"predicted_bytes_received", s.predicted_bytes_received},
          {"network_seconds", s.network_seconds},
          {"active_vertices", s.active_vertices},
          {"next_active_vertices", s.next_active_vertices},
          {"intervals", s.intervals},
          {"intervals_skipped", s.intervals_skipped},
          {"chunks", s.chunks},
          {"edges_decoded", s.edges_decoded},
          {"bytes_read", s.bytes_read()},
          {"device_bytes", s.device_bytes},
          {"device_requests", s.device_requests},
          {"io_wait_seconds", s.io_wait_seconds},
          {"decode_seconds", s.decode_seconds},
          {"compute_seconds", s.compute_seconds},
          {"seconds", s.seconds}};
}

}  // namespace sg

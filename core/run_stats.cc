#include "core/run_stats.h"

#include <nlohmann/json.hpp>

namespace sg {

RunTotals sum_steps(const std::vector<StepStats>& steps) {
  RunTotals t;
  for (const StepStats& s : steps) {
    t.bytes_read += s.bytes_read();
    for (uint64_t r : s.device_requests) t.requests += r;
    t.seconds += s.seconds;
    t.io_wait_seconds += s.io_wait_seconds;
  }
  return t;
}

std::string steps_to_json(const std::vector<StepStats>& steps) {
  nlohmann::json out = nlohmann::json::array();
  for (const StepStats& s : steps) {
    out.push_back({{"iteration", s.iteration},
                   {"mode", s.mode},
                   {"reversed", s.reversed},
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
                   {"seconds", s.seconds}});
  }
  return out.dump(1);
}

}  // namespace sg

// The engine as one rank of a distributed run (docs/scale-out.md). A rank
// owns a contiguous range of destinations and its part holds every arc into
// them, so every update runs where its destination lives; what crosses the
// network is the state of sources. Frontiers and reductions are the same on
// every rank; arrays span every vertex, and of the non-owned values only
// the mirrors (the sources of the part's arcs, core/mirror_set.h) are
// kept: share_sources refreshes the active ones before each step.
#include <algorithm>
#include <bit>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/file_util.h"
#include "base/seconds_since.h"
#include "core/engine.h"
#include "core/exchange_rounds.h"

namespace sg {
namespace {

// How a rank sends its owned members of a subset.
enum class MemberEncoding : uint8_t { kList = 1, kBitmap = 2 };

// A step that receives this much tells the link's rate (record_exchange).
constexpr double kRateSampleBytes = 1 << 20;

// Vertices per round of add_to_owners: an owner receives this many
// values from each other rank at once (2 MiB each; 32 MiB had put a rank
// of four 96 MiB over its budget, and a 128 MiB machine killed it).
constexpr uint64_t kAddValues = uint64_t{1} << 18;

void append(std::vector<uint8_t>* out, const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  out->insert(out->end(), p, p + bytes);
}

}  // namespace

// The whole graph's out-degrees (a part's own are partial): when the run
// opens a rank checks the file and notes the vertex with the most as it
// streams past (the default source, as one process picks it).
Status Engine::scan_out_degrees(const Distribution& distribution) {
  uint32_t most = 0;
  max_out_degree_vertex_ = 0;
  return scan_degree_array(distribution.out_degree_path, distribution.out_degree_checksum, num_vertices(),
                           [&](uint32_t v, const uint32_t* degrees, size_t count) {
                             fold_max_degree(v, degrees, count, &max_out_degree_vertex_, &most);
                           });
}

// An app that asks for them (PageRank divides by them; vertex maps visit
// owned vertices only) gets its owned range's, read alone from the file
// checked at open, over an array of all V whose other pages stay untouched.
Status Engine::ensure_out_degrees() {
  if (!distributed()) return degrees_.setup(SpaceKind::kOut);
  if (global_out_degrees_.size() != 0) return Status::OK();
  const uint32_t first = distribution_.owned_begin, last = distribution_.owned_end;
  SG_RETURN_IF_ERROR(global_out_degrees_.allocate(num_vertices(), std::string()));
  SG_RETURN_IF_ERROR(read_out_degree_file(first, last, global_out_degrees_.data() + first));
  budget_.hold(MemoryHolder::kMetadata, uint64_t{last - first} * sizeof(uint32_t));
  return Status::OK();
}

void Engine::release_out_degrees() {
  if (!distributed() || global_out_degrees_.size() == 0) return;
  global_out_degrees_ = VertexArray<uint32_t>();
  budget_.release(MemoryHolder::kMetadata, uint64_t{owned_end() - owned_begin()} * sizeof(uint32_t));
}

Status Engine::read_out_degree_file(uint32_t begin, uint32_t end, uint32_t* out) const {
  File file;
  SG_RETURN_IF_ERROR(File::open_read(distribution_.out_degree_path, &file));
  return file.pread_all(out, size_t{end - begin} * sizeof(uint32_t), uint64_t{begin} * sizeof(uint32_t));
}

Status Engine::distribute(const Distribution& given, Engine* reverse) {
  Communicator* comm = given.communicator;
  if (comm == nullptr) return Status::InvalidArgument("a distributed run needs a communicator");
  // Each rank's own checks and reads first, agreed on: no rank enters the
  // mirrors' exchange while another has failed.
  Distribution distribution = given;
  SG_RETURN_IF_ERROR(comm->agree(load_distribution(&distribution, reverse)));
  SG_RETURN_IF_ERROR(mirror_sets_[0].exchange(comm));
  if (reverse != nullptr) SG_RETURN_IF_ERROR(mirror_sets_[1].exchange(comm));
  budget_.hold(MemoryHolder::kMetadata, mirror_sets_[0].bytes() + mirror_sets_[1].bytes());
  budget_.hold(MemoryHolder::kRuntime, 2 * exchange_round_bytes(budget_.total()));  // a round sent and received
  distribution_ = distribution;
  reverse_ = reverse;
  if (reverse != nullptr) {
    // Reversed steps read and load this engine's arrays, in its range room.
    reverse->step_arrays_ = &residency_;
    reverse->runner_.use_residency(&residency_);
    reverse->budget_.load_ranges_in(&budget_);
  }
  const std::vector<uint32_t>& bounds = distribution.bounds;
  shares_.assign(static_cast<size_t>(comm->size()), RankShare{});
  for (size_t r = 0; r < shares_.size(); ++r) shares_[r].bitmap_words = (bounds[r + 1] + 63) / 64 - bounds[r] / 64;
  shrink_cache();
  return Status::OK();
}

Status Engine::load_distribution(Distribution* distribution, Engine* reverse) {
  const Communicator* comm = distribution->communicator;
  const std::vector<uint32_t>& bounds = distribution->bounds;
  if (bounds.size() != static_cast<size_t>(comm->size()) + 1 || bounds.front() != 0 ||
      bounds.back() != num_vertices() || !std::is_sorted(bounds.begin(), bounds.end())) {
    return Status::InvalidArgument(graph_->dir() + ": the parts' ranges do not tile the graph's vertices");
  }
  distribution->owned_begin = bounds[static_cast<size_t>(comm->rank())];
  distribution->owned_end = bounds[static_cast<size_t>(comm->rank()) + 1];
  if (residency_.resident_bytes() != 0) return Status::InvalidArgument("distribute() comes before any vertex array");
  if (reverse != nullptr && reverse->num_vertices() != num_vertices()) {
    return Status::InvalidArgument(reverse->graph().dir() + ": the reverse part has another vertex count");
  }
  SG_RETURN_IF_ERROR(scan_out_degrees(*distribution));
  SG_RETURN_IF_ERROR(mirror_sets_[0].scan(*graph_, bounds, comm->rank()));
  return reverse == nullptr ? Status::OK() : mirror_sets_[1].scan(reverse->graph(), bounds, comm->rank());
}

// A collective of a byte a rank lines the ranks up; then kLatencyRounds
// more give the latency, and two of different sizes the receive rate from
// the difference of their times (which cancels a shaper's burst and the
// latency). Every rank takes the slowest rank's figures. At 100 Mbit/s the
// probes take about 0.2 s a peer; in memory, well under a millisecond.
Status Engine::measure_network() {
  constexpr int kLatencyRounds = 8;
  constexpr size_t kSmallProbeBytes = size_t{512} << 10, kLargeProbeBytes = size_t{1536} << 10;
  Communicator* comm = distribution_.communicator;
  const ExchangeCounters before = comm->counters();
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  auto timed = [&](size_t bytes, double* seconds) {
    const std::vector<uint8_t> mine(bytes, 0);
    const auto start = std::chrono::steady_clock::now();
    const Status s = comm->all_gather(mine, &received, &counts);
    *seconds = seconds_since(start);
    return s;
  };
  double seconds = 0, latency = 0, small = 0, large = 0;
  SG_RETURN_IF_ERROR(timed(1, &seconds));
  for (int i = 0; i < kLatencyRounds; ++i) {
    SG_RETURN_IF_ERROR(timed(1, &seconds));
    latency += seconds / kLatencyRounds;
  }
  SG_RETURN_IF_ERROR(timed(kSmallProbeBytes, &small));
  SG_RETURN_IF_ERROR(timed(kLargeProbeBytes, &large));
  const double peers = comm->size() - 1;
  double rate = peers * static_cast<double>(kLargeProbeBytes - kSmallProbeBytes) / std::max(large - small, 1e-9);
  std::vector<double> latencies, rates;
  SG_RETURN_IF_ERROR(comm->gather_values(latency, &latencies));
  SG_RETURN_IF_ERROR(comm->gather_values(rate, &rates));
  network_.latency_seconds = *std::max_element(latencies.begin(), latencies.end());
  network_.bytes_per_second = *std::min_element(rates.begin(), rates.end());
  comm->restore_counters(before);
  return Status::OK();
}

void Engine::count_by_owner(const VertexSubset& subset, uint64_t RankShare::*field) {
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  for (size_t r = 0; r < shares_.size(); ++r) {
    uint64_t count = 0;
    if (subset.is_all()) {
      count = bounds[r + 1] - bounds[r];
    } else if (subset.is_dense()) {
      count = bitmap_count_in(subset.bits().data(), bounds[r], bounds[r + 1]);
    } else {
      const auto& ids = subset.list();
      for (uint32_t v : ids) count += v >= bounds[r] && v < bounds[r + 1];
    }
    shares_[r].*field = count;
  }
}

Engine::DistributedStep Engine::begin_distributed_step(const VertexSubset& frontier, EdgeMapOptions* options) {
  DistributedStep step;
  step.before = distribution_.communicator->counters();
  step.steps_before = log_.step_count();
  if (options->reversed && !graph_->directed()) options->reversed = false;  // an undirected graph is its own transpose
  step.status = share_sources(frontier, options->reversed && reverse_ != nullptr ? 1 : 0);
  if (options->finish_range) {
    mirrors_current_ = 0;  // the callback may set source values
    options->finish_range = [this, finish = options->finish_range](uint32_t begin, uint32_t end) {
      begin = std::max(begin, distribution_.owned_begin);
      end = std::min(end, distribution_.owned_end);
      return begin < end ? finish(begin, end) : Status::OK();
    };
  }
  return step;
}

Status Engine::end_distributed_step(const DistributedStep& step, Status status, VertexSubset* next) {
  SG_RETURN_IF_ERROR(distribution_.communicator->agree(status));
  SG_RETURN_IF_ERROR(share_members(next));
  record_exchange(step.before, step.steps_before);
  return Status::OK();
}

Status Engine::share_members(VertexSubset* subset) {
  const uint32_t n = num_vertices();
  const uint32_t begin = distribution_.owned_begin, end = distribution_.owned_end;
  // A list of ids when shorter than the range's bitmap words.
  std::vector<uint32_t> ids;
  subset->for_each([&](uint32_t v) {
    if (v >= begin && v < end) ids.push_back(v);
  });
  next_owned_ = ids.size();
  const size_t first_word = begin >> 6, end_word = (size_t{end} + 63) >> 6;
  std::vector<uint8_t> mine;
  if (ids.size() * sizeof(uint32_t) <= (end_word - first_word) * sizeof(uint64_t)) {
    mine.push_back(static_cast<uint8_t>(MemberEncoding::kList));
    append(&mine, ids.data(), ids.size() * sizeof(uint32_t));
  } else {
    const DenseSubset dense(*subset);
    mine.push_back(static_cast<uint8_t>(MemberEncoding::kBitmap));
    append(&mine, &first_word, sizeof(first_word));
    append(&mine, dense.get().bits().data() + first_word, (end_word - first_word) * sizeof(uint64_t));
  }
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(distribution_.communicator->all_gather(mine, &received, &counts));
  VertexSubset merged = VertexSubset::dense_builder(n);
  std::vector<uint64_t> words;
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
    const uint8_t* p = received.data() + at;
    const uint64_t bytes = counts[r];
    const bool list =
        bytes >= 1 && p[0] == static_cast<uint8_t>(MemberEncoding::kList) && (bytes - 1) % sizeof(uint32_t) == 0;
    const bool bitmap = bytes >= 1 + sizeof(size_t) && p[0] == static_cast<uint8_t>(MemberEncoding::kBitmap) &&
                        (bytes - 1 - sizeof(size_t)) % sizeof(uint64_t) == 0;
    if (!list && !bitmap) return Status::Corruption("rank " + std::to_string(r) + " sent a malformed frontier");
    if (list) {
      for (uint64_t i = 1; i < bytes; i += sizeof(uint32_t)) {
        uint32_t v = 0;
        std::memcpy(&v, p + i, sizeof(v));
        if (v >= n) return Status::Corruption("rank " + std::to_string(r) + " sent a vertex out of range");
        merged.set(v);
      }
      continue;
    }
    size_t word = 0;
    std::memcpy(&word, p + 1, sizeof(word));
    const uint64_t count = (bytes - 1 - sizeof(size_t)) / sizeof(uint64_t);
    if (word + count > merged.bits().size())
      return Status::Corruption("rank " + std::to_string(r) + " sent a frontier out of range");
    words.resize(count);
    std::memcpy(words.data(), p + 1 + sizeof(size_t), count * sizeof(uint64_t));
    merged.or_words(word, words);
  }
  merged.recount();
  if (merged.size() < n / 64) merged.to_sparse();  // the engine's rule for small frontiers
  *subset = std::move(merged);
  count_by_owner(*subset, &RankShare::next_owned);
  return Status::OK();
}

// A ranged array (state beyond the budget) moves a round's piece at a
// time: a sender loads its piece to send it, rank 0 loads each piece it
// receives to overwrite it, and then maps the whole array for reading.
Status Engine::gather_owned(RawVertexArray* array, size_t value_bytes) {
  Communicator* comm = distribution_.communicator;
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  // Rank 0 gathers an array held whole over its range into a scratch file
  // when every other range's values would not fit.
  const uint64_t others = (num_vertices() - (owned_end() - owned_begin())) * uint64_t{value_bytes};
  static const bool forced = std::getenv("SHARDGRAPH_GATHER_TO_SCRATCH") != nullptr;  // a test hook
  if (comm->rank() == 0 && !array->ranged() && (forced || !budget_.fits(others)))
    SG_RETURN_IF_ERROR(move_to_scratch(array, value_bytes));
  auto* data = static_cast<uint8_t*>(array->data());
  const bool ranged = array->ranged();
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts, send_counts(bounds.size() - 1, 0);
  // Round k: every rank sends rank 0 values [begin + k * values, ...) of
  // its range; rank 0 receives at most a round's bytes (exchange_rounds.h).
  const uint64_t senders = std::max<uint64_t>(1, bounds.size() - 2);
  const uint64_t values = std::max<uint64_t>(1, exchange_round_bytes(budget_.total()) / value_bytes / senders);
  uint64_t rounds = 0;
  for (size_t r = 0; r + 1 < bounds.size(); ++r)
    rounds = std::max<uint64_t>(rounds, (bounds[r + 1] - bounds[r] + values - 1) / values);
  for (uint64_t k = 0; k < rounds; ++k) {
    auto piece = [&](size_t r, uint64_t* first, uint64_t* count) {
      const uint64_t size = bounds[r + 1] - bounds[r];
      *first = bounds[r] + std::min(size, k * values);
      *count = std::min(values, bounds[r] + size - *first);
    };
    uint64_t first = 0, count = 0;
    piece(static_cast<size_t>(comm->rank()), &first, &count);
    send_counts[0] = comm->rank() == 0 ? 0 : count * value_bytes;  // rank 0's own is not sent
    const auto [s0, s1] = array->slabs_over(first, first + count);
    const bool load = ranged && send_counts[0] > 0;
    if (load) SG_RETURN_IF_ERROR(array->load(s0, s1, false));
    const Status sent = comm->all_to_all({data + first * value_bytes, send_counts[0]}, send_counts, &received, &counts);
    if (load) SG_RETURN_IF_ERROR(array->unload(s0, s1));
    SG_RETURN_IF_ERROR(sent);
    if (comm->rank() != 0) continue;
    uint64_t at = 0;
    for (size_t r = 1; r < counts.size(); at += counts[r], ++r) {
      piece(r, &first, &count);
      if (counts[r] != count * value_bytes)
        return Status::Corruption("rank " + std::to_string(r) + " sent a result piece of another size");
      if (count == 0) continue;
      const auto [t0, t1] = array->slabs_over(first, first + count);
      if (ranged) SG_RETURN_IF_ERROR(array->load_to_overwrite(first, first + count));
      std::memcpy(data + first * value_bytes, received.data() + at, counts[r]);
      if (ranged) SG_RETURN_IF_ERROR(array->unload(t0, t1));
    }
  }
  return ranged ? array->map_for_reading() : Status::OK();
}

Status Engine::move_to_scratch(RawVertexArray* array, size_t value_bytes) {
  RawVertexArray ranged;
  SG_RETURN_IF_ERROR(ranged.allocate_ranged(num_vertices(), value_bytes, scratch_path("gathered")));
  const uint64_t step = RawVertexArray::whole_slab_values(exchange_round_bytes(budget_.total()), value_bytes);
  const auto* from = static_cast<const uint8_t*>(array->data());
  SG_RETURN_IF_ERROR(visit_by_window(
      &ranged, owned_begin(), owned_end(), step, true, [](uint64_t, uint64_t) { return true; },
      [&](uint64_t lo, uint64_t hi) {
        std::memcpy(static_cast<uint8_t*>(ranged.data()) + lo * value_bytes, from + lo * value_bytes,
                    (hi - lo) * value_bytes);
      }));
  *array = std::move(ranged);  // the whole one goes (and its residency entry)
  return Status::OK();
}

// A reduce-scatter: each owner's range goes in pieces to the owner alone,
// which adds them up.
Status Engine::add_to_owners(uint64_t* values, uint32_t begin, uint32_t end) {
  if (!distributed()) return Status::OK();
  Communicator* comm = distribution_.communicator;
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  if (begin > end || end > num_vertices()) return Status::InvalidArgument("values to add over ranks past |V|");
  const auto me = static_cast<size_t>(comm->rank());
  const size_t ranks = bounds.size() - 1;
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts, send_counts(ranks);
  for (size_t owner = 0; owner < ranks; ++owner) {
    const uint64_t owner_end = std::min(bounds[owner + 1], end);
    for (uint64_t first = std::max(bounds[owner], begin); first < owner_end; first += kAddValues) {
      const size_t piece = std::min<uint64_t>(kAddValues, owner_end - first);
      const size_t bytes = piece * sizeof(uint64_t);
      uint64_t* const at_first = values + (first - begin);
      std::fill(send_counts.begin(), send_counts.end(), 0);
      send_counts[owner] = owner == me ? 0 : bytes;
      const std::span<const uint8_t> send(reinterpret_cast<const uint8_t*>(at_first), send_counts[owner]);
      SG_RETURN_IF_ERROR(comm->all_to_all(send, send_counts, &received, &counts));
      if (owner != me) continue;
      uint64_t at = 0;
      for (size_t r = 0; r < ranks; at += counts[r], ++r) {
        if (counts[r] != (r == me ? 0 : bytes)) return Status::Corruption("a rank sent a piece of another size to add");
        if (r == me) continue;
        for (size_t i = 0; i < piece; ++i) {
          uint64_t theirs = 0;  // the received bytes need not be 8-byte aligned
          std::memcpy(&theirs, received.data() + at + i * sizeof(uint64_t), sizeof(theirs));
          at_first[i] += theirs;
        }
      }
    }
  }
  return Status::OK();
}

void Engine::adopt_reverse_steps() { log_.adopt_reversed(&reverse_->log_); }

void Engine::record_exchange(const ExchangeCounters& before, size_t steps_before) {
  if (log_.step_count() <= steps_before) return;  // the step planned nothing
  const ExchangeCounters& now = distribution_.communicator->counters();
  StepStats& step = log_.steps().back();
  step.bytes_sent += now.bytes_sent - before.bytes_sent;
  step.bytes_received += now.bytes_received - before.bytes_received;
  step.exchange_seconds += now.wait_seconds - before.wait_seconds;
  step.active_owned = active_owned_;
  step.next_owned = next_owned_;
  step.sources_current = sources_skipped_;
  // The model's figures for the same step: the sources' share (when it
  // sent), the status and the next frontier.
  // (an all_to_all is two: its counts, then its pieces).
  const uint64_t collectives = (source_value_bytes_ > 0 ? 2 * source_rounds_ : 0) + 2;
  const uint64_t bytes = step_bytes_received(shares_, distribution_.communicator->rank(), source_value_bytes_);
  step.predicted_bytes_received += bytes;
  step.network_seconds += step_network_seconds(network_, collectives, bytes);
  // Short probes through a shaper undershoot a slow link's rate (TCP's
  // ramp after a drop): a step that moved much at a higher rate than the
  // estimate raises it. Waiting only lowers a step's rate, so the highest
  // seen stays a floor of the link's.
  const double moved = static_cast<double>(now.bytes_received - before.bytes_received);
  const double seconds = now.wait_seconds - before.wait_seconds;
  if (moved >= kRateSampleBytes && seconds > 0)
    network_.bytes_per_second = std::max(network_.bytes_per_second, moved / seconds);
}

}  // namespace sg

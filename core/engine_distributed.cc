// The engine as one rank of a distributed run (docs/scale-out.md). A rank
// owns a contiguous range of destinations and its part holds every arc into
// them, so every update runs where its destination lives; what crosses the
// network is the state of sources. Frontiers and reductions are the same on
// every rank; arrays span every vertex, non-owned values being mirrors that
// share_sources refreshes for the active sources before each step.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/seconds_since.h"
#include "core/engine.h"

namespace sg {
namespace {

// How a rank sends its owned members of a subset.
enum class MemberEncoding : uint8_t { kList = 1, kBitmap = 2 };

// A step that receives this much tells the link's rate (record_exchange).
constexpr double kRateSampleBytes = 1 << 20;

// Vertices per round of gather_owned: the values in flight stay bounded.
constexpr uint64_t kGatherValues = uint64_t{1} << 22;

void append(std::vector<uint8_t>* out, const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  out->insert(out->end(), p, p + bytes);
}

// A test hook: SHARDGRAPH_KILL_RANK=R@S kills rank R (SIGKILL, as the
// kernel's OOM killer or a lost machine would) as it begins its step S,
// counted from 1. The job must then end with an error, not hang.
void kill_rank_for_test(int rank, uint64_t step) {
  static const char* spec = std::getenv("SHARDGRAPH_KILL_RANK");
  if (spec == nullptr) return;
  int kill_rank = -1;
  unsigned long long kill_step = 0;
  if (std::sscanf(spec, "%d@%llu", &kill_rank, &kill_step) == 2 && kill_rank == rank && kill_step == step)
    std::raise(SIGKILL);
}

}  // namespace

Status Engine::distribute(const Distribution& given, Engine* reverse) {
  Distribution distribution = given;
  Communicator* comm = distribution.communicator;
  if (comm == nullptr) return Status::InvalidArgument("a distributed run needs a communicator");
  const std::vector<uint32_t>& bounds = distribution.bounds;
  if (bounds.size() != static_cast<size_t>(comm->size()) + 1 || bounds.front() != 0 ||
      bounds.back() != num_vertices() || !std::is_sorted(bounds.begin(), bounds.end())) {
    return Status::InvalidArgument(graph_->dir() + ": the parts' ranges do not tile the graph's vertices");
  }
  distribution.owned_begin = bounds[static_cast<size_t>(comm->rank())];
  distribution.owned_end = bounds[static_cast<size_t>(comm->rank()) + 1];
  if (residency_.resident_bytes() != 0) return Status::InvalidArgument("distribute() comes before any vertex array");
  if (reverse != nullptr && reverse->num_vertices() != num_vertices()) {
    return Status::InvalidArgument(reverse->graph().dir() + ": the reverse part has another vertex count");
  }
  const uint64_t n = num_vertices();
  SG_RETURN_IF_ERROR(check_degree_file(distribution.out_degree_path, distribution.out_degree_checksum, n));
  SG_RETURN_IF_ERROR(global_out_degrees_.allocate(n, std::string()));
  File file;
  SG_RETURN_IF_ERROR(File::open_read(distribution.out_degree_path, &file));
  SG_RETURN_IF_ERROR(file.pread_all(global_out_degrees_.data(), n * sizeof(uint32_t), 0));
  budget_.hold(MemoryHolder::kMetadata, n * sizeof(uint32_t));
  distribution_ = distribution;
  reverse_ = reverse;
  shares_.assign(static_cast<size_t>(comm->size()), RankShare{});
  for (size_t r = 0; r < shares_.size(); ++r) shares_[r].bitmap_words = (bounds[r + 1] + 63) / 64 - bounds[r] / 64;
  shrink_cache();
  return Status::OK();
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
      subset.for_each_in(bounds[r], bounds[r + 1], [&](uint32_t) { ++count; });
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
  step.status = share_sources(frontier);
  if (options->finish_range) {
    mirrors_current_ = false;  // the callback may set source values
    options->finish_range = [this, finish = options->finish_range](uint32_t begin, uint32_t end) {
      begin = std::max(begin, distribution_.owned_begin);
      end = std::min(end, distribution_.owned_end);
      return begin < end ? finish(begin, end) : Status::OK();
    };
  }
  if (options->reversed && !graph_->directed()) options->reversed = false;  // an undirected graph is its own transpose
  return step;
}

Status Engine::end_distributed_step(const DistributedStep& step, Status status, VertexSubset* next) {
  SG_RETURN_IF_ERROR(distribution_.communicator->agree(status));
  SG_RETURN_IF_ERROR(share_members(next));
  record_exchange(step.before, step.steps_before);
  return Status::OK();
}

Status Engine::share_sources(const VertexSubset& frontier) {
  kill_rank_for_test(distribution_.communicator->rank(), ++distributed_steps_);
  SG_RETURN_IF_ERROR(prepare_vertices());
  count_by_owner(frontier, &RankShare::active_owned);
  active_owned_ = shares_[static_cast<size_t>(distribution_.communicator->rank())].active_owned;
  source_value_bytes_ = 0;
  struct Shared {
    uint8_t* data;
    size_t value_bytes;
  };
  std::vector<Shared> arrays;
  bool only_sources = true;  // no kAny array, which a step itself may write
  residency_.for_each_array([&](RawVertexArray* array, VertexUse use, size_t value_bytes) {
    if ((use == VertexUse::kSource || use == VertexUse::kAny) && array->data() != nullptr && !array->ranged()) {
      arrays.push_back({static_cast<uint8_t*>(array->data()), value_bytes});
      only_sources = only_sources && use == VertexUse::kSource;
    }
  });
  sources_skipped_ = !arrays.empty() && mirrors_current_;
  if (arrays.empty() || mirrors_current_) return Status::OK();
  for (const Shared& a : arrays) source_value_bytes_ += a.value_bytes;
  const DenseSubset dense(frontier);
  const VertexSubset* active = &dense.get();
  const bool all = active->is_all();
  mirrors_current_ = all && only_sources;
  // Each rank's values, array by array, in vertex order of its active
  // owned members (the frontier is the same on every rank: no ids sent).
  auto pack_range = [&](const Shared& a, uint32_t begin, uint32_t end, std::vector<uint8_t>* out) {
    if (all) {
      append(out, a.data + uint64_t{begin} * a.value_bytes, uint64_t{end - begin} * a.value_bytes);
      return;
    }
    active->for_each_in(begin, end,
                        [&](uint32_t v) { append(out, a.data + uint64_t{v} * a.value_bytes, a.value_bytes); });
  };
  std::vector<uint8_t> mine;
  for (const Shared& a : arrays) pack_range(a, distribution_.owned_begin, distribution_.owned_end, &mine);
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  Communicator* comm = distribution_.communicator;
  SG_RETURN_IF_ERROR(comm->all_gather(mine, &received, &counts));
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
    if (static_cast<int>(r) == comm->rank()) continue;
    const uint32_t begin = bounds[r], end = bounds[r + 1];
    const uint64_t members = shares_[r].active_owned;  // counted by count_by_owner
    uint64_t expected = 0;
    for (const Shared& a : arrays) expected += members * a.value_bytes;
    if (expected != counts[r])
      return Status::Corruption("rank " + std::to_string(r) + " sent source values for another frontier");
    const uint8_t* p = received.data() + at;
    for (const Shared& a : arrays) {
      if (all) {
        std::memcpy(a.data + uint64_t{begin} * a.value_bytes, p, uint64_t{end - begin} * a.value_bytes);
        p += uint64_t{end - begin} * a.value_bytes;
        continue;
      }
      active->for_each_in(begin, end, [&](uint32_t v) {
        std::memcpy(a.data + uint64_t{v} * a.value_bytes, p, a.value_bytes);
        p += a.value_bytes;
      });
    }
  }
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

Status Engine::gather_owned(RawVertexArray* array, size_t value_bytes) {
  // A rank's arrays are whole (Engine::allocate): a ranged one has no room to receive.
  if (array->ranged()) return Status::InvalidArgument("a ranged vertex array cannot be gathered over the ranks");
  Communicator* comm = distribution_.communicator;
  const std::vector<uint32_t>& bounds = distribution_.bounds;
  auto* data = static_cast<uint8_t*>(array->data());
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  // Round k: every rank sends values [begin + k * kGatherValues, ...) of its range.
  uint64_t rounds = 0;
  for (size_t r = 0; r + 1 < bounds.size(); ++r)
    rounds = std::max<uint64_t>(rounds, (bounds[r + 1] - bounds[r] + kGatherValues - 1) / kGatherValues);
  for (uint64_t k = 0; k < rounds; ++k) {
    auto piece = [&](size_t r, uint64_t* first, uint64_t* count) {
      const uint64_t size = bounds[r + 1] - bounds[r];
      *first = bounds[r] + std::min(size, k * kGatherValues);
      *count = std::min(kGatherValues, bounds[r] + size - *first);
    };
    uint64_t first = 0, count = 0;
    piece(static_cast<size_t>(comm->rank()), &first, &count);
    SG_RETURN_IF_ERROR(comm->all_gather({data + first * value_bytes, count * value_bytes}, &received, &counts));
    uint64_t at = 0;
    for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
      piece(r, &first, &count);
      if (counts[r] != count * value_bytes)
        return Status::Corruption("rank " + std::to_string(r) + " sent a result piece of another size");
      if (static_cast<int>(r) != comm->rank()) std::memcpy(data + first * value_bytes, received.data() + at, counts[r]);
    }
  }
  return Status::OK();
}

Status Engine::add_raw_over_ranks(uint64_t* values, size_t count) {
  Communicator* comm = distribution_.communicator;
  std::vector<uint8_t> received;
  std::vector<uint64_t> counts;
  for (size_t first = 0; first < count; first += kGatherValues) {
    const size_t piece = std::min<size_t>(kGatherValues, count - first);
    const size_t bytes = piece * sizeof(uint64_t);
    SG_RETURN_IF_ERROR(comm->all_gather({reinterpret_cast<const uint8_t*>(values + first), bytes}, &received, &counts));
    for (uint64_t c : counts) {
      if (c != bytes) return Status::Corruption("a rank sent a piece of another size to add");
    }
    // In rank order, so every rank adds the same way.
    std::vector<uint64_t> sum(piece, 0), theirs(piece);
    for (size_t r = 0; r < counts.size(); ++r) {
      std::memcpy(theirs.data(), received.data() + r * bytes, bytes);
      for (size_t i = 0; i < piece; ++i) sum[i] += theirs[i];
    }
    std::memcpy(values + first, sum.data(), bytes);
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
  const uint64_t collectives = (source_value_bytes_ > 0 ? 1 : 0) + 2;
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

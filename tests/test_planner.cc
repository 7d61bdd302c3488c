// The step planner from its read-only view alone: a stored graph's chunk
// index, a synthetic device profile, a fake cache and frontiers built by
// hand. No engine runs and planning reads nothing from the devices.
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "apps/jobs/ingest_ordered.h"
#include "scheduler/range_plan.h"
#include "scheduler/step_planner.h"
#include "test_util.h"

using namespace sg;

namespace {

DeviceProfile hdd_profile() {
  DeviceProfile p;
  p.device_class = "test-hdd";
  p.sequential_bytes_per_second = 150e6;
  for (uint64_t bytes = 4096; bytes <= (uint64_t{16} << 20); bytes *= 4) {
    p.random_reads.push_back({bytes, 0.008 + static_cast<double>(bytes) / 150e6});
  }
  return p;
}

class FakeCache final : public ChunkHolder {
 public:
  bool holds(size_t stored, uint32_t chunk) const override { return chunks.count({stored, chunk}) != 0; }
  bool holds_decoded(size_t stored, uint32_t chunk) const override { return decoded.count({stored, chunk}) != 0; }
  std::set<std::pair<size_t, uint32_t>> chunks, decoded;
};

// A directed chain v -> v+1 .. v+4 of `n` vertices in 1 KiB chunks, 4 intervals.
struct PlannerGraph {
  explicit PlannerGraph(uint32_t n) {
    std::string text;
    for (uint32_t v = 0; v < n; ++v) {
      for (uint32_t k = 1; k <= 4; ++k) text += std::to_string(v) + " " + std::to_string((v + k) % n) + "\n";
    }
    sgtest::write_text(dir / "chain.txt", text);
    IngestOptions o;
    o.input = dir / "chain.txt";
    o.output = dir / "chain";
    o.chunk_bytes = 1024;
    o.intervals = 4;
    o.order = "none";
    IngestSummary summary;
    REQUIRE(ingest_ordered(o, &summary).ok());
    REQUIRE(Graph::open(dir / "chain", &graph).ok());
    intervals = interval_chunks(graph);
    model = CostModel({hdd_profile()}, graph.layout(), 1e12);  // decoding costs next to nothing
  }
  // A view of the step whose frontier is `bits` (and `list`, if given).
  PlanView view(const std::vector<uint64_t>& bits, uint64_t size, const std::vector<uint32_t>* list = nullptr) const {
    PlanView v;
    v.graph = &graph;
    v.intervals = &intervals;
    v.cost_model = &model;
    v.cache = &cache;
    v.frontier.universe = graph.num_vertices();
    v.frontier.size = size;
    v.frontier.bits = bits.data();
    v.frontier.list = list;
    v.cache_limit = 0;
    return v;
  }
  sgtest::TempDir dir;
  Graph graph;
  IntervalChunks intervals;
  CostModel model;
  FakeCache cache;
};

std::vector<uint64_t> bitmap_of(uint32_t n, const std::vector<uint32_t>& members) {
  std::vector<uint64_t> bits((n + 63) / 64, 0);
  for (uint32_t v : members) bits[v >> 6] |= uint64_t{1} << (v & 63);
  return bits;
}

uint64_t chunks_in(const std::vector<ChunkSpan>& spans) {
  uint64_t chunks = 0;
  for (const ChunkSpan& s : spans) chunks += s.end - s.begin;
  return chunks;
}

}  // namespace

TEST_CASE("planner: three active vertices in one interval on an HDD read only their chunks") {
  PlannerGraph g(100000);
  const std::vector<uint32_t> members = {40000, 40001, 40002};
  const std::vector<uint64_t> bits = bitmap_of(g.graph.num_vertices(), members);
  for (const bool listed : {true, false}) {
    CAPTURE(listed);
    DirectionRegret regret;
    const StepPlan plan = plan_step(g.view(bits, members.size(), listed ? &members : nullptr), StepRequest{}, &regret);
    CHECK_FALSE(plan.pull);
    REQUIRE(plan.intervals.size() == 1);  // the other three hold no active list
    CHECK(plan.intervals_skipped == 3);
    CHECK(plan.intervals[0].selective);
    CHECK(plan.intervals[0].selective_seconds < plan.intervals[0].full_seconds);
    const size_t out = g.graph.blocks(SpaceKind::kOut).front();
    const ChunkSpan interval = g.intervals[out][plan.intervals[0].interval];
    CHECK(chunks_in(plan.blocks[0].spans) <= 2);
    CHECK(chunks_in(plan.blocks[0].spans) < (interval.end - interval.begin) / 10);
    CHECK(plan.predicted.requests == 1);
    CHECK(plan.useful_bytes > 0);
  }
}

TEST_CASE("planner: with 60% of the vertices active every chunk of the space is scanned") {
  PlannerGraph g(100000);
  const uint32_t n = g.graph.num_vertices();
  std::vector<uint32_t> members;
  uint64_t state = 7;
  for (uint32_t v = 0; v < n; ++v) {
    if (sgtest::next_random(&state) % 10 < 6) members.push_back(v);
  }
  const std::vector<uint64_t> bits = bitmap_of(n, members);
  DirectionRegret regret;
  const PlanView view = g.view(bits, members.size());
  const StepPlan plan = plan_step(view, StepRequest{}, &regret);
  const size_t stored = plan.blocks.front().stored;
  const auto chunks = static_cast<uint64_t>(g.graph.stored_space(stored).index.size());
  CHECK(chunks_in(plan.blocks.front().spans) == chunks);
  CHECK(plan.predicted.requests * 20 < chunks);  // sequential reads, not a request a chunk
  // Pushed, every interval is read whole too.
  const StepPlan push = plan_push(view, SpaceKind::kOut, IoMode::kAuto);
  CHECK(push.intervals_skipped == 0);
  for (const BlockPlan& block : push.blocks) {
    CHECK(chunks_in(block.spans) == g.graph.stored_space(block.stored).index.size());
  }
  // --io full never reads selectively.
  const StepPlan full = plan_push(view, SpaceKind::kOut, IoMode::kFull);
  CHECK(full.intervals.empty());
  CHECK(chunks_in(full.blocks.front().spans) == g.graph.stored_space(full.blocks.front().stored).index.size());
}

TEST_CASE("planner: chunks the cache holds are not read again, and decoded ones are not decoded") {
  PlannerGraph g(100000);
  const uint32_t n = g.graph.num_vertices();
  std::vector<uint64_t> all((n + 63) / 64, ~uint64_t{0});
  const size_t in = g.graph.blocks(SpaceKind::kIn).front();
  const StepPlan cold = plan_pull(g.view(all, n), SpaceKind::kIn);
  // Cache the first two intervals of the in-space.
  const ChunkSpan first = g.intervals[in][0], second = g.intervals[in][1];
  for (uint32_t c = first.begin; c < second.end; ++c) g.cache.chunks.insert({in, c});
  const StepPlan warm = plan_pull(g.view(all, n), SpaceKind::kIn);
  CHECK(chunks_in(warm.blocks[0].spans) == chunks_in(cold.blocks[0].spans));  // still processed
  const std::vector<ChunkSpan> reads = disk_spans(g.graph, g.cache, g.model, in, warm.blocks[0].spans);
  for (const ChunkSpan& span : reads) CHECK(span.begin >= second.end);
  CHECK(warm.predicted.bytes < cold.predicted.bytes);
  const auto& index = g.graph.stored_space(in).index;
  CHECK(warm.predicted.bytes == cold.predicted.bytes - (index[second.end].offset - index[first.begin].offset));
  // Every chunk cached: nothing read, no request.
  for (uint32_t c = 0; c < index.size(); ++c) g.cache.chunks.insert({in, c});
  const StepPlan cached = plan_pull(g.view(all, n), SpaceKind::kIn);
  CHECK(cached.predicted.bytes == 0);
  CHECK(cached.predicted.requests == 0);
  CHECK(disk_spans(g.graph, g.cache, g.model, in, cached.blocks[0].spans).empty());
  // Decoded as well: less work again (updates only).
  for (uint32_t c = 0; c < index.size(); ++c) g.cache.decoded.insert({in, c});
  const StepPlan decoded = plan_pull(g.view(all, n), SpaceKind::kIn);
  CHECK(decoded.predicted.cpu_seconds < cached.predicted.cpu_seconds);
}

TEST_CASE("planner: a destination range reads only the chunks holding it, as a pull") {
  PlannerGraph g(100000);
  const uint32_t n = g.graph.num_vertices();
  std::vector<uint64_t> all((n + 63) / 64, ~uint64_t{0});
  StepRequest request;
  request.destinations_begin = 1000;
  request.destinations_end = 2000;
  DirectionRegret regret;
  const StepPlan plan = plan_step(g.view(all, n), request, &regret);
  CHECK(plan.pull);
  const auto& index = g.graph.stored_space(plan.blocks[0].stored).index;
  REQUIRE_FALSE(plan.blocks[0].spans.empty());
  for (const ChunkSpan& span : plan.blocks[0].spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) {
      CHECK(index[c].end_vertex() > 1000);
      CHECK(index[c].first_vertex < 2000);
    }
  }
  CHECK(plan.intervals_skipped == 3);
}

TEST_CASE("range plan: nothing ranged is one group over every vertex and one pass") {
  PlannerGraph g(20000);
  const uint32_t n = g.graph.num_vertices();
  std::vector<uint64_t> all((n + 63) / 64, ~uint64_t{0});
  const PlanView view = g.view(all, n);
  const StepPlan plan = plan_pull(view, SpaceKind::kIn);
  const RangePlan ranges = plan_ranges(view, plan);
  REQUIRE(ranges.groups.size() == 1);
  CHECK(ranges.groups[0].begin_vertex == 0);
  CHECK(ranges.groups[0].end_vertex == n);
  CHECK(ranges.passes.size() == 1);
  // Destinations ranged in a room for a tenth of them: groups of whole
  // slabs that cover every chunk once.
  PlanView ranged = view;
  ranged.any_ranged = true;
  ranged.ranged_destination_bytes = 8;
  ranged.range_room = uint64_t{n} / 10 * 8;
  const RangePlan groups = plan_ranges(ranged, plan);
  CHECK(groups.groups.size() >= 10);
  CHECK(groups.passes.size() == 1);
  uint64_t chunks = 0;
  for (size_t k = 0; k < groups.groups.size(); ++k) {
    const ChunkGroup& group = groups.groups[k];
    if (k > 0) CHECK(group.begin_vertex / kRangeSlabValues > groups.groups[k - 1].begin_vertex / kRangeSlabValues);
    chunks += chunks_in(group.spans[0]);
  }
  CHECK(chunks == chunks_in(plan.blocks[0].spans));
}

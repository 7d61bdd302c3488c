// The cost model with synthetic device profiles: an HDD-like profile picks
// full scans for frontiers covering most chunks and selective reads for a
// handful of vertices, and the switch point moves the right way when
// latency or bandwidth change. And the chunk cache's admission policy.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "core/chunk_cache.h"
#include "scheduler/calibrate.h"
#include "scheduler/cost_model.h"
#include "scheduler/device_profile.h"
#include "scheduler/exchange_model.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/ingest_auto.h"

using namespace sg;

namespace {

DeviceProfile synthetic(double bandwidth, double latency) {
  DeviceProfile p;
  p.device_class = "test";
  p.sequential_bytes_per_second = bandwidth;
  for (uint64_t bytes = 4096; bytes <= (uint64_t{16} << 20); bytes *= 4) {
    p.random_reads.push_back({bytes, latency + static_cast<double>(bytes) / bandwidth});
  }
  return p;
}

constexpr uint64_t kChunk = 256 * 1024;
constexpr uint64_t kChunks = 400;  // a 100 MiB interval

// Seconds to read `k` scattered chunks vs the whole interval.
double selective_cost(const CostModel& m, uint64_t k) {
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < k; ++i) ranges.push_back({(i * kChunks / k) * kChunk, kChunk});
  return m.cost(ranges, k * kChunk).seconds;
}
double full_cost(const CostModel& m) { return m.cost({{0, kChunks * kChunk}}, kChunks * kChunk).seconds; }

// Smallest number of scattered chunks for which the full scan is cheaper.
uint64_t switch_point(const CostModel& m) {
  for (uint64_t k = 1; k <= kChunks; ++k) {
    if (selective_cost(m, k) >= full_cost(m)) return k;
  }
  return kChunks + 1;
}

}  // namespace

// A step's exchange: the values of each other rank's active sources that
// the receiver mirrors (not all it owns), a status byte and its
// next-frontier members (4-byte ids, or its bitmap words when fewer bytes).
TEST_CASE("exchange model: the bytes a rank receives in a step, and their seconds on a link") {
  const std::vector<RankShare> shares = {
      {.active_owned = 10, .active_mirrored = 6, .next_owned = 3, .bitmap_words = 100},       // a list: 1 + 12 bytes
      {.active_owned = 1000, .active_mirrored = 700, .next_owned = 900, .bitmap_words = 50},  // a bitmap: 1 + 8 + 400
      {.active_owned = 0, .active_mirrored = 0, .next_owned = 0, .bitmap_words = 1}};
  CHECK(step_bytes_received(shares, 0, 8) == (700 * 8 + 1 + 409) + (1 + 1));
  CHECK(step_bytes_received(shares, 1, 8) == (6 * 8 + 1 + 13) + (1 + 1));
  CHECK(step_bytes_received(shares, 2, 0) == (1 + 13) + (1 + 409));                // mirrors current: no values
  const NetworkProfile link{.latency_seconds = 50e-6, .bytes_per_second = 125e6};  // 1 Gbit/s
  CHECK(step_network_seconds(link, 3, 125'000'000) == doctest::Approx(1.0 + 150e-6));
  CHECK(step_network_seconds(NetworkProfile{}, 3, 1000) == 0);  // one rank: nothing measured, nothing sent
}

TEST_CASE("hdd-like profile: full scan for a frontier covering most chunks, selective for a handful") {
  CostModel hdd({synthetic(150e6, 0.008)}, StripeLayout(4 << 20, 1), 1e12);
  CHECK(selective_cost(hdd, 5) < full_cost(hdd));
  CHECK(selective_cost(hdd, 300) > full_cost(hdd));
  const uint64_t k = switch_point(hdd);
  MESSAGE("hdd switch point: " << k << " of " << kChunks << " chunks");
  CHECK(k > 5);
  CHECK(k < 300);
}

TEST_CASE("the switch point moves with latency and bandwidth") {
  const StripeLayout layout(4 << 20, 1);
  const uint64_t base = switch_point(CostModel({synthetic(150e6, 0.008)}, layout, 1e12));
  const uint64_t slower_seeks = switch_point(CostModel({synthetic(150e6, 0.016)}, layout, 1e12));
  const uint64_t faster_seeks = switch_point(CostModel({synthetic(150e6, 0.0001)}, layout, 1e12));
  const uint64_t more_bandwidth = switch_point(CostModel({synthetic(600e6, 0.008)}, layout, 1e12));
  CHECK(slower_seeks < base);    // costlier requests: scan sooner
  CHECK(faster_seeks > base);    // cheap requests (SSD-like): stay selective longer
  CHECK(more_bandwidth < base);  // cheaper scans: scan sooner
}

TEST_CASE("striping spreads a scan: two devices halve its I/O time") {
  const DeviceProfile p = synthetic(150e6, 0.008);
  CostModel one({p}, StripeLayout(1 << 20, 1), 1e12);
  CostModel two({p, p}, StripeLayout(1 << 20, 2), 1e12);
  const double t1 = one.cost({{0, 64 << 20}}, 0).io_seconds;
  const double t2 = two.cost({{0, 64 << 20}}, 0).io_seconds;
  CHECK(std::fabs(t2 / t1 - 0.5) < 0.01);
  CHECK(one.cost({{0, 64 << 20}}, 0).requests == 64);
}

TEST_CASE("CPU bound plans cost their decode time, and gap filling follows latency x bandwidth") {
  CostModel m({synthetic(150e6, 0.008)}, StripeLayout(4 << 20, 1), 100e6);
  const PlanCost c = m.cost({{0, 1 << 20}}, 100 << 20);
  CHECK(c.seconds == doctest::Approx(c.cpu_seconds));
  CHECK(c.cpu_seconds == doctest::Approx(static_cast<double>(100 << 20) / 100e6));
  CHECK(m.gap_fill_bytes() == doctest::Approx((0.008 + 4096 / 150e6) * 150e6).epsilon(0.001));
  // The first measurement replaces the prior; later ones are averaged in.
  m.observe_cpu(200 << 20, 1.0);
  CHECK(m.cpu_bytes_per_second() == doctest::Approx(static_cast<double>(200 << 20)));
  m.observe_cpu(100 << 20, 1.0);
  CHECK(m.cpu_bytes_per_second() == doctest::Approx(static_cast<double>(150 << 20)));
  m.observe_cpu(1000, 1e-9);  // too little to measure: ignored
  CHECK(m.cpu_bytes_per_second() == doctest::Approx(static_cast<double>(150 << 20)));
}

TEST_CASE("reading through a gap: a seeking disk reads short gaps through, a throttled one only between small reads") {
  // Seek + transfer: a gap is worth reading while it transfers faster than a seek.
  CostModel seeking({synthetic(150e6, 0.008)}, StripeLayout(4 << 20, 1), 1e12);
  CHECK(seeking.read_through(8 << 20, 512 << 10, 8 << 20));
  CHECK_FALSE(seeking.read_through(8 << 20, 4 << 20, 8 << 20));
  // max(1/IOPS, transfer): big reads are bandwidth-bound, a second one costs
  // nothing extra; small ones are IOPS-bound and absorb a short gap.
  DeviceProfile throttled;
  REQUIRE(preset_profile("hdd", &throttled).ok());
  CostModel throttle({throttled}, StripeLayout(4 << 20, 1), 1e12);
  CHECK_FALSE(throttle.read_through(8 << 20, 256 << 10, 8 << 20));
  CHECK(throttle.read_through(64 << 10, 128 << 10, 64 << 10));
  CHECK_FALSE(throttle.read_through(64 << 10, 2 << 20, 64 << 10));
}

TEST_CASE("presets and profile JSON round trip") {
  DeviceProfile hdd;
  REQUIRE(preset_profile("hdd", &hdd).ok());
  CHECK(hdd.request_seconds(4096) == doctest::Approx(1.0 / 300));
  CHECK(hdd.request_seconds(16 << 20) == doctest::Approx((16 << 20) / 150e6));
  DeviceProfile back;
  REQUIRE(DeviceProfile::from_json(hdd.to_json(), "x.json", &back).ok());
  CHECK(back.request_seconds(1 << 20) == doctest::Approx(hdd.request_seconds(1 << 20)));
  DeviceProfile bad;
  CHECK_FALSE(preset_profile("floppy", &bad).ok());
  CHECK_FALSE(DeviceProfile::from_json("{}", "y.json", &bad).ok());
}

TEST_CASE("a device probe measures a directory: a sequential rate and request times that grow with size") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  DeviceProfile probed;
  const Status s = probe_device(dir.string(), &probed);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(probed.device_class == "probed");
  CHECK(probed.sequential_bytes_per_second > 1e6);
  REQUIRE(probed.random_reads.size() == 2);
  CHECK(probed.latency_seconds() > 0);
  CHECK(probed.request_seconds(1 << 20) >= probed.request_seconds(4096));
  CHECK(probed.request_seconds(64 << 20) > probed.request_seconds(1 << 20));
  DeviceProfile back;  // stored as calibrate stores its profile
  REQUIRE(DeviceProfile::from_json(probed.to_json(), "p.json", &back).ok());
  CHECK(back.device_class == "probed");
  CHECK_FALSE(probe_device((dir / "no-such-directory").string(), &probed).ok());
  probed.sequential_bytes_per_second = 149e6;  // the emulated HDD of docs/benchmarks.md
  CHECK(probed_class(probed) == "hdd");
  probed.sequential_bytes_per_second = 520e6;
  CHECK(probed_class(probed) == "ssd");
  probed.sequential_bytes_per_second = 1.5e9;
  CHECK(probed_class(probed) == "nvme");
}

TEST_CASE("default stripe depth gives every device at least 32 stripes, 1 to 8 MiB") {
  CHECK(choose_stripe_bytes(uint64_t{10} << 30, 1) == (8 << 20));
  CHECK(choose_stripe_bytes(159 << 20, 4) == (1 << 20));
  CHECK(choose_stripe_bytes(159 << 20, 1) == (4 << 20));
  CHECK(choose_stripe_bytes(1 << 20, 4) == (1 << 20));
  for (size_t devices : {1, 2, 4, 8}) {
    const uint64_t stripe = choose_stripe_bytes(uint64_t{2} << 30, devices);
    CHECK(((uint64_t{2} << 30) / stripe >= 32 * devices || stripe == (1 << 20)));
  }
}

TEST_CASE("chunk cache keeps the chunks that pay most: lists per byte decide evictions") {
  ChunkCache cache;
  cache.reset({8}, 8 * 100);
  const std::vector<uint8_t> data(100, 7);
  uint64_t room = 300;  // three chunks of 100 bytes
  uint64_t step = 0;
  auto admit = [&](uint32_t chunk, double priority) {
    const uint64_t before = cache.bytes();
    const bool kept = cache.admit(0, chunk, data.data(), 100, room, priority, step);
    room = room + before - cache.bytes();
    return kept;
  };
  CHECK(admit(0, 2.0));
  CHECK(admit(1, 1.0));
  CHECK(admit(2, 3.0));
  CHECK(cache.chunk_count() == 3);
  CHECK_FALSE(admit(3, 0.5));  // lower than everything cached: refused
  CHECK_FALSE(admit(4, 1.0));  // equal to the lowest: no churn
  CHECK(admit(5, 2.5));        // evicts the lowest (chunk 1)
  CHECK(cache.find(0, 1) == nullptr);
  CHECK(cache.find(0, 5) != nullptr);
  CHECK(cache.find(0, 5)[99] == 7);
  CHECK(cache.evictions() == 1);
  CHECK(cache.bytes() == 300);
  CHECK(admit(5, 2.5));  // already cached
  CHECK(cache.evictions() == 1);
  // Chunks 0 and 2 go unused for more than kStaleSteps steps; 5 stays in use.
  step = ChunkCache::kStaleSteps + 1;
  cache.touch(0, 5, step);
  CHECK(admit(6, 0.1));  // evicts stale chunk 0 (the lowest stale), not fresher 5
  CHECK(cache.find(0, 0) == nullptr);
  CHECK(cache.find(0, 2) != nullptr);
  CHECK(cache.find(0, 5) != nullptr);
  CHECK(cache.evictions() == 2);
}

TEST_CASE("chunk cache: a decoded window goes when one of its chunks is evicted") {
  ChunkCache cache;
  cache.reset({8}, 8 * 100);
  const std::vector<uint8_t> data(100, 1);
  WindowGraph window;
  window.first_chunk = 0;
  window.end_chunk = 3;
  window.offsets = {0, 1};
  window.neighbours = {5};
  // A window whose chunks are not all cached compressed is refused.
  for (uint32_t c = 0; c < 2; ++c) REQUIRE(cache.admit(0, c, data.data(), 100, 1000, 1.0, 0));
  CHECK_FALSE(cache.admit_decoded(0, window, 10000));
  REQUIRE(cache.admit(0, 2, data.data(), 100, 1000, 1.0, 0));
  REQUIRE(cache.admit_decoded(0, window, 10000));
  CHECK(cache.is_decoded(0, 1));
  // Full: a chunk of a higher bin evicts the most recently admitted of the
  // lowest bin (chunk 2), and the window holding it goes too.
  CHECK(cache.admit(0, 5, data.data(), 100, 0, 2.0, 0));
  CHECK(cache.find(0, 2) == nullptr);
  CHECK(cache.find(0, 0) != nullptr);
  for (uint32_t c = 0; c < 3; ++c) CHECK_FALSE(cache.is_decoded(0, c));
  CHECK(cache.decoded_bytes() == 0);
  CHECK(cache.bytes() == 300);
}

TEST_CASE("ingest's automatic choices follow the disks' presets: hdd, ssd and nvme") {
  auto speed = [](const char* device_class) {
    DeviceProfile profile;
    REQUIRE(preset_profile(device_class, &profile).ok());
    return DiskSpeed{profile.sequential_bytes_per_second, profile.latency_seconds()};
  };
  const DiskSpeed hdd = speed("hdd"), ssd = speed("ssd"), nvme = speed("nvme");
  // One slow disk: the fewest bytes, chunks a seek's worth of transfer, a coded spill.
  CHECK(auto_chunk_bytes({hdd}) == 512 * 1024);
  CHECK(auto_gap_choice({hdd}) == GapChoice::kEntropy);
  CHECK_FALSE(auto_direct_io(hdd, {hdd}));
  // Two of them add up past one disk: decoding sets the pace.
  CHECK(auto_gap_choice({hdd, hdd}) == GapChoice::kFast);
  CHECK(auto_chunk_bytes({ssd}) == 256 * 1024);
  CHECK(auto_gap_choice({ssd}) == GapChoice::kFast);
  CHECK_FALSE(auto_direct_io(ssd, {ssd}));
  // Disks that outrun the spill's coder: O_DIRECT, only when all of them do.
  CHECK(auto_direct_io(nvme, {nvme, nvme}));
  CHECK_FALSE(auto_direct_io(nvme, {nvme, hdd}));
  CHECK_FALSE(auto_direct_io(nvme, {}));
  CHECK(auto_chunk_bytes({}) == 256 * 1024);
}

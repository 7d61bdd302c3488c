// Delta runs (shards/format/delta_run.h): random runs read back exactly, a
// key's block is found by the index, and every damaged byte, every
// truncation and every out-of-order arc is refused. An overlay that holds
// runs and tiers as they are (delta_overlay.h) decodes what one merged
// overlay of the same runs says.
#include <doctest/doctest.h>

#include <algorithm>

#include "shards/format/delta_run.h"
#include "shards/format/graph_deltas.h"
#include "shards/format/graph_overlay.h"
#include "shards/format/packed_run.h"
#include "test_util.h"

using namespace sg;

namespace {

std::vector<DeltaArc> random_arcs(uint64_t seed, size_t count, uint32_t vertices, bool weighted) {
  std::vector<DeltaArc> arcs(count);
  for (DeltaArc& a : arcs) {
    a.key = static_cast<uint32_t>(sgtest::next_random(&seed) % vertices);
    a.neighbour = static_cast<uint32_t>(sgtest::next_random(&seed) % vertices);
    a.removed = sgtest::next_random(&seed) % 4 == 0;
    a.weight = weighted && !a.removed ? static_cast<float>(sgtest::next_random(&seed) % 100) / 4 : 1.0f;
  }
  std::stable_sort(arcs.begin(), arcs.end(), delta_before);
  return arcs;
}

std::string write_run(const std::vector<DeltaArc>& arcs, bool weighted, uint32_t block_bytes) {
  DeltaRunWriter writer(weighted, block_bytes);
  for (const DeltaArc& a : arcs) REQUIRE(writer.add(a).ok());
  std::string run;
  REQUIRE(writer.finish(&run).ok());
  return run;
}

// Opens and decodes the whole run; the first error, if any.
Status read_run(const std::string& run, bool weighted, uint32_t vertices, std::vector<DeltaArc>* arcs) {
  DeltaRunReader reader;
  const auto* begin = reinterpret_cast<const uint8_t*>(run.data());
  SG_RETURN_IF_ERROR(reader.open(begin, begin + run.size(), weighted, vertices));
  for (size_t b = 0; b < reader.blocks(); ++b) SG_RETURN_IF_ERROR(reader.decode_block(b, arcs));
  return Status::OK();
}

bool same(const DeltaArc& a, const DeltaArc& b) {
  return a.key == b.key && a.neighbour == b.neighbour && a.removed == b.removed && a.weight == b.weight;
}

}  // namespace

TEST_CASE("delta runs read back exactly, and a key's arcs start in the block the index names") {
  for (const bool weighted : {false, true}) {
    for (const uint32_t block_bytes : {16u, 100u, kDefaultDeltaBlockBytes}) {
      CAPTURE(weighted);
      CAPTURE(block_bytes);
      const std::vector<DeltaArc> arcs = random_arcs(block_bytes + weighted, 3000, 500, weighted);
      const std::string run = write_run(arcs, weighted, block_bytes);
      std::vector<DeltaArc> back;
      REQUIRE(read_run(run, weighted, 500, &back).ok());
      REQUIRE(back.size() == arcs.size());
      CHECK(std::equal(arcs.begin(), arcs.end(), back.begin(), same));
      DeltaRunReader reader;
      const auto* begin = reinterpret_cast<const uint8_t*>(run.data());
      REQUIRE(reader.open(begin, begin + run.size(), weighted, 500).ok());
      CHECK(reader.records() == arcs.size());
      for (const DeltaArc& a : arcs) {
        const size_t b = reader.find_block(a.key);
        REQUIRE(b < reader.blocks());
        CHECK(reader.block(b).first_key <= a.key);
        CHECK((b == 0 || reader.block(b - 1).last_key < a.key || reader.block(b - 1).last_key == a.key));
      }
      CHECK(reader.find_block(500) == reader.blocks());
    }
  }
  std::vector<DeltaArc> none;
  CHECK(read_run(write_run({}, false, 64), false, 1, &none).ok());
  CHECK(none.empty());
}

TEST_CASE("a run packed in memory decodes as stored, packed whole or in slices joined in order") {
  for (const bool weighted : {false, true}) {
    CAPTURE(weighted);
    const std::vector<DeltaArc> arcs = random_arcs(7 + weighted, 3000, 500, weighted);
    const std::string run = write_run(arcs, weighted, 100);
    DeltaRunReader reader;
    const auto* begin = reinterpret_cast<const uint8_t*>(run.data());
    REQUIRE(reader.open(begin, begin + run.size(), weighted, 500).ok());
    REQUIRE(reader.blocks() > 10);
    PackedRun whole;
    REQUIRE(whole.pack(reader, weighted).ok());
    for (const size_t slices : {size_t{1}, size_t{2}, size_t{7}}) {
      CAPTURE(slices);
      std::vector<PackedRun> parts(slices + 1);  // the last one empty
      std::vector<DeltaArc> block_arcs;
      for (size_t s = 0; s <= slices; ++s) {
        const size_t first = reader.blocks() * s / slices,
                     end = std::min(reader.blocks(), reader.blocks() * (s + 1) / slices);
        // No hint, a hint too small (the bytes grow past it), or enough.
        const uint64_t hints[] = {0, 3, 100 * (end - first + 1)};
        parts[s].start(weighted, hints[s % 3]);
        for (size_t b = first; b < end; ++b) {
          block_arcs.clear();
          REQUIRE(reader.decode_block(b, &block_arcs).ok());
          parts[s].add_block(reader.block(b).first_key, reader.block(b).last_key, block_arcs);
        }
        parts[s].finish();
      }
      PackedRun joined;
      joined.join(std::move(parts));
      REQUIRE(joined.ready());
      REQUIRE(joined.blocks() == whole.blocks());
      CHECK(joined.bytes() == whole.bytes());
      std::vector<DeltaArc> from_whole, from_joined;
      for (size_t b = 0; b < whole.blocks(); ++b) {
        whole.decode_block(b, &from_whole);
        joined.decode_block(b, &from_joined);
        CHECK(joined.find_block(whole.block(b).first_key) == whole.find_block(whole.block(b).first_key));
      }
      REQUIRE(from_joined.size() == arcs.size());
      CHECK(std::equal(arcs.begin(), arcs.end(), from_whole.begin(), same));
      CHECK(std::equal(arcs.begin(), arcs.end(), from_joined.begin(), same));
    }
  }
}

TEST_CASE("a damaged or truncated delta run is refused") {
  const std::vector<DeltaArc> arcs = random_arcs(9, 120, 40, true);
  const std::string run = write_run(arcs, true, 64);
  std::vector<DeltaArc> back;
  for (size_t at = 0; at < run.size(); ++at) {
    for (const uint8_t flip : {0x01, 0x80}) {
      std::string bad = run;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      back.clear();
      const Status s = read_run(bad, true, 40, &back);
      CAPTURE(at);
      CHECK(s.code() == Status::Code::kCorruption);
    }
  }
  for (size_t bytes = 0; bytes < run.size(); ++bytes) {
    back.clear();
    CHECK(read_run(run.substr(0, bytes), true, 40, &back).code() == Status::Code::kCorruption);
  }
  back.clear();
  CHECK(read_run(run, true, 39, &back).code() == Status::Code::kCorruption);  // ids beyond a smaller |V|
}

TEST_CASE("a delta run writer refuses arcs out of order") {
  DeltaRunWriter writer(false, 64);
  REQUIRE(writer.add({3, 5, 1.0f, false}).ok());
  CHECK(writer.add({3, 5, 1.0f, false}).ok());  // a duplicate add: a multigraph keeps both
  CHECK(writer.add({3, 5, 1.0f, true}).code() == Status::Code::kInvalidArgument);  // a removal after an add
  CHECK(writer.add({3, 4, 1.0f, false}).code() == Status::Code::kInvalidArgument);
  CHECK(writer.add({2, 9, 1.0f, false}).code() == Status::Code::kInvalidArgument);
  CHECK(writer.add({4, 0, 1.0f, true}).ok());
}

namespace {

std::unique_ptr<DeltaRun> opened_run(const std::vector<DeltaArc>& arcs, bool weighted, uint32_t vertices) {
  std::unique_ptr<DeltaRun> run;
  REQUIRE(open_delta_run(write_run(arcs, weighted, 64), weighted, vertices, "run", &run).ok());
  return run;
}

// The runs as a graph holds them: consecutive runs merged at random into
// tiers (resolved parts), the others left as they are.
std::vector<std::unique_ptr<DeltaRun>> tiered(const std::vector<std::vector<DeltaArc>>& runs, bool weighted, bool dedup,
                                              uint32_t vertices, uint64_t* seed) {
  std::vector<std::unique_ptr<DeltaRun>> held;
  for (size_t first = 0; first < runs.size();) {
    const size_t end = std::min(runs.size(), first + 1 + sgtest::next_random(seed) % 3);
    if (end == first + 1) {
      held.push_back(opened_run(runs[first], weighted, vertices));
    } else {
      std::vector<std::unique_ptr<DeltaRun>> group;
      for (size_t r = first; r < end; ++r) group.push_back(opened_run(runs[r], weighted, vertices));
      DeltaOverlay tier;
      REQUIRE(build_delta_overlay(group, weighted, dedup, vertices, &tier).ok());
      std::unique_ptr<DeltaRun> run;
      REQUIRE(open_delta_run(std::string(tier.parts[0]->run.view()), weighted, vertices, "tier", &run).ok());
      run->tier = true;
      held.push_back(std::move(run));
    }
    first = end;
  }
  return held;
}

}  // namespace

TEST_CASE("an overlay of runs and tiers as stored decodes what one merged overlay of them says") {
  constexpr uint32_t kVertices = 50;
  uint64_t seed = 17;
  for (int round = 0; round < 60; ++round) {
    const bool weighted = round % 2 == 1, dedup = round % 4 >= 2;
    CAPTURE(round);
    std::vector<std::vector<DeltaArc>> runs(1 + sgtest::next_random(&seed) % 6);
    for (auto& run : runs) {
      run = random_arcs(sgtest::next_random(&seed), 200, kVertices, weighted);
      if (round % 3 == 0) std::erase_if(run, [](const DeltaArc& a) { return a.removed; });  // adds alone
    }
    std::vector<std::unique_ptr<DeltaRun>> all;
    for (const auto& run : runs) all.push_back(opened_run(run, weighted, kVertices));
    DeltaOverlay merged, held;
    REQUIRE(build_delta_overlay(all, weighted, dedup, kVertices, &merged).ok());
    REQUIRE(
        open_delta_overlay(tiered(runs, weighted, dedup, kVertices, &seed), weighted, dedup, kVertices, &held).ok());
    if (round % 8 < 4) REQUIRE(held.pack_parts().ok());  // re-coded in memory, as a run holds them
    for (int range = 0; range < 20; ++range) {
      const uint32_t first = static_cast<uint32_t>(sgtest::next_random(&seed) % kVertices);
      const uint32_t end = first + 1 + static_cast<uint32_t>(sgtest::next_random(&seed) % (kVertices - first));
      const uint32_t active = static_cast<uint32_t>(sgtest::next_random(&seed) % kVertices);
      auto wanted = [&](uint32_t lo, uint32_t hi) { return lo <= active && active < hi; };
      std::vector<DeltaArc> expected, got, expected_active, got_active;
      REQUIRE(merged.decode_keys(first, end, &expected).ok());
      REQUIRE(held.decode_keys(first, end, &got).ok());
      REQUIRE(got.size() == expected.size());
      CHECK(std::equal(expected.begin(), expected.end(), got.begin(), same));
      // A sparse decode: the active key's records are whole.
      REQUIRE(merged.decode_keys(first, end, &expected_active, wanted).ok());
      REQUIRE(held.decode_keys(first, end, &got_active, wanted).ok());
      auto of_active = [&](const DeltaArc& a) { return a.key != active; };
      std::erase_if(expected_active, of_active);
      std::erase_if(got_active, of_active);
      REQUIRE(got_active.size() == expected_active.size());
      CHECK(std::equal(expected_active.begin(), expected_active.end(), got_active.begin(), same));
    }
    CHECK(held.part_removals >= merged.removals);
  }
}

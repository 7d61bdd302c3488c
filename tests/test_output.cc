// Result files in original-id order whatever the order the values come in:
// the out-of-core sort of result lines (apps/harness/id_sorted_lines.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "apps/harness/id_sorted_lines.h"
#include "test_util.h"

using namespace sg;

TEST_CASE("sorted result lines: many spilled runs merge into increasing ids, repeated ids in arrival order") {
  sgtest::TempDir dir;
  uint64_t state = 3;
  std::multimap<uint64_t, std::string> expected;
  IdSortedLines sorted(dir / "scratch", 0);  // the least run (1 MiB): several runs
  for (int i = 0; i < 200000; ++i) {
    const uint64_t id = sgtest::next_random(&state) % 150000;  // some ids twice
    const std::string text = std::to_string(i) + (i % 7 == 0 ? " x" : "");
    expected.emplace(id, text);
    REQUIRE(sorted.add(id, text).ok());
  }
  const std::string path = dir / "out.txt";
  {
    std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
    REQUIRE(sorted.finish(out.get()).ok());
  }
  CHECK(sorted.runs() >= 3);
  std::string want;
  for (const auto& [id, text] : expected) want += std::to_string(id) + " " + text + "\n";
  CHECK(sgtest::read_text(path) == want);
  // The scratch file had no name: nothing is left beside the output.
  CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{"out.txt"});
  CHECK_FALSE(sorted.add(1, std::string(300, 'x')).ok());
}

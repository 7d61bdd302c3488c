#include "powercut/crash_states.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"

namespace sgtest {
namespace {

namespace fs = std::filesystem;
constexpr size_t kPageBytes = 4096;
constexpr int kMaxDepth = 32;  // a tree deeper than any writer's: a log that loops

Tree parse_tree(const nlohmann::json& event) {
  Tree tree;
  for (const auto& [key, entries] : event.at("dirs").items()) {
    std::vector<TreeEntry>& list = tree.dirs[key];
    for (const auto& e : entries) list.push_back({e.at(0).get<std::string>(), e.at(1).get<std::string>(), e.at(2)});
  }
  for (const auto& [key, blob] : event.at("files").items()) tree.files[key] = blob.get<std::string>();
  return tree;
}

// The durable tree after `point`: a sync makes one file's bytes or one
// directory's entries durable; at start everything is.
void apply_sync(const SyncPoint& point, Tree* durable) {
  if (point.kind == "initial") {
    *durable = point.now;
  } else if (point.kind == "sync" && point.synced_dir) {
    const auto it = point.now.dirs.find(point.synced);
    if (it != point.now.dirs.end()) durable->dirs[point.synced] = it->second;
  } else if (point.kind == "sync") {
    const auto it = point.now.files.find(point.synced);
    if (it != point.now.files.end()) durable->files[point.synced] = it->second;
  }
}

std::string read_blob(const std::string& log_dir, const std::string& blob) {
  if (blob.empty()) return "";
  std::ifstream in(log_dir + "/blobs/" + blob, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "power-cut log: missing blob " << blob);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string blob_of(const std::map<std::string, std::string>& files, const std::string& key) {
  const auto it = files.find(key);
  return it == files.end() ? "" : it->second;
}

// A torn file: its length from one version, each 4 KiB page from either.
std::string torn_bytes(const std::string& before, const std::string& after, uint64_t* rng) {
  const size_t bytes = next_random(rng) % 2 == 0 ? before.size() : after.size();
  std::string out(bytes, '\0');
  for (size_t page = 0; page < bytes; page += kPageBytes) {
    const std::string& from = next_random(rng) % 2 == 0 ? before : after;
    if (page < from.size())
      from.copy(out.data() + page, std::min(kPageBytes, std::min(bytes, from.size()) - page), page);
  }
  return out;
}

struct StateBuilder {
  const std::string& log_dir;
  const SyncPoint& point;
  CrashVariant variant;
  uint64_t rng;

  std::vector<TreeEntry> entries(const std::string& key) {
    const auto d = point.durable.dirs.find(key);
    const auto n = point.now.dirs.find(key);
    const std::vector<TreeEntry> none;
    const std::vector<TreeEntry>& durable = d == point.durable.dirs.end() ? none : d->second;
    const std::vector<TreeEntry>& now = n == point.now.dirs.end() ? durable : n->second;
    if (variant == CrashVariant::kDropped) return durable;
    if (variant == CrashVariant::kLanded) return now;
    std::map<std::string, std::pair<const TreeEntry*, const TreeEntry*>> by_name;
    for (const TreeEntry& e : durable) by_name[e.name].first = &e;
    for (const TreeEntry& e : now) by_name[e.name].second = &e;
    std::vector<TreeEntry> mixed;
    for (const auto& [name, pair] : by_name) {
      const TreeEntry* chosen = next_random(&rng) % 2 == 0 ? pair.first : pair.second;
      if (chosen != nullptr) mixed.push_back(*chosen);
    }
    return mixed;
  }

  std::string bytes(const std::string& key) {
    const std::string durable_blob = blob_of(point.durable.files, key);
    const std::string now_blob = point.now.files.count(key) != 0 ? blob_of(point.now.files, key) : durable_blob;
    if (variant == CrashVariant::kDropped) return read_blob(log_dir, durable_blob);
    if (variant == CrashVariant::kLanded || now_blob == durable_blob) return read_blob(log_dir, now_blob);
    return torn_bytes(read_blob(log_dir, durable_blob), read_blob(log_dir, now_blob), &rng);
  }

  void build(const std::string& key, const std::string& path, int depth) {
    REQUIRE_MESSAGE(depth < kMaxDepth, "power-cut log: directories nest too deep at " << path);
    for (const TreeEntry& e : entries(key)) {
      const std::string child = path + "/" + e.name;
      if (e.is_dir) {
        fs::create_directory(child);
        build(e.key, child, depth + 1);
      } else {
        std::ofstream out(child, std::ios::binary);
        out << bytes(e.key);
      }
    }
  }
};

}  // namespace

std::vector<SyncPoint> read_sync_points(const std::string& log_dir) {
  std::ifstream in(log_dir + "/events.jsonl");
  REQUIRE_MESSAGE(in.good(), "power-cut log: no " << log_dir << "/events.jsonl (was the recorder preloaded?)");
  std::vector<SyncPoint> points;
  Tree durable;
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json event = nlohmann::json::parse(line);
    SyncPoint point;
    point.kind = event.at("kind");
    point.synced = event.at("synced");
    point.synced_dir = event.at("synced_dir");
    point.root = event.at("root");
    point.now = parse_tree(event);
    apply_sync(point, &durable);
    point.durable = durable;
    points.push_back(std::move(point));
  }
  REQUIRE_MESSAGE(points.size() >= 2, "power-cut log: fewer than two points");
  REQUIRE(points.front().kind == "initial");
  REQUIRE(points.back().kind == "final");
  return points;
}

void build_crash_state(const std::string& log_dir, const SyncPoint& point, CrashVariant variant, uint64_t seed,
                       const std::string& root) {
  for (const auto& entry : fs::directory_iterator(root)) fs::remove_all(entry.path());
  StateBuilder builder{log_dir, point, variant, seed * 0x9e3779b97f4a7c15ULL + 1};
  builder.build(point.root, root, 0);
}

PowerCutReport check_power_cuts(const std::string& log_dir, const std::string& root, const GraphReader& reader,
                                bool keep_old, int torn_seeds, double sample) {
  const std::vector<SyncPoint> points = read_sync_points(log_dir);
  std::string old_dump, new_dump, error;
  build_crash_state(log_dir, points.front(), CrashVariant::kLanded, 0, root);
  const bool had_old = reader(root, &old_dump, &error);
  build_crash_state(log_dir, points.back(), CrashVariant::kLanded, 0, root);
  REQUIRE_MESSAGE(reader(root, &new_dump, &error), "the writer's own result does not read: " << error);
  PowerCutReport report;
  uint64_t rng = 17;
  for (size_t p = 0; p < points.size(); ++p) {
    const bool last = p + 1 == points.size();
    if (!last && static_cast<double>(next_random(&rng) % 1000000) >= sample * 1e6) continue;
    for (int v = -2; v < torn_seeds; ++v) {
      const CrashVariant variant = v == -2   ? CrashVariant::kDropped
                                   : v == -1 ? CrashVariant::kLanded
                                             : CrashVariant::kTorn;
      build_crash_state(log_dir, points[p], variant, static_cast<uint64_t>(v + 2), root);
      std::string dump;
      const bool read = reader(root, &dump, &error);
      ++report.states;
      INFO("sync point " << p << " of " << points.size() << " (" << points[p].kind << "), variant " << v + 2);
      if (!read) {
        ++report.refused;
        CHECK_MESSAGE(error.find('\n') == std::string::npos, "a refusal of more than one line: " << error);
        CHECK_MESSAGE(!error.empty(), "a refusal without a reason");
        CHECK_MESSAGE(!(keep_old && had_old), "the old graph was lost: " << error);
        CHECK_MESSAGE(!(last && variant == CrashVariant::kDropped), "a finished write was not durable: " << error);
        continue;
      }
      const bool is_new = dump == new_dump;
      report.new_graph += is_new ? 1 : 0;
      report.old_graph += !is_new && had_old && dump == old_dump ? 1 : 0;
      CHECK_MESSAGE((is_new || (had_old && dump == old_dump)), "a graph that verifies yet is neither old nor new");
      CHECK_MESSAGE(!(last && variant == CrashVariant::kDropped && !is_new), "a finished write was not durable");
    }
  }
  return report;
}

}  // namespace sgtest

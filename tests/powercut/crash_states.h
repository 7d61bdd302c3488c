// The power-cut simulator's checker. It reads the log the recorder
// (sync_recorder.cc) wrote while a writer ran, and rebuilds, at each sync
// point, the disk states a power cut could leave there:
//   dropped: only what was synced (a file's bytes at its last fsync, a
//            directory's entries at its last fsync; at start, all);
//   landed:  everything written so far;
//   torn:    each directory entry and each 4 KiB page of a file from either
//            (at random), and a file's length from either.
// The model follows the one LevelDB's fault-injection Env and CrashMonkey
// use: a file's data and a directory's entries are durable only once synced.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sgtest {

struct TreeEntry {
  std::string name;
  std::string key;  // the file's identity (inode and birth time)
  bool is_dir = false;
};

// The tree under the root: each directory's entries and each file's blob.
struct Tree {
  std::map<std::string, std::vector<TreeEntry>> dirs;
  std::map<std::string, std::string> files;
};

struct SyncPoint {
  std::string kind;  // "initial", "sync" or "final"
  std::string synced;
  bool synced_dir = false;
  std::string root;
  Tree now;      // as written when the sync returned
  Tree durable;  // what the syncs so far made durable
};

// The recorder's log in `log_dir`, with each point's durable tree; an
// unreadable log fails the test.
std::vector<SyncPoint> read_sync_points(const std::string& log_dir);

enum class CrashVariant { kDropped, kLanded, kTorn };

// Replaces everything under `root` (the directory the writer ran in) with
// the state `variant` of `point`; `seed` picks a torn state.
void build_crash_state(const std::string& log_dir, const SyncPoint& point, CrashVariant variant, uint64_t seed,
                       const std::string& root);

// What a reader makes of a state under `root`: true and a canonical text
// of the graph, or false and the reason.
using GraphReader = std::function<bool(const std::string& root, std::string* dump, std::string* error)>;

struct PowerCutReport {
  uint64_t states = 0;
  uint64_t refused = 0;
  uint64_t old_graph = 0;
  uint64_t new_graph = 0;
};

// Builds every crash state of the logged run (`torn_seeds` torn ones a sync
// point; sync points sampled with probability `sample`) and checks each:
// it reads as the old graph or the new one, or is refused with one line;
// with `keep_old`, never refused when an old graph existed. The state left
// when the writer returned, only what was synced, must read as the new graph.
PowerCutReport check_power_cuts(const std::string& log_dir, const std::string& root, const GraphReader& reader,
                                bool keep_old, int torn_seeds, double sample);

}  // namespace sgtest

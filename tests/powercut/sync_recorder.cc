// The power-cut simulator's recorder: an LD_PRELOAD library that wraps
// fsync and fdatasync. When SG_POWERCUT_ROOT and SG_POWERCUT_LOG are set it
// writes, at start, after every sync of a file or directory under the root,
// and at exit, the whole tree under the root: each directory's entries and
// each file's bytes (stored once by hash). From that log the checker
// (tests/powercut/crash_states.h) builds what a power cut could leave at
// each sync point: synced data kept, the rest dropped, kept or torn.
//
// It watches syncs, not writes, so it sees every write path (pwrite,
// io_uring, O_DIRECT): what a sync made durable is the file as it stands
// when the sync returns. Files are named by inode and birth time, so a
// rename keeps a file's identity and a reused inode number does not.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Recorder {
  std::string root;
  std::string log_dir;
  FILE* events = nullptr;
  uint64_t seq = 0;
  std::set<std::string> stored_blobs;
  std::mutex mutex;
};

Recorder* recorder() {
  static Recorder* instance = [] {
    const char* root = std::getenv("SG_POWERCUT_ROOT");
    const char* log = std::getenv("SG_POWERCUT_LOG");
    if (root == nullptr || log == nullptr) return static_cast<Recorder*>(nullptr);
    auto* r = new Recorder;
    r->root = fs::canonical(root).string();
    r->log_dir = log;
    fs::create_directories(r->log_dir + "/blobs");
    r->events = std::fopen((r->log_dir + "/events.jsonl").c_str(), "a");
    return r->events != nullptr ? r : static_cast<Recorder*>(nullptr);
  }();
  return instance;
}

// A file's identity across renames: inode and birth time.
bool identity_of(const std::string& path, std::string* key, bool* is_dir) {
  struct statx st {};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_TYPE | STATX_BTIME, &st) != 0)
    return false;
  *is_dir = S_ISDIR(st.stx_mode);
  const uint64_t born_ns = (st.stx_mask & STATX_BTIME) != 0
                               ? static_cast<uint64_t>(st.stx_btime.tv_sec) * 1000000000ULL + st.stx_btime.tv_nsec
                               : 0;
  *key = std::to_string(st.stx_ino) + "." + std::to_string(born_ns);
  return S_ISDIR(st.stx_mode) || S_ISREG(st.stx_mode);
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

uint64_t fnv1a(const std::string& bytes) {
  uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

// Stores the file's bytes under their hash; returns the hash ("" if gone).
std::string store_blob(Recorder* r, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string content = bytes.str();
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx.%zu", static_cast<unsigned long long>(fnv1a(content)), content.size());
  if (r->stored_blobs.insert(name).second) {
    std::ofstream out(r->log_dir + "/blobs/" + name, std::ios::binary);
    out << content;
  }
  return name;
}

// Appends the directory `path` (key `key`) and everything below it.
void write_tree(Recorder* r, const std::string& path, const std::string& key, std::string* dirs, std::string* files) {
  std::error_code ec;
  std::string entries;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string child = it->path().string();
    std::string child_key;
    bool child_is_dir = false;
    if (!identity_of(child, &child_key, &child_is_dir)) continue;  // gone, or not a file
    if (!entries.empty()) entries += ",";
    entries += "[" + json_string(it->path().filename().string()) + "," + json_string(child_key) + "," +
               (child_is_dir ? "true" : "false") + "]";
    if (child_is_dir) {
      write_tree(r, child, child_key, dirs, files);
    } else {
      const std::string blob = store_blob(r, child);
      if (!blob.empty())
        *files += std::string(files->empty() ? "" : ",") + json_string(child_key) + ":" + json_string(blob);
    }
  }
  *dirs += std::string(dirs->empty() ? "" : ",") + json_string(key) + ":[" + entries + "]";
}

void record(const char* kind, const std::string& synced_key, bool synced_dir) {
  Recorder* r = recorder();
  if (r == nullptr) return;
  std::lock_guard<std::mutex> lock(r->mutex);
  std::string root_key;
  bool root_is_dir = false;
  if (!identity_of(r->root, &root_key, &root_is_dir)) return;
  std::string dirs, files;
  write_tree(r, r->root, root_key, &dirs, &files);
  std::fprintf(r->events, "{\"seq\":%llu,\"kind\":\"%s\",\"synced\":%s,\"synced_dir\":%s,\"root\":%s,",
               static_cast<unsigned long long>(r->seq++), kind, json_string(synced_key).c_str(),
               synced_dir ? "true" : "false", json_string(root_key).c_str());
  std::fprintf(r->events, "\"dirs\":{%s},\"files\":{%s}}\n", dirs.c_str(), files.c_str());
  std::fflush(r->events);
}

// After a successful sync of `fd`: a sync point when the file is under the root.
void after_sync(int fd) {
  Recorder* r = recorder();
  if (r == nullptr) return;
  char target[4096];
  const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof(target) - 1);
  if (n <= 0) return;
  const std::string path(target, static_cast<size_t>(n));
  if (path.compare(0, r->root.size(), r->root) != 0) return;
  if (path.size() > r->root.size() && path[r->root.size()] != '/') return;
  std::string key;
  bool is_dir = false;
  if (!identity_of(path, &key, &is_dir)) return;
  record("sync", key, is_dir);
}

template <typename Fn>
Fn real(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

__attribute__((constructor)) void at_start() { record("initial", "", false); }
__attribute__((destructor)) void at_exit() { record("final", "", false); }

}  // namespace

extern "C" int fsync(int fd) {
  static const auto next = real<int (*)(int)>("fsync");
  const int rc = next(fd);
  if (rc == 0) after_sync(fd);
  return rc;
}

extern "C" int fdatasync(int fd) {
  static const auto next = real<int (*)(int)>("fdatasync");
  const int rc = next(fd);
  if (rc == 0) after_sync(fd);
  return rc;
}

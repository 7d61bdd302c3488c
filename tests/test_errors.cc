// Bad input and damaged graphs: one clear error line, a non-zero exit, and
// nothing left behind that looks like a graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "apps/jobs/ingest_ordered.h"
#include "scheduler/device_profile.h"
#include "shards/format/graph.h"
#include "shards/format/verify.h"
#include "test_util.h"

using namespace sg;

namespace {

// Runs an ingest expected to fail; checks exit code, message and that the
// directory holds only `input` afterwards.
void expect_ingest_error(const std::string& name, const std::string& text, const std::string& extra_args,
                         const std::string& message, int exit_code = 2) {
  CAPTURE(name);
  sgtest::TempDir dir;
  sgtest::write_text(dir / name, text);
  std::string output;
  const int rc = sgtest::run_cli("ingest " + (dir / name) + " -o " + (dir / "g") + " " + extra_args, &output);
  CHECK(rc == exit_code);
  CHECK_MESSAGE(output.find(message) != std::string::npos, output);
  CHECK(std::count(output.begin(), output.end(), '\n') == 1);  // one line
  CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{name});
}

}  // namespace

TEST_CASE("malformed text input names file and line, leaves nothing") {
  expect_ingest_error("bad.txt", "0 1\n1 2\n2 x\n", "", "bad.txt:3: invalid destination vertex id 'x'");
  expect_ingest_error("neg.txt", "# c\n0 -1\n", "", "neg.txt:2: invalid destination vertex id '-1'");
  expect_ingest_error("cols.txt", "0 1\n0 1 2 3\n", "", "cols.txt:2: expected 'src dst [weight]'");
  expect_ingest_error("mixed.txt", "0 1\n0 1 2\n", "", "mixed.txt:2: has 3 fields but line 1 has 2");
  expect_ingest_error("w.txt", "0 1 abc\n", "", "w.txt:1: invalid weight 'abc'");
  expect_ingest_error("big.txt", "0 4294967295\n", "--no-remap", "big.txt:1: vertex id 4294967295");
  expect_ingest_error("empty.txt", "# nothing\n", "", "holds no edges");
}

TEST_CASE("malformed matrix market and binary input") {
  expect_ingest_error("a.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "",
                      "a.mtx:1: only 'coordinate'");
  expect_ingest_error("b.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n", "",
                      "b.mtx:3: file ends after 1 of 2 entries");
  expect_ingest_error("c.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n", "",
                      "c.mtx:3: index outside the 3 x 3 matrix");
  expect_ingest_error("d.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", "",
                      "d.mtx:4: more entries than the header declares");
  expect_ingest_error("e.bin32", std::string("\0\0\0\0\1\0\0\0\2\0", 10), "", "e.bin32: record 2: truncated");
  // Ids are checked a batch at a time; the first record past the limit is named.
  expect_ingest_error("f.bin32", std::string("\0\0\0\0\1\0\0\0\2\0\0\0\xff\xff\xff\xff\3\0\0\0\xff\xff\xff\xff", 24),
                      "--no-remap", "f.bin32: record 2: vertex id 4294967295");
}

TEST_CASE("malformed DIMACS input") {
  expect_ingest_error("a.gr", "c x\na 1 2 3\n", "", "a.gr:2: an arc before the 'p sp N M' line");
  expect_ingest_error("b.gr", "p sp 3 2\na 1 2 3\n", "", "b.gr:2: file ends after 1 of 2 arcs");
  expect_ingest_error("c.gr", "p sp 3 1\na 1 4 3\n", "", "c.gr:2: vertex outside 1..3");
  expect_ingest_error("d.gr", "p sp 3 1\na 1 2\n", "", "d.gr:2: expected 'a u v w'");
  expect_ingest_error("e.gr", "p max 3 1\n", "", "e.gr:1: expected 'p sp N M'");
  expect_ingest_error("f.gr", "p sp 3 1\na 1 2 1\na 2 3 1\n", "", "f.gr:3: more arcs than the 'p' line declares");
}

TEST_CASE("a truncated or corrupt zstd input is refused") {
  sgtest::TempDir dir;
  std::string text;
  for (int i = 1; i <= 100000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  // With a content checksum, as the zstd command line writes by default.
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1);
  std::string whole(ZSTD_compressBound(text.size()), '\0');
  whole.resize(ZSTD_compress2(context, whole.data(), whole.size(), text.data(), text.size()));
  ZSTD_freeCCtx(context);
  std::string flipped = whole;
  flipped[whole.size() / 2] ^= 0x10;
  for (const auto& [case_name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"half", whole.substr(0, whole.size() / 2)}, {"flipped", flipped}}) {
    const std::string& name = case_name;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(name);
    sgtest::TempDir work;
    sgtest::write_text(work / "t.zst", bytes);
    std::string output;
    CHECK(sgtest::run_cli("ingest " + (work / "t.zst") + " -o " + (work / "g"), &output) == 2);
    CHECK_MESSAGE(output.find("zstd stream") != std::string::npos, output);
    CHECK(std::count(output.begin(), output.end(), '\n') == 1);
    CHECK(sgtest::list_dir(work.path()) == std::vector<std::string>{"t.zst"});
  }
}

TEST_CASE("missing device directory, existing output and bad options are clear errors") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "g.txt", "0 1\n");
  std::string output;
  CHECK(sgtest::run_cli("ingest " + (dir / "g.txt") + " -o " + (dir / "g") + " --device " + (dir / "nope"), &output) ==
        1);
  CHECK(output.find("nope: device directory does not exist") != std::string::npos);
  CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{"g.txt"});

  std::filesystem::create_directory(dir / "g");
  CHECK(sgtest::run_cli("ingest " + (dir / "g.txt") + " -o " + (dir / "g"), &output) == 2);
  CHECK(output.find("already exists") != std::string::npos);
  CHECK(sgtest::list_dir(dir / "g").empty());  // untouched

  CHECK(sgtest::run_cli("ingest " + (dir / "g.txt") + " -o " + (dir / "h") + " --memory 12Q", &output) == 2);
  CHECK(output.find("--memory") != std::string::npos);
  // A missing input, a directory or a path that is no graph: input errors.
  CHECK(sgtest::run_cli("ingest " + (dir / "missing.txt") + " -o " + (dir / "h"), &output) == 2);
  CHECK(output.find("missing.txt") != std::string::npos);
  CHECK(sgtest::run_cli("ingest " + (dir / "g") + " -o " + (dir / "h"), &output) == 2);
  CHECK(output.find("is a directory") != std::string::npos);
  CHECK(sgtest::run_cli("info " + (dir / "g"), &output) == 2);
  CHECK(output.find("not a graph") != std::string::npos);
  CHECK(sgtest::run_cli("frobnicate", &output) == 2);
}

TEST_CASE("a flipped byte in a chunk is reported by verify and by readers") {
  sgtest::TempDir dir;
  std::string edges;
  for (int i = 0; i < 3000; ++i) edges += std::to_string(i % 97) + " " + std::to_string((i * 31) % 89) + "\n";
  sgtest::write_text(dir / "g.txt", edges);
  sgtest::ingest_on_devices(dir, "g.txt", "--chunk-bytes 256 --stripe-bytes 4K", 2);
  std::string output;
  REQUIRE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
  CHECK(output.find("ok:") != std::string::npos);

  Graph g;
  REQUIRE(Graph::open(dir / "g", &g).ok());
  // Flips one byte in the middle of chunk 2 of `space`; returns the device file it is in.
  auto flip_byte_in_chunk_2 = [&](const EdgeSpace& space) {
    REQUIRE(space.index.size() > 3);
    const uint64_t logical = space.index[2].offset + space.index[2].bytes / 2;
    const std::string path = space.device_paths[g.layout().device_of(logical)];
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(g.layout().device_offset_of(logical)));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x40);
    f.seekp(static_cast<std::streamoff>(g.layout().device_offset_of(logical)));
    f.write(&c, 1);
    return path;
  };
  const EdgeSpace& in = g.space(SpaceKind::kIn);
  const std::string path = flip_byte_in_chunk_2(in);
  CHECK(sgtest::run_cli("verify " + (dir / "g"), &output) == 1);
  CHECK_MESSAGE(output.find("chunk 2 of in") != std::string::npos, output);
  CHECK_MESSAGE(output.find(path) != std::string::npos, output);
  CHECK(output.find("checksum mismatch") != std::string::npos);
  std::vector<uint8_t> payload(in.index[2].bytes);
  Status s = g.read_chunk(SpaceKind::kIn, 2, payload.data());
  CHECK(s.code() == Status::Code::kCorruption);

  // Re-ingesting the graph reads its out-space back in windows of chunks:
  // a flipped byte there is named too, and no graph is left.
  flip_byte_in_chunk_2(g.space(SpaceKind::kOut));
  CHECK(sgtest::run_cli("ingest " + (dir / "g") + " --format graph -o " + (dir / "g2"), &output) != 0);
  CHECK_MESSAGE(output.find("chunk 2 of out") != std::string::npos, output);
  CHECK(output.find("checksum mismatch") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "g2"));
}

TEST_CASE("damaged metadata and missing device files stop the open") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "g.txt", "0 1\n1 2\n");
  sgtest::ingest_on_devices(dir, "g.txt", "", 1);
  std::string output;
  {
    std::fstream f(dir / "g/out.degrees", std::ios::in | std::ios::out | std::ios::binary);
    f.put('\x7f');
  }
  CHECK(sgtest::run_cli("info " + (dir / "g"), &output) == 1);
  CHECK(output.find("out.degrees: checksum mismatch") != std::string::npos);

  REQUIRE(sgtest::run_cli("ingest " + (dir / "g.txt") + " -o " + (dir / "h") + " --device " + (dir / "d0"), &output) ==
          0);
  Graph h;
  REQUIRE(Graph::open(dir / "h", &h).ok());
  std::filesystem::remove(h.space(SpaceKind::kIn).device_paths[0]);
  CHECK(sgtest::run_cli("verify " + (dir / "h"), &output) == 1);
  CHECK(output.find("is missing") != std::string::npos);
}

TEST_CASE("out-of-core ingest: budget a quarter or half of the input, RSS near the budget, on a fast and a slow disk") {
  sgtest::TempDir dir;
  std::string output;
  // 2^17 vertices x 32 = 4M edges = 32 MiB of bin32 input.
  REQUIRE(sgtest::run_cli("generate rmat --scale 17 --edge-factor 32 --seed 5 -o " + (dir / "e.bin32"), &output) == 0);
  // The process's fixed cost (binary, libraries) measured on a no-op.
  auto peak_kib = [](const std::string& text) {
    const size_t at = text.find("peak RSS ");
    REQUIRE(at != std::string::npos);
    return std::stoull(text.substr(at + 9)) * 1024;
  };
  REQUIRE(sgtest::run_cli("--help", &output, "SHARDGRAPH_REPORT_RSS=1") == 0);
  const uint64_t idle_rss = peak_kib(output);
  // The spill's form follows the disk: direct I/O on a fast one, entropy
  // coded on an HDD, where chunks are also packed and entropy coded: their
  // coders' fixed 4 MiB a thread (space_build_thread_bytes) take the budget
  // to 16 MiB there. The profiles are given, not probed: a busy disk probes
  // slow.
  const std::pair<std::string, uint64_t> cases[] = {{dir / "nvme", 8}, {dir / "hdd", 16}};
  for (const auto& [device_dir, budget_mib] : cases) {
    DeviceProfile profile;
    REQUIRE(preset_profile(device_dir.substr(device_dir.rfind('/') + 1), &profile).ok());
    std::filesystem::create_directories(device_dir);
    sgtest::write_text(device_dir + "/" + kProfileFileName, profile.to_json());
  }
  for (const auto& [device_dir, budget_mib] : cases) {
    const std::string& device = device_dir;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(device);
    const std::string out = device + "/g";
    const std::string memory = " --memory " + std::to_string(budget_mib) + "M";
    REQUIRE(sgtest::run_cli("ingest " + (dir / "e.bin32") + " -o " + out + memory, &output) == 0);
    const uint64_t rss = peak_kib(output);
    const uint64_t budget = budget_mib << 20;
    MESSAGE("peak RSS " << rss / 1024 << " KiB, idle " << idle_rss / 1024 << " KiB, budget " << budget / 1024
                        << " KiB");
#ifndef SHARDGRAPH_SANITIZED  // sanitizer shadow memory is not the engine's
    CHECK(rss <= idle_rss + budget + budget / 2);
#endif
    Graph g;
    REQUIRE(Graph::open(out, &g).ok());
    CHECK(g.manifest().ingest.sorted_runs >= 8);
    CHECK(g.manifest().num_edges == 4u << 20);
    VerifyReport report;
    CHECK(verify_graph(g, &report).ok());
  }
}

TEST_CASE("a truncated or corrupt gzip input is refused, not ingested in part") {
  sgtest::TempDir dir;
  std::string text;
  for (int i = 1; i <= 200000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  {
    gzFile f = gzopen((dir / "f.gz").c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
    gzclose(f);
  }
  const std::string whole = sgtest::read_text(dir / "f.gz");
  std::string flipped = whole;
  flipped[whole.size() / 2] ^= 0x10;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"half", whole.substr(0, whole.size() / 2)},
      {"no-trailer", whole.substr(0, whole.size() - 8)},
      {"half-trailer", whole.substr(0, whole.size() - 4)},
      {"flipped", flipped},
  };
  for (const auto& [case_name, bytes] : cases) {
    const std::string& name = case_name;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(name);
    sgtest::TempDir work;
    sgtest::write_text(work / "t.gz", bytes);
    std::string output;
    CHECK(sgtest::run_cli("ingest " + (work / "t.gz") + " -o " + (work / "g"), &output) == 2);
    CHECK_MESSAGE(output.find("t.gz: truncated or corrupt gzip stream") != std::string::npos, output);
    CHECK(std::count(output.begin(), output.end(), '\n') == 1);
    CHECK(sgtest::list_dir(work.path()) == std::vector<std::string>{"t.gz"});
  }
  std::string output;
  CHECK(sgtest::run_cli("ingest " + (dir / "f.gz") + " -o " + (dir / "g"), &output) == 0);
}

TEST_CASE(
    "a sparse or wide id space is remapped by default and said so, refused with --no-remap, and --remap always maps") {
  for (const std::string text : {"1 2\n4294967294 3\n", "1 2\n50000000 3\n", "1 2\n5000000000 3\n"}) {
    CAPTURE(text);
    const bool wide = text.find("5000000000") != std::string::npos;
    expect_ingest_error("sparse.txt", text, "--memory 64M --no-remap",
                        wide ? "does not fit 32-bit dense ids" : "the id space is sparse; ingest without --no-remap");
    for (const std::string flag : {"", " --remap"}) {
      sgtest::TempDir dir;
      sgtest::write_text(dir / "sparse.txt", text);
      std::string output;
      REQUIRE(sgtest::run_cli("ingest " + (dir / "sparse.txt") + " -o " + (dir / "g") + flag + " --memory 64M",
                              &output) == 0);
      CHECK((output.find("ids remapped to dense ones") != std::string::npos) == flag.empty());
      Graph g;
      REQUIRE(Graph::open(dir / "g", &g).ok());
      CHECK(g.num_vertices() == 4);
      uint32_t v = 0;
      CHECK(g.dense_id(wide ? 5000000000ull : text[4] == '4' ? 4294967294ull : 50000000ull, &v));
      CHECK(sgtest::list_dir(dir.path()).size() == 2);  // the graph and its input: the first attempt left nothing
    }
  }
}

TEST_CASE("an edited manifest is refused by every reader: its checksum, and the index against it") {
  sgtest::TempDir dir;
  std::string text;
  uint64_t state = 3;
  for (int i = 0; i < 4000; ++i)
    text += std::to_string(sgtest::next_random(&state) % 900) + " " +
            std::to_string(sgtest::next_random(&state) % 900) + "\n";
  sgtest::write_text(dir / "e.txt", text);
  std::string output;
  REQUIRE(sgtest::run_cli(
              "ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --intervals 3 --chunk-bytes 1K --order none",
              &output) == 0);
  const std::string manifest = sgtest::read_text(dir / "g/manifest.json");
  auto replaced = [&](const std::string& from, const std::string& to) {
    const size_t at = manifest.find(from);
    REQUIRE(at != std::string::npos);
    return manifest.substr(0, at) + to + manifest.substr(at + from.size());
  };
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"id_base", replaced("\"id_base\": 0", "\"id_base\": 5")},
      {"num_edges", replaced("\"num_edges\": 4000", "\"num_edges\": 3999")},
      {"intervals", replaced("\"interval_starts\": [\n  0,", "\"interval_starts\": [\n  0,\n  1,")},
  };
  for (const auto& [edit_name, edited] : edits) {
    const std::string& name = edit_name;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(name);
    sgtest::write_text(dir / "g/manifest.json", edited);
    for (const std::string command : {"info ", "verify ", "run bfs ", "run pagerank "}) {
      CAPTURE(command);
      CHECK(sgtest::run_cli(command + (dir / "g"), &output) == 1);
      CHECK(output.find("manifest checksum mismatch") != std::string::npos);
    }
  }
  // Without the checksum (a graph from before it), the index still has to
  // agree with the manifest.
  const size_t at = manifest.find(" \"content_xxh3\"");
  REQUIRE(at != std::string::npos);
  std::string unchecked = manifest.substr(0, at) + manifest.substr(manifest.find('\n', at) + 1);
  sgtest::write_text(dir / "g/manifest.json", unchecked);
  CHECK(sgtest::run_cli("info " + (dir / "g"), &output) == 0);
  const size_t starts = unchecked.find("\"interval_starts\": [\n  0,");
  REQUIRE(starts != std::string::npos);
  unchecked.insert(starts + std::string("\"interval_starts\": [\n  0,").size(), "\n  1,");
  sgtest::write_text(dir / "g/manifest.json", unchecked);
  CHECK(sgtest::run_cli("run bfs " + (dir / "g"), &output) == 1);
  CHECK(output.find("does not match the manifest") != std::string::npos);
  sgtest::write_text(dir / "g/manifest.json", manifest);
  CHECK(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
}

TEST_CASE("leftovers of a killed ingest are removed by gc and by the next ingest, work in progress is not") {
  sgtest::TempDir dir;
  std::string boot = sgtest::read_text("/proc/sys/kernel/random/boot_id");
  boot.erase(std::remove(boot.begin(), boot.end(), '-'), boot.end());
  boot = boot.substr(0, 8);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  ::waitpid(child, nullptr, 0);  // a process that is gone
  const std::string dead = "~sg~" + std::to_string(child) + "-" + boot + "~";
  const std::string alive = "~sg~" + std::to_string(::getpid()) + "-" + boot + "~";
  const std::string other_boot = "~sg~1-ffffffff~";
  std::filesystem::create_directory(dir / "dev");
  auto make_dir = [&](const std::string& name) {
    std::filesystem::create_directory(dir / name);
    sgtest::write_text(dir / name + "/out.spill", std::string(5000, 'x'));
  };
  make_dir(".g.ingest" + dead + "0123");
  make_dir(".g.unordered" + other_boot + "4567");
  make_dir(".g.ingest" + alive + "89ab");  // ours: in progress
  sgtest::write_text(dir / "dev/.sg-0123-out.d0" + dead + ".tmp", std::string(3000, 'y'));
  sgtest::write_text(dir / ".plain-hidden-file", "not ours");
  std::string output;
  REQUIRE(sgtest::run_cli("gc " + dir.path() + " " + (dir / "dev"), &output) == 0);
  CHECK(output.find("gc: 3 leftovers removed, 13000 bytes freed") != std::string::npos);
  CHECK(sgtest::list_dir(dir.path()) ==
        std::vector<std::string>{".g.ingest" + alive + "89ab", ".plain-hidden-file", "dev"});
  CHECK(sgtest::list_dir(dir / "dev").empty());
  // The next ingest beside them cleans up by itself and says so.
  make_dir(".h.ingest" + dead + "cdef");
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n");
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "h"), &output) == 0);
  CHECK(output.find("removed 1 leftovers of killed ingests") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / (".h.ingest" + dead + "cdef")));
}

TEST_CASE(
    "format versions: a version-1 graph is read and re-ingests into versions 2 and 3 with the same arcs, a newer "
    "version is "
    "refused in one line") {
  sgtest::TempDir dir;
  std::string text;
  uint64_t state = 17;
  for (int i = 0; i < 3000; ++i)
    text += std::to_string(sgtest::next_random(&state) % 700) + " " +
            std::to_string(sgtest::next_random(&state) % 700) + "\n";
  sgtest::write_text(dir / "e.txt", text);
  sg::IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "v1";
  o.chunk_bytes = 1024;
  o.format_version = 1;
  sg::IngestSummary summary;
  REQUIRE(sg::ingest_ordered(o, &summary).ok());
  std::string output;
  REQUIRE(sgtest::run_cli("info " + (dir / "v1"), &output) == 0);
  CHECK(output.find("format 1, codec varint-delta-1") != std::string::npos);
  REQUIRE(
      sgtest::run_cli("ingest " + (dir / "v1") + " -o " + (dir / "v2") + " --format graph --chunk-bytes 1K --codec v2",
                      &output) == 0);
  REQUIRE(sgtest::run_cli("info " + (dir / "v2"), &output) == 0);
  CHECK(output.find("format 2, codec varint-delta-2") != std::string::npos);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "v2") + " -o " + (dir / "v3") + " --format graph --chunk-bytes 1K",
                          &output) == 0);
  REQUIRE(sgtest::run_cli("info " + (dir / "v3"), &output) == 0);
  CHECK(output.find("format 3, codec varint-streamvbyte-3") != std::string::npos);
  for (const std::string app : {"bfs --source 3", "wcc", "pagerank"}) {
    CAPTURE(app);
    REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "v1") + " --output " + (dir / "1.out"), &output) == 0);
    for (const std::string version : {"v2", "v3"}) {
      REQUIRE(sgtest::run_cli("run " + app + " " + (dir / version) + " --output " + (dir / "2.out"), &output) == 0);
      CHECK(sgtest::read_text(dir / "1.out") == sgtest::read_text(dir / "2.out"));
    }
  }
  {
    sg::Graph v1, v2;
    REQUIRE(sg::Graph::open(dir / "v1", &v1).ok());
    REQUIRE(sg::Graph::open(dir / "v2", &v2).ok());
    for (const sg::SpaceKind kind : {sg::SpaceKind::kOut, sg::SpaceKind::kIn}) {
      std::vector<sgtest::Arc> a = sgtest::read_space(v1, kind), b = sgtest::read_space(v2, kind);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      CHECK(a == b);
    }
    // A manifest from a newer shardgraph (its checksum intact).
    sg::Manifest newer = v2.manifest();
    newer.format_version = sg::kDeltaFormatVersion + 1;
    sgtest::write_text(dir / "v2/manifest.json", newer.to_json());
  }
  for (const std::string command : {"info ", "verify ", "run bfs "}) {
    CAPTURE(command);
    CHECK(sgtest::run_cli(command + (dir / "v2"), &output) == 2);
    CHECK(output.find("format version " + std::to_string(sg::kDeltaFormatVersion + 1) + " is not supported") !=
          std::string::npos);
    CHECK(output.find("re-ingest") != std::string::npos);
    CHECK(std::count(output.begin(), output.end(), '\n') == 1);
  }
}

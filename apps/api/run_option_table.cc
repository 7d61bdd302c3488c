// The options of `run`, one row each: name, kind, default, help, and the
// request's field it sets. The CLI's flags and help, Python's keyword
// arguments and --stats' "options" all come from these rows, so an option
// added here reaches every front end with no other edit (besides its field
// in RunRequest and, where the engine reads it, in sg::RunOptions).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "shardgraph/shardgraph.h"

namespace shardgraph {
namespace {

struct RunRow {
  OptionInfo info;
  std::function<Status(RunRequest&, const std::string& text)> set;
  std::function<std::string(const RunRequest&)> get;
};

Status not_valid(const std::string& name, const std::string& text, const std::string& why) {
  return Status::InvalidArgument("--" + name + ": '" + text + "' " + why);
}

Status parse_flag(const std::string& name, const std::string& text, bool* value) {
  if (text != "true" && text != "1" && text != "false" && text != "0")
    return not_valid(name, text, "is not true or false");
  *value = text == "true" || text == "1";
  return Status::OK();
}

template <typename T>
Status parse_whole(const std::string& name, const std::string& text, T least, T most, T* value) {
  T parsed{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size() || parsed < least || parsed > most) {
    return not_valid(name, text,
                     "must be a whole number from " + std::to_string(least) + " to " + std::to_string(most));
  }
  *value = parsed;
  return Status::OK();
}

Status parse_choice(const std::string& name, const std::string& text, const std::vector<std::string>& choices,
                    std::string* value) {
  for (const std::string& choice : choices) {
    if (text == choice) {
      *value = text;
      return Status::OK();
    }
  }
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return Status::InvalidArgument("--" + name + " must be " + list + ", not '" + text + "'");
}

// Row makers: each binds a name to a field of RunRequest.
RunRow flag(std::string name, bool RunRequest::*field, std::string help) {
  const bool by_default = RunRequest{}.*field;
  OptionInfo info{name, "flag", by_default ? "true" : "false", std::move(help), {}, false};
  return {info, [name, field](RunRequest& r, const std::string& t) { return parse_flag(name, t, &(r.*field)); },
          [field](const RunRequest& r) { return std::string(r.*field ? "true" : "false"); }};
}

RunRow choice(std::string name, std::string RunRequest::*field, std::vector<std::string> choices, std::string help) {
  OptionInfo info{name, "text", RunRequest{}.*field, std::move(help), choices, false};
  return {info,
          [name, field, choices](RunRequest& r, const std::string& t) {
            return parse_choice(name, t, choices, &(r.*field));
          },
          [field](const RunRequest& r) { return r.*field; }};
}

RunRow text(std::string name, std::string RunRequest::*field, std::string help) {
  OptionInfo info{name, "text", "", std::move(help), {}, false};
  return {info,
          [field](RunRequest& r, const std::string& t) {
            r.*field = t;
            return Status::OK();
          },
          [field](const RunRequest& r) { return r.*field; }};
}

RunRow whole(std::string name, int RunRequest::*field, int least, int most, std::string default_text,
             std::string help) {
  OptionInfo info{name, "count", std::move(default_text), std::move(help), {}, false};
  return {info,
          [name, field, least, most](RunRequest& r, const std::string& t) {
            return parse_whole(name, t, least, most, &(r.*field));
          },
          // 0 below the least: unset (the app's default, all cores).
          [field, least](const RunRequest& r) { return r.*field == 0 && least > 0 ? "" : std::to_string(r.*field); }};
}

RunRow number(std::string name, double RunRequest::*field, std::string default_text, std::string help) {
  OptionInfo info{name, "number", std::move(default_text), std::move(help), {}, false};
  return {info,
          [name, field](RunRequest& r, const std::string& t) {
            double parsed = 0;
            const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), parsed);
            if (error != std::errc() || end != t.data() + t.size() || !std::isfinite(parsed) || parsed < 0)
              return not_valid(name, t, "must be a number, not negative");
            r.*field = parsed;
            return Status::OK();
          },
          [field](const RunRequest& r) {
            char shown[32];
            std::snprintf(shown, sizeof(shown), "%.17g", r.*field);
            return std::string(shown);
          }};
}

// A size in bytes; with `automatic`, "auto" sets auto_memory()'s budget.
RunRow size(std::string name, uint64_t RunRequest::*field, bool automatic, std::string default_text, std::string help) {
  OptionInfo info{name, "size", std::move(default_text), std::move(help), {}, false};
  return {info,
          [name, field, automatic](RunRequest& r, const std::string& t) {
            if (automatic && t == "auto") {
              r.*field = auto_memory().budget_bytes;
              return Status::OK();
            }
            if (!parse_size(t, &(r.*field))) return not_valid(name, t, "is not a size (e.g. 64M, 2G, 4096)");
            return Status::OK();
          },
          [field](const RunRequest& r) { return std::to_string(r.*field); }};
}

RunRow source_row() {
  OptionInfo info{"source",
                  "count",
                  "",
                  "source vertex (original id) for bfs/sssp/betweenness (default: the vertex "
                  "with most out-edges)",
                  {},
                  false};
  return {info,
          [](RunRequest& r, const std::string& t) {
            uint64_t id = 0;
            const Status s = parse_whole<uint64_t>("source", t, 0, std::numeric_limits<uint64_t>::max(), &id);
            if (s.ok()) r.source = id;
            return s;
          },
          [](const RunRequest& r) { return r.source ? std::to_string(*r.source) : std::string(); }};
}

RunRow hidden(RunRow row) {
  row.info.hidden = true;
  return row;
}

const std::vector<RunRow>& rows() {
  static const std::vector<RunRow> table = {
      source_row(),
      whole("iterations", &RunRequest::iterations, 1, 1 << 30, "",
            "pagerank, pagerank-delta, spmv, cdlp: iterations (default: the app's)"),
      number("tolerance", &RunRequest::tolerance, "",
             "pagerank: stop when the L1 change is below this; pagerank-delta: epsilon (default 0.01)"),
      whole("threads", &RunRequest::threads, 1, 1024, "", "compute threads, 1 to 1024 (default: all cores)"),
      size("memory", &RunRequest::memory_bytes, true, "auto",
           "memory budget (e.g. 256M) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB"),
      choice("io-backend", &RunRequest::io_backend, {"auto", "uring", "psync"}, "how reads are issued"),
      choice("io", &RunRequest::io, {"auto", "full", "selective"},
             "how a step reads: auto (by the cost model), full (scans) or selective (the chunks it needs)"),
      choice("device-class", &RunRequest::device_class, {"hdd", "ssd", "nvme"}, "preset for uncalibrated devices"),
      flag("cache", &RunRequest::cache, "keep chunks in spare memory"),
      flag("decoded-cache", &RunRequest::decoded_cache,
           "keep decoded windows in spare memory, not compressed chunks only"),
      text("scratch-dir", &RunRequest::scratch_dir,
           "directory for vertex arrays beyond --memory (default: the graph directory if writable, else $TMPDIR)"),
      text("output", &RunRequest::output, "write one 'id value' line per vertex"),
      choice("format", &RunRequest::output_format, {"plain", "graphalytics"},
             "--output's conventions: plain (unreachable -1 / inf) or graphalytics (9223372036854775807 / infinity)"),
      text("stats", &RunRequest::stats, "write per-step statistics as JSON"),
      flag("unit-weights", &RunRequest::unit_weights, "sssp: weight 1 for every edge"),
      flag("parents", &RunRequest::parents, "bfs: also write each vertex's parent"),
      whole("top", &RunRequest::top, 0, 1 << 30, "10", "pagerank/spmv/betweenness/lcc: print this many top vertices"),
      hidden(size("window-bytes", &RunRequest::window_bytes, false, "0", "tests: the I/O window (0: from the budget)")),
  };
  return table;
}

const RunRow* find_row(const std::string& name) {
  for (const RunRow& row : rows()) {
    if (row.info.name == name) return &row;
  }
  return nullptr;
}

}  // namespace

const std::vector<OptionInfo>& run_option_table() {
  static const std::vector<OptionInfo> infos = [] {
    std::vector<OptionInfo> list;
    for (const RunRow& row : rows()) list.push_back(row.info);
    return list;
  }();
  return infos;
}

Status set_option(RunRequest* request, const std::string& name, const std::string& value) {
  const RunRow* row = find_row(name);
  if (row == nullptr) return Status::InvalidArgument("unknown option '" + name + "' of run");
  return row->set(*request, value);
}

std::vector<std::pair<std::string, std::string>> option_values(const RunRequest& request) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const RunRow& row : rows()) values.emplace_back(row.info.name, row.get(request));
  return values;
}

}  // namespace shardgraph

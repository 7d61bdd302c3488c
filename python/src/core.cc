// shardgraph._core: the library API (include/shardgraph/shardgraph.h) for Python.
// Requests come as dicts of the API's fields; results go back as dicts and
// NumPy arrays that own their memory. Each call runs on a worker thread
// while the calling thread, holding the GIL only briefly, hands progress
// lines to Python and checks for signals: Ctrl-C (or _thread.interrupt_main)
// stops the call within a fraction of a second and raises KeyboardInterrupt
// once the engine has cleaned up; a progress callable that returns False
// stops it too, and the call raises the engine's "interrupted" error. Errors raise _core.Error(code, message).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "shardgraph/shardgraph.h"

namespace nb = nanobind;
using shardgraph::Status;

namespace {

const char* code_name(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "ok";
    case Status::Code::kInvalidArgument: return "invalid_argument";
    case Status::Code::kCorruption: return "corruption";
    case Status::Code::kIOError: return "io_error";
    case Status::Code::kNotFound: return "not_found";
    case Status::Code::kInterrupted: return "interrupted";
    case Status::Code::kBadInput: return "bad_input";
    case Status::Code::kOverBudget: return "over_budget";
    case Status::Code::kNoInput: return "no_input";
  }
  return "unknown";
}

nb::object error_type;  // _core.Error, set at import

[[noreturn]] void raise(const Status& status) {
  PyErr_SetObject(error_type.ptr(), nb::make_tuple(code_name(status.code()), status.message()).ptr());
  throw nb::python_error();
}

// One call at a time: the stop poll the engine reads is process-wide.
std::mutex g_call;

// Runs work(callbacks) on a worker thread; this thread delivers progress
// lines to `progress` (a callable or None) and turns a signal into a stop.
template <typename Work>
Status run_interruptible(Work&& work, nb::object progress) {
  std::unique_lock<std::mutex> one_call(g_call, std::defer_lock);
  {
    nb::gil_scoped_release release;
    one_call.lock();
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::string> lines;
  std::atomic<bool> stop{false};
  bool done = false;
  Status status;
  shardgraph::Callbacks callbacks;
  callbacks.progress = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(line);
    changed.notify_one();
  };
  callbacks.stop = [&] { return stop.load(std::memory_order_relaxed); };
  std::thread worker([&] {
    Status s = work(callbacks);
    std::lock_guard<std::mutex> lock(mutex);
    status = std::move(s);
    done = true;
    changed.notify_one();
  });
  // A signal's exception, or one the progress callable raised: the engine
  // is told to stop, and it is raised once the worker is done.
  std::optional<nb::python_error> pending;
  for (;;) {
    std::deque<std::string> ready;
    bool finished = false;
    {
      nb::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait_for(lock, std::chrono::milliseconds(50), [&] { return done || !lines.empty(); });
      ready.swap(lines);
      finished = done;
    }
    try {
      if (!progress.is_none() && !pending) {
        // A callable that returns False asks for a stop (StoppedError).
        for (const std::string& line : ready) {
          if (progress(line).is(nb::bool_(false))) stop.store(true);
        }
      }
      if (!pending && PyErr_CheckSignals() != 0) throw nb::python_error();
    } catch (nb::python_error& e) {
      pending.emplace(std::move(e));
      stop.store(true);
    }
    if (finished) break;
  }
  {
    nb::gil_scoped_release release;
    worker.join();
  }
  if (pending) throw std::move(*pending);
  return status;
}

// A keyword argument as the text set_option takes: True/False as
// true/false, numbers and paths as str() gives them.
std::string option_text(const nb::handle& value) {
  if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value) ? "true" : "false";
  return nb::cast<std::string>(nb::str(value));
}

// Sets a table option from a keyword (its name with '-' for '_'); a list
// or tuple sets a repeatable option once per value. An unknown keyword or
// a malformed value raises, as the API words it.
template <typename Request>
void set_keyword(Request* request, const std::string& keyword, const nb::handle& value) {
  if (value.is_none()) return;
  std::string name = keyword;
  std::replace(name.begin(), name.end(), '_', '-');
  std::vector<nb::handle> values;
  if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
    for (nb::handle item : value) values.push_back(item);
  } else {
    values.push_back(value);
  }
  for (const nb::handle& item : values) {
    const Status s = shardgraph::set_option(request, name, option_text(item));
    if (!s.ok()) raise(s);
  }
}

// A request from Python's keywords: `plumbing` takes the fields that are
// not options (false for any other name), and every other keyword goes
// through the API's option table.
template <typename Request, typename Plumbing>
Request request_of(const nb::dict& d, Request r, Plumbing plumbing) {
  for (const auto& [key, value] : d) {
    const std::string name = nb::cast<std::string>(key);
    if (!plumbing(r, name, value)) set_keyword(&r, name, value);
  }
  return r;
}

shardgraph::IngestRequest ingest_request(const nb::dict& d) {
  return request_of(d, shardgraph::IngestRequest{},
                    [](shardgraph::IngestRequest& r, const std::string& name, const nb::handle& value) {
                      std::string* field = name == "input" ? &r.input : name == "output" ? &r.output : nullptr;
                      if (field != nullptr) *field = nb::cast<std::string>(value);
                      return field != nullptr;
                    });
}

shardgraph::RunRequest run_request(const nb::dict& d) {
  shardgraph::RunRequest r;
  r.quiet = true;  // notices come back in the result
  return request_of(d, r, [](shardgraph::RunRequest& q, const std::string& name, const nb::handle& value) {
    std::string* field = name == "app"           ? &q.app
                         : name == "graph"       ? &q.graph
                         : name == "columns_dir" ? &q.columns_dir
                                                 : nullptr;
    if (field != nullptr) *field = nb::cast<std::string>(value);
    if (name == "collect") q.collect = nb::cast<bool>(value);
    return field != nullptr || name == "collect";
  });
}

// An option table for Python: name (as a keyword), kind, default, help,
// choices, hidden.
nb::list option_table(const std::vector<shardgraph::OptionInfo>& table) {
  nb::list rows;
  for (const shardgraph::OptionInfo& info : table) {
    std::string keyword = info.name;
    std::replace(keyword.begin(), keyword.end(), '-', '_');
    nb::dict row;
    row["name"] = keyword;
    row["kind"] = info.kind;
    row["default"] = info.default_text;
    row["help"] = info.help;
    row["choices"] = info.choices;
    row["hidden"] = info.hidden;
    rows.append(row);
  }
  return rows;
}

// A vector's values as a 1-D NumPy array of `dtype` that owns them: the
// vector is moved, not copied (a result may be most of the budget).
template <typename T>
nb::object numpy_of(std::vector<T>&& values, size_t value_bytes, const char* dtype) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const size_t bytes = owned->size() * sizeof(T);
  nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> raw(reinterpret_cast<uint8_t*>(owned->data()), {bytes}, owner);
  nb::object array = nb::cast(raw);
  return array.attr("view")(dtype).attr("reshape")(bytes / value_bytes);
}

size_t type_bytes(shardgraph::ValueType type) {
  switch (type) {
    case shardgraph::ValueType::kInt32:
    case shardgraph::ValueType::kUint32:
    case shardgraph::ValueType::kFloat32: return 4;
    default: return 8;
  }
}

nb::dict run_result(shardgraph::RunResult&& result) {
  nb::dict out;
  out["summary"] = result.summary;
  out["facts_json"] = result.facts_json;
  out["stats_json"] = result.stats_json;
  out["notices"] = result.notices;
  out["ids"] = numpy_of(std::move(result.ids), sizeof(uint64_t), "uint64");
  nb::list columns;
  for (shardgraph::ResultColumn& c : result.columns) {
    const char* type = shardgraph::value_type_name(c.type);
    columns.append(nb::make_tuple(c.name, type, numpy_of(std::move(c.bytes), type_bytes(c.type), type)));
  }
  out["columns"] = columns;
  return out;
}

nb::dict apps_table() {
  nb::dict table;
  for (const shardgraph::AppInfo& app : shardgraph::apps()) {
    nb::dict row;
    row["description"] = app.description;
    row["options"] = app.options;
    row["iterations"] = app.iterations;
    row["columns"] = app.columns;
    row["needs_undirected"] = app.needs_undirected;
    row["reversed_steps"] = app.reversed_steps;
    row["needs_weights"] = app.needs_weights;
    table[app.name.c_str()] = row;
  }
  return table;
}

// The module's calls: each raises _core.Error when the API returns an error.

void generate_rmat(uint32_t scale, uint32_t edge_factor, uint64_t seed, bool weights, const std::string& output) {
  const shardgraph::RmatRequest r{scale, edge_factor, seed, weights, output};
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks&) { return shardgraph::generate_rmat(r); }, nb::none());
  if (!s.ok()) raise(s);
}

void generate_grid(uint32_t rows, uint32_t cols, uint64_t seed, bool weights, bool shuffle, const std::string& output) {
  const shardgraph::GridRequest r{rows, cols, seed, weights, shuffle, output};
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks&) { return shardgraph::generate_grid(r); }, nb::none());
  if (!s.ok()) raise(s);
}

nb::dict ingest(const nb::dict& request, nb::object progress) {
  const shardgraph::IngestRequest r = ingest_request(request);
  shardgraph::IngestReport report;
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks& cb) { return shardgraph::ingest(r, &report, cb); }, progress);
  if (!s.ok()) raise(s);
  nb::dict out;
  out["vertices"] = report.vertices;
  out["edges"] = report.edges;
  out["intervals"] = report.intervals;
  out["stored_bytes"] = report.stored_bytes;
  out["sort_batches"] = report.sort_batches;
  out["seconds"] = report.seconds;
  out["phases"] = report.phases;
  out["note"] = report.note;
  return out;
}

std::string graph_info(const std::string& graph, bool json) {
  std::string text;
  const Status s = shardgraph::graph_info(graph, json, &text);
  if (!s.ok()) raise(s);
  return text;
}

nb::dict graph_summary(const std::string& graph) {
  shardgraph::GraphSummary summary;
  const Status s = shardgraph::graph_summary(graph, &summary);
  if (!s.ok()) raise(s);
  nb::dict out;
  out["vertices"] = summary.vertices;
  out["edges"] = summary.edges;
  out["directed"] = summary.directed;
  out["weighted"] = summary.weighted;
  out["pending_updates"] = summary.pending_updates;
  return out;
}

nb::dict verify(const std::string& graph) {
  shardgraph::VerifyReport report;
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks&) { return shardgraph::verify(graph, &report); }, nb::none());
  if (!s.ok()) raise(s);
  nb::dict out;
  out["chunks"] = report.chunks;
  out["arcs"] = report.arcs;
  out["bytes"] = report.bytes;
  out["partitioned"] = report.partitioned;
  return out;
}

nb::dict update(const std::string& graph, const std::vector<std::string>& add_files,
                const std::vector<std::string>& remove_files, bool weights, uint64_t memory_bytes,
                double compact_share) {
  shardgraph::UpdateRequest r;
  r.graph = graph;
  r.add_files = add_files;
  r.remove_files = remove_files;
  r.weights = weights;
  r.memory_bytes = memory_bytes;
  r.compact_share = compact_share;
  shardgraph::UpdateReport report;
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks&) { return shardgraph::update(r, &report); }, nb::none());
  if (!s.ok()) raise(s);
  nb::dict out;
  out["generation"] = report.generation;
  out["adds"] = report.adds;
  out["removes"] = report.removes;
  out["new_vertices"] = report.new_vertices;
  out["pending_updates"] = report.pending_updates;
  out["pending_tiers"] = report.pending_tiers;
  out["seconds"] = report.seconds;
  out["compacted"] = report.compacted;
  return out;
}

nb::dict compact(const std::string& graph, uint64_t memory_bytes, nb::object progress) {
  shardgraph::CompactReport report;
  const Status s = run_interruptible(
      [&](const shardgraph::Callbacks& cb) { return shardgraph::compact(graph, memory_bytes, &report, cb); }, progress);
  if (!s.ok()) raise(s);
  nb::dict out;
  out["updates"] = report.updates;
  out["vertices"] = report.vertices;
  out["edges"] = report.edges;
  out["seconds"] = report.seconds;
  out["method"] = report.method;
  return out;
}

nb::dict run(const nb::dict& request, nb::object progress) {
  const shardgraph::RunRequest r = run_request(request);
  shardgraph::RunResult result;
  const Status s =
      run_interruptible([&](const shardgraph::Callbacks& cb) { return shardgraph::run(r, &result, cb); }, progress);
  if (!s.ok()) raise(s);
  return run_result(std::move(result));
}

nb::object parse_size(const std::string& text) {
  uint64_t bytes = 0;
  return shardgraph::parse_size(text, &bytes) ? nb::cast(bytes) : nb::none();
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "shardgraph's library API; use the shardgraph package, not this module";
  error_type = nb::borrow(PyErr_NewException("shardgraph._core.Error", PyExc_RuntimeError, nullptr));
  m.attr("Error") = error_type;
  m.def("version", &shardgraph::version_line);
  m.def("apps", &apps_table);
  m.def("parse_size", &parse_size);
  m.def("auto_memory", [] { return shardgraph::auto_memory().budget_bytes; });
  m.def("peak_rss_bytes", &shardgraph::peak_rss_bytes);
  m.def("generate_rmat", &generate_rmat);
  m.def("generate_grid", &generate_grid);
  m.def("ingest", &ingest, nb::arg("request"), nb::arg("progress").none());
  m.def("graph_info", &graph_info);
  m.def("graph_summary", &graph_summary);
  m.def("verify", &verify);
  m.def("update", &update);
  m.def("compact", &compact, nb::arg("graph"), nb::arg("memory_bytes"), nb::arg("progress").none());
  m.def("run", &run, nb::arg("request"), nb::arg("progress").none());
  m.def("run_options", [] { return option_table(shardgraph::run_option_table()); });
  m.def("ingest_options", [] { return option_table(shardgraph::ingest_option_table()); });
}

// The rows of an option table (run_option_table.cc, ingest_option_table.cc):
// an option's OptionInfo and how a text sets it in a request and reads it
// back, made by one maker per kind so that a row is one line of its table.
#pragma once

#include <charconv>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "shardgraph/shardgraph.h"

namespace shardgraph::options {

template <typename Request>
struct Row {
  OptionInfo info;
  std::function<Status(Request&, const std::string& text)> set;
  std::function<std::string(const Request&)> get;
};

// Each command's table (run_option_table.cc, ingest_option_table.cc); the
// public functions over them are in option_tables.cc.
const std::vector<Row<RunRequest>>& run_rows();
const std::vector<Row<IngestRequest>>& ingest_rows();

Status not_valid(const std::string& name, const std::string& text, const std::string& why);
Status parse_flag(const std::string& name, const std::string& text, bool* value);
Status parse_choice(const std::string& name, const std::string& text, const std::vector<std::string>& choices,
                    std::string* value);
Status parse_number(const std::string& name, const std::string& text, double* value);
std::string number_text(double value);

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

// What "auto" means for a count or a size: not taken, 0 (the request's
// own automatic choice), or auto_memory()'s budget.
enum class Auto { kNone, kZero, kBudget };

template <typename Request>
Row<Request> flag(std::string name, bool Request::*field, std::string help) {
  OptionInfo info{name, "flag", Request{}.*field ? "true" : "false", std::move(help), {}, false};
  return {info, [name, field](Request& r, const std::string& t) { return parse_flag(name, t, &(r.*field)); },
          [field](const Request& r) { return std::string(r.*field ? "true" : "false"); }};
}

// One of `choices` (an error lists them).
template <typename Request>
Row<Request> choice(std::string name, std::string Request::*field, std::vector<std::string> choices, std::string help) {
  OptionInfo info{name, "text", Request{}.*field, std::move(help), choices, false};
  return {
      info,
      [name, field, choices](Request& r, const std::string& t) { return parse_choice(name, t, choices, &(r.*field)); },
      [field](const Request& r) { return r.*field; }};
}

// auto | always | never: the CLI's --name is always and --no-name never;
// true and false mean the same.
template <typename Request>
Row<Request> switch_row(std::string name, std::string Request::*field, std::string help) {
  Row<Request> row = choice(name, field, {"auto", "always", "never"}, std::move(help));
  row.info.kind = "switch";
  auto by_choice = row.set;
  row.set = [by_choice](Request& r, const std::string& t) {
    return by_choice(r, t == "true" ? "always" : t == "false" ? "never" : t);
  };
  return row;
}

template <typename Request>
Row<Request> text(std::string name, std::string Request::*field, std::string help) {
  OptionInfo info{name, "text", "", std::move(help), {}, false};
  return {info,
          [field](Request& r, const std::string& t) {
            r.*field = t;
            return Status::OK();
          },
          [field](const Request& r) { return r.*field; }};
}

// Repeatable: each text adds one value.
template <typename Request>
Row<Request> list(std::string name, std::vector<std::string> Request::*field, std::string help) {
  OptionInfo info{name, "list", "", std::move(help), {}, false};
  return {info,
          [field](Request& r, const std::string& t) {
            (r.*field).push_back(t);
            return Status::OK();
          },
          [field](const Request& r) {
            std::string joined;
            for (const std::string& value : r.*field) joined += (joined.empty() ? "" : ",") + value;
            return joined;
          }};
}

// A whole number in [least, most]; 0 below `least` is unset ("", or
// "auto" when `automatic` is kZero and "auto" sets it).
template <typename Request, typename T>
Row<Request> whole(std::string name, T Request::*field, T least, T most, Auto automatic, std::string default_text,
                   std::string help) {
  OptionInfo info{name, "count", std::move(default_text), std::move(help), {}, false};
  return {info,
          [name, field, least, most, automatic](Request& r, const std::string& t) {
            if (automatic == Auto::kZero && t == "auto") {
              r.*field = 0;
              return Status::OK();
            }
            return parse_whole(name, t, least, most, &(r.*field));
          },
          [field, least, automatic](const Request& r) {
            if (r.*field == 0 && least > 0) return std::string(automatic == Auto::kZero ? "auto" : "");
            return std::to_string(r.*field);
          }};
}

template <typename Request>
Row<Request> number(std::string name, double Request::*field, std::string default_text, std::string help) {
  OptionInfo info{name, "number", std::move(default_text), std::move(help), {}, false};
  return {info, [name, field](Request& r, const std::string& t) { return parse_number(name, t, &(r.*field)); },
          [field](const Request& r) { return number_text(r.*field); }};
}

// A size (64M, 2G, 4096) within [least, most] bytes, or "auto".
template <typename Request, typename T>
Row<Request> size(std::string name, T Request::*field, uint64_t least, uint64_t most, Auto automatic,
                  std::string default_text, std::string help) {
  OptionInfo info{name, "size", std::move(default_text), std::move(help), {}, false};
  return {info,
          [name, field, least, most, automatic](Request& r, const std::string& t) {
            uint64_t bytes = 0;
            if (automatic != Auto::kNone && t == "auto") {
              r.*field = static_cast<T>(automatic == Auto::kBudget ? auto_memory().budget_bytes : 0);
              return Status::OK();
            }
            if (!parse_size(t, &bytes)) return not_valid(name, t, "is not a size (e.g. 64M, 2G, 4096)");
            if (bytes < least || bytes > most) {
              return not_valid(name, t,
                               "must be from " + std::to_string(least) + " to " + std::to_string(most) + " bytes" +
                                   (automatic == Auto::kNone ? "" : ", or auto"));
            }
            r.*field = static_cast<T>(bytes);
            return Status::OK();
          },
          [field, automatic](const Request& r) {
            return automatic == Auto::kZero && r.*field == 0 ? std::string("auto") : std::to_string(r.*field);
          }};
}

template <typename Request>
Row<Request> hidden(Row<Request> row) {
  row.info.hidden = true;
  return row;
}

template <typename Request>
std::vector<OptionInfo> infos_of(const std::vector<Row<Request>>& rows) {
  std::vector<OptionInfo> infos;
  for (const Row<Request>& row : rows) infos.push_back(row.info);
  return infos;
}

template <typename Request>
Status set_by_row(const std::vector<Row<Request>>& rows, const char* command, Request* request, const std::string& name,
                  const std::string& value) {
  for (const Row<Request>& row : rows) {
    if (row.info.name == name) return row.set(*request, value);
  }
  return Status::InvalidArgument("unknown option '" + name + "' of " + command);
}

template <typename Request>
std::vector<std::pair<std::string, std::string>> values_by_row(const std::vector<Row<Request>>& rows,
                                                               const Request& request) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const Row<Request>& row : rows) values.emplace_back(row.info.name, row.get(request));
  return values;
}

}  // namespace shardgraph::options

// shardgraph::Status: errors as values (LevelDB style). Public: the
// library API returns it, and inside the tree every layer returns it too
// (base/status.h names it there and adds the macro that returns early). [[nodiscard]]: a Status dropped unread is a bug
// the compiler names (cast to void where dropping one is meant).
#pragma once

#include <string>
#include <utility>

namespace shardgraph {

class [[nodiscard]] Status {
 public:
  // kBadInput, kOverBudget and kNoInput are usage errors with a kind a
  // caller may act on (the Python package raises a class for each).
  enum class Code {
    kOk,
    kInvalidArgument,
    kCorruption,
    kIOError,
    kNotFound,
    kInterrupted,
    kBadInput,    // malformed input: the message names the file and line or record
    kOverBudget,  // --memory is too small for the work
    kNoInput,     // the input or graph named is not there, or is not one
  };
  static constexpr Code kLastCode = Code::kNoInput;  // codes sent between ranks are checked against it

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }
  static Status BadInput(std::string msg) { return Status(Code::kBadInput, std::move(msg)); }
  static Status OverBudget(std::string msg) { return Status(Code::kOverBudget, std::move(msg)); }
  static Status NoInput(std::string msg) { return Status(Code::kNoInput, std::move(msg)); }
  // A status received from elsewhere (another rank) by its code.
  static Status FromCode(Code code, std::string msg) { return Status(code, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The caller asked for something that cannot be done as asked (the CLI's
  // exit code 2), as opposed to a failure while doing it.
  bool is_usage() const {
    return code_ == Code::kInvalidArgument || code_ == Code::kBadInput || code_ == Code::kOverBudget ||
           code_ == Code::kNoInput;
  }

  // "corruption: chunk 3 of out: checksum mismatch"
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

inline std::string Status::ToString() const {
  switch (code_) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid argument: " + message_;
    case Code::kCorruption: return "corruption: " + message_;
    case Code::kIOError: return "I/O error: " + message_;
    case Code::kNotFound: return "not found: " + message_;
    case Code::kInterrupted: return "interrupted: " + message_;
    case Code::kBadInput: return "bad input: " + message_;
    case Code::kOverBudget: return "over budget: " + message_;
    case Code::kNoInput: return "no input: " + message_;
  }
  return message_;
}

}  // namespace shardgraph

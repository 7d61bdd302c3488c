// Status: errors as values (LevelDB style). It lives in the lowest module so
// every layer above (shards, scheduler, core, apps) can return it.
#pragma once

#include <string>
#include <utility>

namespace sg {

class Status {
 public:
  enum class Code { kOk, kInvalidArgument, kCorruption, kIOError, kNotFound, kInterrupted };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }
  // A status received from elsewhere (another rank) by its code.
  static Status FromCode(Code code, std::string msg) { return Status(code, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

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
  }
  return message_;
}

}  // namespace sg

#define SG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::sg::Status sg_status_ = (expr);        \
    if (!sg_status_.ok()) return sg_status_; \
  } while (0)

// "id text" lines written in increasing id order when they come in another
// order (a graph whose vertices are stored in a locality order, and whose
// order by original id does not fit the memory left): they are gathered in
// runs of `memory_bytes / 2`, each sorted by id and spilled to an unnamed
// scratch file, then the runs are merged into the output (an external merge
// sort, two passes over the text). Duplicate ids keep their order of
// arrival.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_util.h"
#include "base/status.h"

namespace sg {

class IdSortedLines {
 public:
  // `scratch_near`: a path whose directory takes the scratch file.
  IdSortedLines(std::string scratch_near, uint64_t memory_bytes);
  Status add(uint64_t id, std::string_view text);  // text: at most 255 bytes (any bytes)
  // Writes every line, in id order, to `out` ("id text\n").
  Status finish(FILE* out);
  // Hands every record, in id order, to `sink`.
  using Sink = std::function<Status(uint64_t id, std::string_view text)>;
  Status finish(const Sink& sink);
  uint64_t runs() const { return runs_.size(); }
  uint64_t scratch_bytes() const { return scratch_bytes_; }

 private:
  struct Run {
    uint64_t offset = 0, bytes = 0;
  };
  struct Key {
    uint64_t id;
    uint32_t at;  // offset of the record in buffer_
  };
  Status spill();
  Status merge(const Sink& sink);

  std::string scratch_near_;
  uint64_t run_bytes_;
  File scratch_;
  std::string buffer_;  // records: id (8 bytes), length (1), text
  std::vector<Key> keys_;
  std::vector<Run> runs_;
  uint64_t scratch_bytes_ = 0;
};

}  // namespace sg

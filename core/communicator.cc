#include "core/communicator.h"

#include <cstdlib>

namespace sg {
namespace {

class LocalCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status all_gather(std::span<const uint8_t> mine, std::vector<uint8_t>* all, std::vector<uint64_t>* counts) override {
    all->assign(mine.begin(), mine.end());
    counts->assign(1, mine.size());
    ++counters_.collectives;
    return Status::OK();
  }
  Status all_to_all(std::span<const uint8_t>, std::span<const uint64_t>, std::vector<uint8_t>* received,
                    std::vector<uint64_t>* counts) override {
    received->clear();
    counts->assign(1, 0);
    ++counters_.collectives;
    return Status::OK();
  }
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }
};

// A status on the wire: its code, then its message.
std::vector<uint8_t> encode_status(const Status& status) {
  std::vector<uint8_t> bytes(1 + status.message().size());
  bytes[0] = static_cast<uint8_t>(status.code());
  std::memcpy(bytes.data() + 1, status.message().data(), status.message().size());
  return bytes;
}

}  // namespace

Status Communicator::agree(const Status& local) {
  std::vector<uint8_t> all;
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(all_gather(encode_status(local), &all, &counts));
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
    if (counts[r] == 0) return Status::Corruption("rank " + std::to_string(r) + " sent an empty status");
    if (all[at] > static_cast<uint8_t>(Status::kLastCode))
      return Status::Corruption("rank " + std::to_string(r) + " sent an unknown status");
    const auto code = static_cast<Status::Code>(all[at]);
    if (code == Status::Code::kOk) continue;
    const std::string message(reinterpret_cast<const char*>(all.data() + at + 1), counts[r] - 1);
    agreed_failure_ = true;
    return Status::FromCode(code, "rank " + std::to_string(r) + ": " + message);
  }
  return Status::OK();
}

std::unique_ptr<Communicator> local_communicator() { return std::make_unique<LocalCommunicator>(); }

}  // namespace sg

#ifndef SG_MPI
namespace sg {
bool mpi_available() { return false; }
std::unique_ptr<Communicator> mpi_communicator(std::string* error) {
  *error = "this shardgraph was built without MPI (install libopenmpi-dev and rebuild)";
  return nullptr;
}
void mpi_finalize() {}
}  // namespace sg
#endif

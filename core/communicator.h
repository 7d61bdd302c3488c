// The ranks of a distributed run (docs/scale-out.md) as the engine needs
// them: who am I, how many are we, and two collectives: all_gather, from
// which agreeing on a status, summing a value and merging frontiers are
// built, and all_to_all, which sends each rank only its own piece (source
// values to the ranks that mirror them, results to rank 0). One rank without MPI is
// local_communicator(); mpi_communicator.cc is the Open MPI one (SG_MPI).
// Every exchange is counted: bytes sent and received, and the seconds spent
// waiting in collectives, per rank.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace sg {

struct ExchangeCounters {
  uint64_t bytes_sent = 0;      // what this rank contributed, times the other ranks
  uint64_t bytes_received = 0;  // what the other ranks contributed
  uint64_t collectives = 0;
  double wait_seconds = 0;  // inside collectives (transfer and waiting for the others)
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's `mine`, concatenated in rank order into *all, with
  // (*counts)[r] = rank r's bytes. Every rank must call it, in the same order.
  virtual Status all_gather(std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                            std::vector<uint64_t>* counts) = 0;
  // `send` holds a piece for each rank in rank order, send_counts[r] bytes
  // for rank r (this rank's own piece is not sent). *received gets the
  // pieces sent to this rank in rank order, (*counts)[r] bytes from rank r
  // (0 from itself). Every rank must call it, in the same order.
  virtual Status all_to_all(std::span<const uint8_t> send, std::span<const uint64_t> send_counts,
                            std::vector<uint8_t>* received, std::vector<uint64_t>* counts) = 0;
  // Ends the whole job now (a rank that failed while the others may be
  // waiting in a collective); prints nothing.
  [[noreturn]] virtual void abort(int exit_code) = 0;

  const ExchangeCounters& counters() const { return counters_; }
  // Back to `counters`: collectives that are not the run's own (a probe of
  // the link) leave the totals as they were.
  void restore_counters(const ExchangeCounters& counters) { counters_ = counters; }
  // Whether agree() has returned a failure (every rank has it).
  bool agreed_failure() const { return agreed_failure_; }

  // The first failing rank's status, "rank K: ..." (OK when every rank's
  // is): every rank returns the same, so none is left waiting.
  Status agree(const Status& local);
  // Each rank's `value` (trivially copyable), in rank order.
  template <typename T>
  Status gather_values(const T& value, std::vector<T>* values) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<uint8_t> all;
    std::vector<uint64_t> counts;
    SG_RETURN_IF_ERROR(all_gather({reinterpret_cast<const uint8_t*>(&value), sizeof(T)}, &all, &counts));
    values->resize(counts.size());
    for (size_t r = 0; r < counts.size(); ++r) {
      if (counts[r] != sizeof(T))
        return Status::Corruption("rank " + std::to_string(r) + " sent a value of another size");
      std::memcpy(&(*values)[r], all.data() + r * sizeof(T), sizeof(T));
    }
    return Status::OK();
  }
  // The values of every rank added in rank order (the same on every rank).
  template <typename T>
  Status sum(T* value) {
    std::vector<T> values;
    SG_RETURN_IF_ERROR(gather_values(*value, &values));
    T total{};
    for (const T& v : values) total += v;
    *value = total;
    return Status::OK();
  }

 protected:
  ExchangeCounters counters_;
  bool agreed_failure_ = false;
};

// A run of one rank: all_gather returns what it is given.
std::unique_ptr<Communicator> local_communicator();

// Open MPI's MPI_COMM_WORLD (MPI_Init on first use; null when this build
// has no MPI). mpi_finalize() after the last collective.
std::unique_ptr<Communicator> mpi_communicator(std::string* error);
bool mpi_available();
void mpi_finalize();

}  // namespace sg

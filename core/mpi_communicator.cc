// Open MPI's MPI_COMM_WORLD as a Communicator (built with SG_MPI). A rank
// killed mid-run is seen by Open MPI's runtime, which ends the job; an error
// one rank finds is agreed on by all (Communicator::agree), or ends the job
// through abort(): no rank waits forever for a dead one.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>

#include "core/communicator.h"

namespace sg {
namespace {

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status all_gather(std::span<const uint8_t> mine, std::vector<uint8_t>* all, std::vector<uint64_t>* counts) override {
    const auto start = std::chrono::steady_clock::now();
    counts->assign(static_cast<size_t>(size_), 0);
    uint64_t mine_bytes = mine.size();
    SG_RETURN_IF_ERROR(check(
        MPI_Allgather(&mine_bytes, 1, MPI_UINT64_T, counts->data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "allgather"));
    uint64_t total = 0;
    for (uint64_t c : *counts) total += c;
    all->resize(total);
    // MPI counts and displacements are ints: rounds in which every rank
    // sends at most round_bytes, so a round's total fits an int too.
    const uint64_t round_bytes = std::max<uint64_t>(1, static_cast<uint64_t>(INT_MAX) / static_cast<uint64_t>(size_));
    std::vector<uint64_t> base(counts->size(), 0);
    for (size_t r = 1; r < counts->size(); ++r) base[r] = base[r - 1] + (*counts)[r - 1];
    const uint64_t largest = *std::max_element(counts->begin(), counts->end());
    std::vector<uint8_t> round_buffer;
    std::vector<int> round_counts(counts->size()), displacements(counts->size());
    for (uint64_t offset = 0; offset < largest; offset += round_bytes) {
      int round_total = 0;
      for (size_t r = 0; r < counts->size(); ++r) {
        const uint64_t left = (*counts)[r] > offset ? (*counts)[r] - offset : 0;
        round_counts[r] = static_cast<int>(std::min(left, round_bytes));
        displacements[r] = round_total;
        round_total += round_counts[r];
      }
      round_buffer.resize(static_cast<size_t>(round_total));
      const uint8_t* send = mine.data() + std::min<uint64_t>(offset, mine.size());
      SG_RETURN_IF_ERROR(
          check(MPI_Allgatherv(send, round_counts[static_cast<size_t>(rank_)], MPI_BYTE, round_buffer.data(),
                               round_counts.data(), displacements.data(), MPI_BYTE, MPI_COMM_WORLD),
                "allgatherv"));
      for (size_t r = 0; r < counts->size(); ++r) {
        std::copy_n(round_buffer.data() + displacements[r], round_counts[r], all->data() + base[r] + offset);
      }
    }
    ++counters_.collectives;
    counters_.bytes_sent += mine_bytes * static_cast<uint64_t>(size_ - 1);
    counters_.bytes_received += total - mine_bytes;
    counters_.wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::OK();
  }

  Status all_to_all(std::span<const uint8_t> send, std::span<const uint64_t> send_counts,
                    std::vector<uint8_t>* received, std::vector<uint64_t>* counts) override {
    const auto start = std::chrono::steady_clock::now();
    const auto ranks = static_cast<size_t>(size_);
    uint64_t send_total = 0;
    for (uint64_t c : send_counts) send_total += c;
    if (send_counts.size() != ranks || send_total != send.size())
      return Status::InvalidArgument("all_to_all needs a piece count for every rank, adding up to what it sends");
    std::vector<uint64_t> sending(send_counts.begin(), send_counts.end());
    std::vector<uint64_t> send_base(ranks, 0), receive_base(ranks, 0);
    for (size_t r = 1; r < ranks; ++r) send_base[r] = send_base[r - 1] + sending[r - 1];
    sending[static_cast<size_t>(rank_)] = 0;  // its own piece stays
    // Each rank tells each other rank its piece's bytes and its largest
    // piece: every rank then knows the largest of all, and so how many
    // rounds every rank takes.
    const uint64_t largest_mine = *std::max_element(sending.begin(), sending.end());
    std::vector<uint64_t> told(2 * ranks), heard(2 * ranks);
    for (size_t r = 0; r < ranks; ++r) told[2 * r] = sending[r], told[2 * r + 1] = largest_mine;
    SG_RETURN_IF_ERROR(
        check(MPI_Alltoall(told.data(), 2, MPI_UINT64_T, heard.data(), 2, MPI_UINT64_T, MPI_COMM_WORLD), "alltoall"));
    counts->assign(ranks, 0);
    uint64_t largest = largest_mine;
    for (size_t r = 0; r < ranks; ++r) (*counts)[r] = heard[2 * r], largest = std::max(largest, heard[2 * r + 1]);
    for (size_t r = 1; r < ranks; ++r) receive_base[r] = receive_base[r - 1] + (*counts)[r - 1];
    received->resize(receive_base.back() + counts->back());
    // Rounds in which each pair moves at most round_bytes, so that a
    // round's counts and displacements fit MPI's ints.
    const uint64_t round_bytes = std::max<uint64_t>(1, static_cast<uint64_t>(INT_MAX) / ranks);
    std::vector<uint8_t> round_send, round_receive;
    std::vector<int> out_counts(ranks), out_at(ranks), in_counts(ranks), in_at(ranks);
    const uint64_t limit = INT_MAX;
    if (largest <= round_bytes && send.size() <= limit && received->size() <= limit) {
      // One round, straight from the caller's buffer into *received.
      for (size_t r = 0; r < ranks; ++r) {
        out_counts[r] = static_cast<int>(sending[r]), out_at[r] = static_cast<int>(send_base[r]);
        in_counts[r] = static_cast<int>((*counts)[r]), in_at[r] = static_cast<int>(receive_base[r]);
      }
      SG_RETURN_IF_ERROR(check(MPI_Alltoallv(send.data(), out_counts.data(), out_at.data(), MPI_BYTE, received->data(),
                                             in_counts.data(), in_at.data(), MPI_BYTE, MPI_COMM_WORLD),
                               "alltoallv"));
      largest = 0;  // no rounds below
    }
    for (uint64_t offset = 0; offset < largest; offset += round_bytes) {
      auto lay_out = [&](const std::vector<uint64_t>& totals, std::vector<int>* piece, std::vector<int>* at) {
        int total = 0;
        for (size_t r = 0; r < ranks; ++r) {
          (*piece)[r] = static_cast<int>(std::min(totals[r] > offset ? totals[r] - offset : 0, round_bytes));
          (*at)[r] = total;
          total += (*piece)[r];
        }
        return static_cast<size_t>(total);
      };
      round_send.resize(lay_out(sending, &out_counts, &out_at));
      round_receive.resize(lay_out(*counts, &in_counts, &in_at));
      for (size_t r = 0; r < ranks; ++r) {
        if (out_counts[r] > 0)
          std::copy_n(send.data() + send_base[r] + offset, out_counts[r], round_send.data() + out_at[r]);
      }
      SG_RETURN_IF_ERROR(
          check(MPI_Alltoallv(round_send.data(), out_counts.data(), out_at.data(), MPI_BYTE, round_receive.data(),
                              in_counts.data(), in_at.data(), MPI_BYTE, MPI_COMM_WORLD),
                "alltoallv"));
      for (size_t r = 0; r < ranks; ++r) {
        if (in_counts[r] > 0)
          std::copy_n(round_receive.data() + in_at[r], in_counts[r], received->data() + receive_base[r] + offset);
      }
    }
    ++counters_.collectives;
    for (size_t r = 0; r < ranks; ++r) {
      counters_.bytes_sent += sending[r];
      counters_.bytes_received += (*counts)[r];
    }
    counters_.wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::OK();
  }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  static Status check(int code, const char* what) {
    if (code == MPI_SUCCESS) return Status::OK();
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return Status::IOError(std::string("MPI ") + what + ": " + std::string(text, static_cast<size_t>(length)));
  }
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool mpi_available() { return true; }

std::unique_ptr<Communicator> mpi_communicator(std::string* error) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    // Only the thread that called init talks to MPI (the engine's main thread).
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      *error = "MPI_Init failed";
      return nullptr;
    }
    // Errors come back as codes (turned into a Status) instead of ending the job at once.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  return std::make_unique<MpiCommunicator>();
}

void mpi_finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

}  // namespace sg

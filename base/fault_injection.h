// I/O fault injection, a test hook: with
//   SHARDGRAPH_FAULTS="read-eio@N,read-short@N,write-eio@N,write-enospc@N"
// the Nth read (or write) call through the I/O layer, counted from 1 over
// the whole process, fails with EIO / ENOSPC or moves fewer bytes than
// asked (a short transfer, which callers must continue). Every read and
// write site calls next_read_fault() / next_write_fault() once per system
// call: device queues (io_uring and pread), File, vertex range I/O and the
// edge readers. Without the variable both return kNone at once.
#pragma once

namespace sg {

struct InjectedFault {
  enum Kind { kNone, kError, kShort } kind = kNone;
  int error = 0;  // errno for kError
};

InjectedFault next_read_fault();
InjectedFault next_write_fault();

// Applies a fault to the result of a read/write system call (bytes moved,
// or -1 with errno): an error replaces it, a short transfer halves it.
long apply_fault(const InjectedFault& fault, long result);

}  // namespace sg

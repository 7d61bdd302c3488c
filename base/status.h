// The engine's errors as values: the public shardgraph::Status, named
// sg::Status inside the tree, and the macro that returns one early.
#pragma once

#include "shardgraph/status.h"

namespace sg {
using Status = shardgraph::Status;
}  // namespace sg

#define SG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::sg::Status sg_status_ = (expr);        \
    if (!sg_status_.ok()) return sg_status_; \
  } while (0)

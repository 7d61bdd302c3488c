// `shardgraph ingest`: edge list -> graph directory (docs/architecture.md, Ingest).
//
// A distribution sort, each phase bounded by the memory budget:
//  1. (--remap only) read the input once to collect the distinct ids;
//     (--order) compute the vertex order;
//  2. route: read the input once, translate ids, and route every arc into
//     its space's buckets by key range (out-space by source, in-space by
//     destination, both in parallel), spilling full bucket buffers to one
//     file per space with large sequential writes; count arcs per vertex
//     block (shards/ingest/bucket_router.h, vertex_histogram.h);
//  3. choose vertex intervals that balance arcs;
//  4. sort: per space, read buckets back in order in batches that fit the
//     budget, sort each batch in memory and encode its lists into chunks in
//     parallel, striped over the devices (space_builder.h, chunk_encoder.h);
//  5. write indexes, degrees and id map, rename device files, write the
//     manifest last and rename the temporary directory into place.
// Any failure (bad line, full disk, signal) removes everything written.
//
// The job (ingest_job.h: ingest.cc runs it, ingest_build.cc routes and
// sorts) ties together units named for what they hold: the ids
// (id_translation.h), the budget's plan (ingest_plan.h), routing
// (bucket_router.h), sorting and encoding (space_builder.h), and the
// directories with their commit and cleanup (graph_files.h).
#pragma once

#include "base/status.h"
#include "shards/ingest/ingest_options.h"
#include "shards/ingest/ingest_plan.h"

namespace sg {

Status ingest_graph(const IngestOptions& options, IngestSummary* summary);

}  // namespace sg

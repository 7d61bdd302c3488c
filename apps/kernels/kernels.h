// The algorithms, each a free function over the engine (one file each,
// GAPBS style). They use edge_map / vertex_map only: no I/O code here.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "apps/kernels/rank_slots.h"
#include "core/engine.h"
#include "shards/ingest/edge_reader.h"

namespace sg {

struct SlotArcs;  // shards/ingest/permutation.h

struct PageRankOptions {
  int iterations = 20;
  double tolerance = 0;  // stop early when the L1 change of an iteration is below it
  double damping = 0.85;
};
// Returns the iterations run.
Status pagerank(Engine* engine, const PageRankOptions& options, VertexArray<double>* ranks, int* iterations_run);

struct PageRankDeltaOptions {
  double damping = 0.85;
  double epsilon = 0.01;  // a vertex stays active while |pending| > epsilon * rank (Ligra's epsilon2)
  int max_rounds = 100;
};
Status pagerank_delta(Engine* engine, const PageRankDeltaOptions& options, VertexArray<double>* ranks, int* rounds);

struct SpmvOptions {
  int iterations = 1;  // y = (A^T)^k x
};
Status spmv(Engine* engine, const SpmvOptions& options, VertexArray<double>* y);

constexpr int32_t kUnreached = -1;
constexpr uint32_t kNoParent = UINT32_MAX;
// `parent` may be null (depths only).
Status bfs(Engine* engine, uint32_t source, VertexArray<int32_t>* depth, VertexArray<uint32_t>* parent);

Status wcc(Engine* engine, VertexArray<uint32_t>* labels);
Status wcc_union_find(Engine* engine, VertexArray<uint32_t>* labels);  // needs 4 bytes a vertex whole

Status sssp(Engine* engine, uint32_t source, bool unit_weights, VertexArray<float>* distance);

// Coreness of every vertex (apps/kcore.cc); a directed graph counts as its
// undirected multigraph, self-loops excluded.
Status kcore(Engine* engine, VertexArray<uint32_t>* coreness);

// One source's betweenness contributions, Brandes' dependencies delta(v)
// (apps/betweenness.cc).
Status betweenness(Engine* engine, uint32_t source, VertexArray<double>* delta);

// Graphalytics CDLP (apps/cdlp.cc): labels are original ids; loads the id map.
Status cdlp(Engine* engine, int iterations, VertexArray<uint64_t>* labels);

// Graphalytics LCC (apps/lcc.cc); *arcs_among_neighbours = the sum of the
// numerators (6 x triangles on an undirected graph).
Status lcc(Engine* engine, VertexArray<double>* coefficient, uint64_t* arcs_among_neighbours);

// Vertex orders for ingest (apps/traversal_order.cc): new_id[old_id]. Needs
// new_id (4 bytes a vertex) and `work_bytes` besides the engine's budget.
enum class TraversalOrder { kBfds, kBfs };

// The out-lists of the vertices a bfds traversal can still step from,
// held in memory (traversal_order.cc: the residual).
struct ResidualLists {
  std::vector<uint32_t> vertices;  // ascending, each with at least one arc
  std::vector<uint64_t> begin;     // into neighbours; vertices.size() + 1 entries
  std::vector<uint32_t> neighbours;
};
// A step the residual's read takes over: each batch of out-arcs it reads
// goes to visit (in any order; the step keeps what its frontier's arcs find).
struct ResidualStep {
  std::function<void(const RawEdge* arcs, size_t count)> visit;
};
// Offered the live vertices (`live(v)`: not yet numbered, or in the next
// level), their count with out-arcs and their out-arcs: fills `lists` with
// those vertices' out-lists and sets *taken, after which the traversal no
// longer uses its engine; or leaves *taken false. With a `step`, the read
// that fills them also passes every out-arc to step->visit (a dense step
// and the residual in one read); without one it is offered once. live(v)
// does not change while the lists are read, the step's pushes included.
using ResidualSource =
    std::function<Status(const std::function<bool(uint32_t)>& live, uint64_t live_vertices, uint64_t live_arcs,
                         const ResidualStep* step, ResidualLists* lists, bool* taken)>;
// A bfds traversal's first two levels, taken elsewhere
// (bfds_first_levels.h): each vertex's rank, the root's 0, level 1's
// 1..level1_vertices in numbering order, level 2's kFound | its smallest
// discoverer's rank (rank_slots.h), the rest kUnranked.
struct BfdsStart {
  std::vector<uint32_t> ranks;
  uint32_t level1_vertices = 0;  // 0: no start
};
// `start`: bfds goes on from it (the same order, two engine steps fewer).
Status traversal_order(Engine* engine, TraversalOrder kind, uint64_t work_bytes, std::vector<uint32_t>* new_id,
                       const ResidualSource& residual = {}, BfdsStart start = {});
// The bfds order written to `path` (new_id as uint32 in old-id order), its
// ranks held compact: 4 bytes for each vertex of in-degree > 0 and 1.5 bits
// a vertex (RankSlots), where new_id takes 4 bytes a vertex. `members`:
// the ranks' members if found before (bfds_compact_ranks), else found here.
// `slot_arcs`: each space's arcs per slot of new ids too (SlotArcs, which
// a relabelling pass cuts its buckets by), counted from the degree files.
Status bfds_order_to_file(Engine* engine, uint64_t work_bytes, const std::string& path,
                          const ResidualSource& residual = {}, RankSlots members = {}, SlotArcs* slot_arcs = nullptr);
// The compact ranks' members of `graph` (the vertices of in-degree > 0),
// whose compact_bytes() say what the ranks will take.
Status bfds_compact_ranks(const Graph& graph, RankSlots* slots);

}  // namespace sg

// Locality orders computed by traversing the stored graph with the engine,
// so they need O(|V|) memory, not the graph. Each returns
// new_id[old_id]:
//   bfds  IOE-Order's breadth-first degree-second (Li et al., "Optimizing
//         Graph Processing on Out-of-Core Systems...", FAST'22 IOE-Order):
//         BFS over out-edges from the vertex of highest in-degree; the
//         vertices one level discovers are numbered by their discoverer's
//         number (the earliest in the queue), then by decreasing in-degree,
//         then by id. That is a sequential BFS that visits each vertex's
//         out-neighbours in decreasing in-degree order, done a level at a
//         time (edge_map) so that it runs out of core.
//   bfs   the same over edges in both directions from the vertex of highest
//         total degree, ties by id (Cuthill-McKee-like).
// When a traversal ends, the next roots are the unvisited vertices of highest
// degree, taken 1, 2, 4, ... at a time, so a graph with a million small
// components needs about 20 restarts, not a million.
//
// The residual: once the main traversal's large levels are done, the
// vertices a later step can start from (those not yet numbered, and the
// next level) hold few arcs, yet a small frontier spread over the graph
// still reads nearly every chunk each step (R-MAT 24 in 176 MiB: 1.66 GB of
// its order's 3.26 GB after the third step, for frontiers of at most 665 K
// vertices). Offered the live vertices once (at the first sparse level
// after a dense one), a ResidualSource may hold their out-lists in memory;
// the rest of the traversal then steps over those, in the same order the
// engine's push would number them. Before a step that reads about every
// list, the residual is offered with that step (residual_step): one read
// then both pushes the frontier's arcs and keeps the live vertices' lists.
//
// Memory: the ranks (4 bytes a vertex, which become new_id) and `work_bytes`;
// or, for bfds written to a file, the compact ranks: 4 bytes a vertex of
// in-degree > 0 and 1.5 bits a vertex to find them (RankSlots), since a
// vertex no arc reaches is only ever a root, and bfds takes those last, by
// id (R-MAT 26: 27 M of 67 M vertices, 121 MB instead of 268);
// degrees are read from the graph's degree files a block at a time, never
// held whole. A vertex found in the current level holds kFound | its
// discoverer's rank in its rank slot until the level is numbered, so no
// second array is needed; the level is numbered in passes of the smallest
// keys that fit the work room (with what the engine's cache lends it), or
// for bfds, whose passes would each read the degrees again, through a
// scratch file of runs (level_runs.h); and the next roots come from a
// bounded list refilled by a scan of the degree files when it runs out.
#include <algorithm>
#include <cassert>
#include <functional>

#include "apps/kernels/kernels.h"
#include "apps/kernels/level_runs.h"
#include "apps/kernels/rank_slots.h"
#include "base/file_util.h"
#include "base/parallel.h"
#include "shards/ingest/permutation.h"

namespace sg {
namespace {

// Each vertex first reached in a level keeps the smallest rank among the
// vertices that reach it (tagged kFound until the level is numbered).
struct Discover {
  RankSlots* rank;
  bool update(uint32_t u, uint32_t v, float) { return update_with(source_state(u), v); }
  // A push takes these (edge_step.h) in place of cond and update_atomic:
  // what a source offers its targets is found once a list, since a compact
  // rank's slot costs a bit count and two loads.
  uint32_t source_state(uint32_t u) { return kFound | (*rank)[u]; }
  // A target numbered already (cond false) is refused here too: it holds
  // a rank below kFound, which no offer is.
  bool update_with(uint32_t offer, uint32_t v) {
    uint32_t& target = (*rank)[v];
    const bool first = target == kUnranked;
    target = std::min(target, offer);
    return first;
  }
  bool update_atomic_with(uint32_t offer, uint32_t v, float) {  // true for the write that replaced kUnranked
    std::atomic_ref<uint32_t> target((*rank)[v]);
    uint32_t current = target.load(std::memory_order_relaxed);
    while (offer < current) {
      if (target.compare_exchange_weak(current, offer, std::memory_order_relaxed)) return current == kUnranked;
    }
    return false;
  }
  bool cond(uint32_t v) const {
    return std::atomic_ref<uint32_t>((*rank)[v]).load(std::memory_order_relaxed) >= kFound;
  }
  void prefetch(uint32_t v) const { rank->prefetch(v); }
  void prefetch_lookup(uint32_t v) const { rank->prefetch_slot(v); }
};

// The degree an order sorts by (in-degree, or in + out for bfs), read from
// the degree files a block of vertices at a time: a walk in id order reads
// each block once. With `block_vertices` of |V| the degrees are read once
// and held: a level's walk then reads no file (a shuffled 1000 x 1000 grid
// has 4,357 levels, each with members in every 16 Ki block).
class DegreeBlocks {
 public:
  static constexpr uint32_t kBlock = 16384;
  // Bytes a vertex held costs.
  static constexpr uint64_t kBytesPerVertex = sizeof(uint64_t) + sizeof(uint32_t);

  // The in-degree, or in + out (`both_ways`), or (`out_only`) the out-degree.
  Status open(const Graph& graph, bool both_ways, bool out_only = false, uint32_t block_vertices = kBlock) {
    block_ = std::max(block_vertices, 1u);
    n_ = graph.num_vertices();
    std::vector<SpaceKind> kinds = {graph.directed() && !out_only ? SpaceKind::kIn : SpaceKind::kOut};
    if (both_ways && graph.directed()) kinds.push_back(SpaceKind::kOut);
    for (SpaceKind kind : kinds) {
      SG_RETURN_IF_ERROR(graph.scan_degree_file(kind));  // size and checksum, once
      files_.emplace_back();
      SG_RETURN_IF_ERROR(File::open_read(graph.degree_path(kind), &files_.back()));
    }
    values_.resize(std::min<uint64_t>(block_, n_));
    piece_.resize(values_.size());
    return Status::OK();
  }
  Status get(uint32_t v, uint64_t* degree) {
    if (v < first_ || v >= first_ + count_) SG_RETURN_IF_ERROR(load(v / block_ * block_));
    *degree = values_[v - first_];
    return Status::OK();
  }

 private:
  Status load(uint32_t first) {
    count_ = std::min<uint32_t>(block_, n_ - first);
    std::fill(values_.begin(), values_.begin() + count_, 0);
    for (const File& file : files_) {
      SG_RETURN_IF_ERROR(
          file.pread_all(piece_.data(), size_t{count_} * sizeof(uint32_t), uint64_t{first} * sizeof(uint32_t)));
      for (uint32_t i = 0; i < count_; ++i) values_[i] += piece_[i];
    }
    first_ = first;
    return Status::OK();
  }
  uint32_t n_ = 0, first_ = 0, count_ = 0, block_ = kBlock;
  std::vector<File> files_;
  std::vector<uint64_t> values_;
  std::vector<uint32_t> piece_;
};

// Keeps the `capacity` smallest of the values offered (a buffer of twice
// that, cut back with nth_element when full), then sorts them.
template <typename T>
class SmallestValues {
 public:
  explicit SmallestValues(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}
  void offer(const T& value) {
    if (bounded_ && !(value < bound_)) return;  // cannot be among the smallest
    if (values_.capacity() == 0) values_.reserve(2 * capacity_);
    values_.push_back(value);
    if (values_.size() == 2 * capacity_) cut();
  }
  // Starts over, keeping the `capacity` smallest of at most `offers` values:
  // with offers <= capacity, a buffer of just those, never cut.
  void clear(size_t capacity, size_t offers) {
    clear();
    capacity_ = std::max<size_t>(capacity, 1);
    values_.reserve(std::min(2 * capacity_, std::max<size_t>(offers, 1)));
  }
  void release() {
    clear();
    std::vector<T>().swap(values_);  // its memory, not only its values
  }
  void sort() {
    if (values_.size() > capacity_) cut();
    parallel_sort(values_.begin(), values_.end(), std::less<T>());
  }
  const std::vector<T>& values() const { return values_; }
  void clear() {
    values_.clear();
    bounded_ = false;
  }

 private:
  void cut() {
    std::nth_element(values_.begin(), values_.begin() + static_cast<ptrdiff_t>(capacity_ - 1), values_.end());
    values_.resize(capacity_);
    bound_ = values_[capacity_ - 1];
    bounded_ = true;
  }
  size_t capacity_;
  std::vector<T> values_;
  bool bounded_ = false;
  T bound_{};
};

// A root candidate in root order: decreasing degree, then id.
struct RootKey {
  uint64_t degree_complement;
  uint32_t id;
  auto operator<=>(const RootKey&) const = default;
};

class Ordering {
 public:
  // `compact`: bfds only (RankSlots).
  Ordering(Engine* engine, TraversalOrder kind, uint64_t work_bytes, bool compact, const ResidualSource& residual,
           BfdsStart start = {})
      : engine_(engine),
        residual_(residual),
        start_(std::move(start)),
        both_ways_(kind == TraversalOrder::kBfs),
        compact_(compact && kind == TraversalOrder::kBfds),
        n_(engine->num_vertices()),
        // Named now: once a residual is taken the engine is gone.
        level_file_near_(default_scratch_dir(engine->graph().dir()) + "/.order-level"),
        out_degree_path_(engine->graph().degree_path(SpaceKind::kOut)),
        in_degree_path_(engine->graph().directed() ? engine->graph().degree_path(SpaceKind::kIn) : ""),
        held_degree_bytes_(held_degree_bytes(kind, n_, work_bytes)),
        // Roots after the first few come from small components: an eighth.
        level_room_bytes_(std::max<uint64_t>((work_bytes - held_degree_bytes_) / 8 * 7, 8 * sizeof(LevelKey))),
        level_(level_room_bytes_ / (2 * sizeof(LevelKey))),
        roots_(std::max<uint64_t>((work_bytes - held_degree_bytes_) / 8 / (2 * sizeof(RootKey)), 4)) {}

  Status run() {
    if (n_ >= kFound) return Status::InvalidArgument("a traversal order numbers fewer than 2^31 vertices");
    const uint32_t block = held_degree_bytes_ > 0 ? std::max(n_, 1u) : DegreeBlocks::kBlock;
    SG_RETURN_IF_ERROR(degrees_.open(engine_->graph(), both_ways_, false, block));
    if (!both_ways_) SG_RETURN_IF_ERROR(out_degrees_.open(engine_->graph(), false, true));
    const bool started = start_.level1_vertices > 0 && !compact_ && !both_ways_ && start_.ranks.size() == n_;
    if (started) {
      rank_.adopt_whole(std::move(start_.ranks));
    } else if (compact_) {
      SG_RETURN_IF_ERROR(rank_.init_compact(n_, [&](uint32_t v, uint64_t* degree) { return degrees_.get(v, degree); }));
    } else {
      rank_.init_whole(n_);
    }
    size_t batch = 1;
    if (started) {
      SG_RETURN_IF_ERROR(resume_at_level2());
      batch = 2;  // the first root's batch was the start's
    }
    while (next_rank_ < rank_.members()) {
      const uint32_t first_root = next_rank_;
      VertexSubset frontier;
      SG_RETURN_IF_ERROR(take_roots(batch, &frontier));
      if (next_rank_ == first_root) return Status::Corruption("traversal order: unranked vertices but no root");
      batch *= 2;
      SG_RETURN_IF_ERROR(traverse(std::move(frontier)));
    }
    if (!residual_taken_) engine_->end_iterations();
    return Status::OK();
  }

  std::vector<uint32_t> take_new_ids() { return rank_.take_whole(); }
  // The compact ranks' members, found before (bfds_compact_ranks), if so.
  void take_members(RankSlots members) {
    if (compact_ && members.members_found()) rank_ = std::move(members);
  }

  // new_id in id order: a member's rank, or for the others (numbered last
  // by id, as the whole form's roots of degree 0 are) the next after them.
  // With `slot_arcs`, each space's arcs per slot of new ids too, from the
  // degree files read beside: the relabelling pass cuts its buckets by
  // them, and would otherwise read the permutation file once a space.
  Status write_new_ids(const std::string& path, SlotArcs* slot_arcs) {
    constexpr uint32_t kPiece = 1 << 16;
    File out;
    SG_RETURN_IF_ERROR(File::create(path, &out));
    std::vector<File> degree_files;  // out, then in (a directed graph's)
    if (slot_arcs != nullptr) SG_RETURN_IF_ERROR(open_degree_files(slot_arcs, &degree_files));
    std::vector<uint32_t> piece(std::min(kPiece, std::max(n_, 1u)));
    std::vector<uint32_t> degrees(degree_files.empty() ? 0 : piece.size());
    uint32_t next_other = rank_.members();
    for (uint32_t first = 0; first < n_; first += kPiece) {
      const uint32_t count = std::min(kPiece, n_ - first);
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t v = first + i;
        piece[i] = rank_.member(v) ? rank_[v] : next_other++;
        assert(piece[i] < n_);
      }
      SG_RETURN_IF_ERROR(
          out.pwrite_all(piece.data(), size_t{count} * sizeof(uint32_t), uint64_t{first} * sizeof(uint32_t)));
      for (size_t k = 0; k < degree_files.size(); ++k) {
        SG_RETURN_IF_ERROR(degree_files[k].pread_all(degrees.data(), size_t{count} * sizeof(uint32_t),
                                                     uint64_t{first} * sizeof(uint32_t)));
        std::vector<uint64_t>& arcs = k == 0 ? slot_arcs->out : slot_arcs->in;
        for (uint32_t i = 0; i < count; ++i) arcs[piece[i] >> slot_arcs->shift] += degrees[i];
      }
    }
    if (next_other != n_) return Status::Corruption("traversal order: the compact ranks do not number every vertex");
    return out.close();  // a work file the relabel reads: never synced
  }

 private:
  Status open_degree_files(SlotArcs* slot_arcs, std::vector<File>* files) const {
    *slot_arcs = SlotArcs::zeros(n_, !in_degree_path_.empty());
    for (const std::string& path : {out_degree_path_, in_degree_path_}) {
      if (path.empty()) continue;
      files->emplace_back();
      SG_RETURN_IF_ERROR(File::open_read(path, &files->back()));
    }
    return Status::OK();
  }

  // Ranks up to `batch` roots, the unranked vertices of highest degree.
  Status take_roots(size_t batch, VertexSubset* frontier) {
    constexpr size_t kListedRoots = 4096;  // more go in a bitmap
    VertexSubset dense = VertexSubset::dense_builder(batch > kListedRoots ? n_ : 0);
    std::vector<uint32_t> listed;
    for (size_t taken = 0; taken < batch;) {
      uint32_t v = 0;
      bool any = false;
      SG_RETURN_IF_ERROR(next_root(&v, &any));
      if (!any) break;
      rank_[v] = next_rank_++;
      ++taken;
      // A root without out-edges (bfs: without edges) discovers nothing:
      // kept out of the frontier, the step would still read its chunk.
      bool leads_on = !only_degree_zero_ || !both_ways_;
      if (!both_ways_) {
        uint64_t out_degree = 0;
        SG_RETURN_IF_ERROR(out_degrees_.get(v, &out_degree));
        leads_on = out_degree > 0;
      }
      if (!leads_on) continue;
      if (batch > kListedRoots) {
        dense.set(v);
      } else {
        listed.push_back(v);
      }
    }
    if (batch > kListedRoots) {
      dense.recount();
      *frontier = std::move(dense);
    } else {
      *frontier = VertexSubset::from_list(n_, std::move(listed));
    }
    return Status::OK();
  }

  // The unranked vertex of highest degree (ties by id), from the root list;
  // once only vertices of degree 0 are left, simply the next by id.
  Status next_root(uint32_t* root, bool* any) {
    for (;;) {
      if (only_degree_zero_) {
        while (zero_cursor_ < n_ && rank_[zero_cursor_] != kUnranked) ++zero_cursor_;
        *any = zero_cursor_ < n_;
        *root = zero_cursor_;
        return Status::OK();
      }
      if (root_cursor_ == roots_.values().size()) {
        SG_RETURN_IF_ERROR(refill_roots());
        *any = !roots_.values().empty();
        if (!*any) return Status::OK();
        only_degree_zero_ = roots_.values().front().degree_complement == ~uint64_t{0};
        continue;
      }
      const uint32_t v = roots_.values()[root_cursor_++].id;
      if (rank_[v] != kUnranked) continue;
      *root = v;
      *any = true;
      return Status::OK();
    }
  }

  // The unranked vertices of highest degree, as many as the room holds.
  Status refill_roots() {
    root_cursor_ = 0;
    roots_.clear();
    for (uint32_t v = 0; v < n_; ++v) {
      if (rank_[v] != kUnranked) continue;
      uint64_t degree = 0;
      SG_RETURN_IF_ERROR(degrees_.get(v, &degree));
      roots_.offer(RootKey{~degree, v});
    }
    roots_.sort();
    return Status::OK();
  }

  // Goes on from a start's first two levels (BfdsStart) as if the engine
  // had stepped from the root and from level 1: level 2 is numbered, then
  // stepped from.
  Status resume_at_level2() {
    next_rank_ = 1 + start_.level1_vertices;
    step_ = 2;
    // engine_step's count for frontiers of 1 and level1_vertices
    dense_steps_ = (8 >= n_ ? 1 : 0) + (uint64_t{start_.level1_vertices} * 8 >= n_ ? 1 : 0);
    VertexSubset next = VertexSubset::dense_builder(n_);
    for (uint32_t v = 0; v < n_; ++v) {
      if (rank_[v] >= kFound && rank_[v] != kUnranked) next.set(v);
    }
    next.recount();
    if (next.size() * 64 < n_) next.to_sparse();  // a list, as the engine makes a small level
    SG_RETURN_IF_ERROR(number_level(&next));
    SG_RETURN_IF_ERROR(offer_residual(next));
    return traverse(std::move(next));
  }

  Status traverse(VertexSubset frontier) {
    while (!frontier.is_empty()) {
      Discover discover{&rank_};
      VertexSubset next;
      bool streamed = false;
      if (residual_taken_) {
        push_residual(frontier, discover, &next);
      } else {
        SG_RETURN_IF_ERROR(residual_step(frontier, discover, &next, &streamed));
        if (!streamed) SG_RETURN_IF_ERROR(engine_step(frontier, discover, &next));
      }
      SG_RETURN_IF_ERROR(number_level(&next));
      if (!residual_taken_) SG_RETURN_IF_ERROR(offer_residual(next));
      frontier = std::move(next);
    }
    return Status::OK();
  }

  Status engine_step(const VertexSubset& frontier, Discover& discover, VertexSubset* next) {
    engine_->set_iteration(step_++);
    // An out-only graph (an ordered ingest's intermediate) has no in-space to pull from.
    const bool push_only = engine_->graph().block_count(SpaceKind::kIn) == 0;
    SG_RETURN_IF_ERROR(
        engine_->edge_map(frontier, discover, next, EdgeMapOptions{push_only ? Direction::kPush : Direction::kAuto}));
    if (both_ways_ && engine_->graph().directed()) {
      VertexSubset backward;
      SG_RETURN_IF_ERROR(engine_->edge_map(frontier, discover, &backward, EdgeMapOptions{Direction::kAuto, true}));
      next->add_all(backward);
    }
    if (frontier.size() * 8 >= n_) dense_steps_ += 1;
    return Status::OK();
  }

  // A push step over the residual's lists: every frontier vertex's list is
  // there (it was live when they were taken).
  void push_residual(const VertexSubset& frontier, Discover& discover, VertexSubset* next) {
    std::vector<uint32_t> found;
    // A level comes in id order (roots by degree): each list is searched
    // for from the last one found on, unless the ids go back.
    auto from = lists_.vertices.begin();
    uint32_t last = 0;
    frontier.for_each([&](uint32_t u) {
      if (u < last) from = lists_.vertices.begin();
      last = u;
      const auto at = std::lower_bound(from, lists_.vertices.end(), u);
      from = at;
      if (at == lists_.vertices.end() || *at != u) return;  // no out-arcs
      const size_t i = static_cast<size_t>(at - lists_.vertices.begin());
      for (uint64_t k = lists_.begin[i]; k < lists_.begin[i + 1]; ++k) {
        const uint32_t v = lists_.neighbours[k];
        if (discover.cond(v) && discover.update(u, v, 1.0f)) found.push_back(v);
      }
    });
    std::sort(found.begin(), found.end());
    *next = VertexSubset::from_list(n_, std::move(found));
  }

  // A step that reads about every list and the residual in one read: the
  // live vertices after the step are those not numbered before it (what it
  // finds is among them), so the ResidualSource may read every list once,
  // keeping theirs and passing the frontier's arcs to the step as they go
  // by. Taken after the step, the residual read the graph once more (R-MAT
  // 24 in 176 MiB on an emulated HDD: 0.51 GB of its order's 2.18 GB). A
  // step reads about every list when its frontier is dense (an eighth of
  // the vertices), or not sparse (a 64th) after a dense one: the frontiers
  // the old rule (offer_residual) would step from, then read everything
  // again.
  Status residual_step(const VertexSubset& frontier, Discover& discover, VertexSubset* next, bool* streamed) {
    const bool reads_all = frontier.size() * 8 >= n_ || (dense_steps_ > 0 && frontier.size() * 64 >= n_);
    if (!residual_ || residual_offered_ || both_ways_ || !reads_all) return Status::OK();
    // Found by this step (kFound) means not numbered before it.
    const auto live = [&](uint32_t v) { return rank_[v] >= kFound; };
    uint64_t vertices = 0, arcs = 0;
    SG_RETURN_IF_ERROR(count_live(live, &vertices, &arcs));
    refused_ = RefusedStep{step_, vertices, arcs};
    VertexSubset dense;
    const VertexSubset* from = &frontier;
    if (!frontier.is_dense()) {
      dense = frontier;
      dense.to_dense();
      from = &dense;
    }
    VertexSubset found = VertexSubset::dense_builder(n_);  // a bitmap, as an engine step's next level
    std::vector<uint32_t> pushed;                          // a batch's arcs from the frontier
    const ResidualStep step{[&](const RawEdge* batch, size_t count) {
      // One thread reads every arc here: the target's rank slot, asked for
      // ahead, is most of the time (88 % of its samples, R-MAT 24). Arcs
      // come a list at a time, so the frontier is asked once a list, and
      // only its arcs' slots are asked for: the hubs' lists, numbered
      // before, hold most arcs.
      pushed.clear();
      uint64_t last_source = UINT64_MAX;
      bool last_in = false;
      for (size_t i = 0; i < count; ++i) {
        if (batch[i].src != last_source) {
          last_source = batch[i].src;
          last_in = from->contains(static_cast<uint32_t>(last_source));
        }
        if (last_in) pushed.push_back(static_cast<uint32_t>(i));
      }
      constexpr size_t kAhead = 32;
      last_source = UINT64_MAX;
      uint32_t offer = 0;
      for (size_t k = 0; k < pushed.size(); ++k) {
        if (k + kAhead < pushed.size()) rank_.prefetch(static_cast<uint32_t>(batch[pushed[k + kAhead]].dst));
        const RawEdge& arc = batch[pushed[k]];
        if (arc.src != last_source) {
          last_source = arc.src;
          offer = discover.source_state(static_cast<uint32_t>(arc.src));
        }
        if (discover.update_with(offer, static_cast<uint32_t>(arc.dst))) found.set(static_cast<uint32_t>(arc.dst));
      }
    }};
    SG_RETURN_IF_ERROR(residual_(live, vertices, arcs, &step, &lists_, &residual_taken_));
    if (!residual_taken_) return Status::OK();  // the engine steps, and is offered again later
    residual_offered_ = true;
    if (frontier.size() * 8 >= n_) dense_steps_ += 1;
    found.recount();
    *next = std::move(found);
    *streamed = true;
    return Status::OK();
  }

  // Offers the live vertices to the ResidualSource once: at the first
  // sparse level (under 1/64 of the vertices) after a dense one.
  Status offer_residual(const VertexSubset& next) {
    if (!residual_ || residual_offered_ || both_ways_ || dense_steps_ == 0 || next.size() * 64 >= n_) {
      return Status::OK();
    }
    residual_offered_ = true;
    const auto live = [&](uint32_t v) {
      if (rank_[v] == kUnranked) return true;
      if (next.is_dense()) return next.contains(v);
      return std::binary_search(next.list().begin(), next.list().end(), v);
    };
    uint64_t vertices = 0, arcs = 0;
    // Refused with the step that found `next`: those live vertices were the
    // unnumbered ones then, the same as these (what the step found is
    // next), so their count holds (R-MAT 24: a pass over the out-degrees).
    if (refused_.step + 1 == step_) {
      vertices = refused_.vertices;
      arcs = refused_.arcs;
    } else {
      SG_RETURN_IF_ERROR(count_live(live, &vertices, &arcs));
    }
    return residual_(live, vertices, arcs, nullptr, &lists_, &residual_taken_);
  }

  // The live vertices with out-arcs, and their out-arcs.
  template <typename Live>
  Status count_live(const Live& live, uint64_t* vertices, uint64_t* arcs) {
    for (uint32_t v = 0; v < n_; ++v) {
      if (!live(v)) continue;
      uint64_t degree = 0;
      SG_RETURN_IF_ERROR(out_degrees_.get(v, &degree));
      *vertices += degree > 0;
      *arcs += degree;
    }
    return Status::OK();
  }

  // Numbers a level's vertices in key order: in passes over the level, each
  // numbering the smallest keys that fit the room (numbered vertices drop
  // out); or, when those passes would read the in-degrees again each time,
  // through a file of runs (level_runs.h).
  Status number_level(VertexSubset* found) {
    // Walked in id order, so degree blocks are read once per pass. A small
    // level stays a list (sorted, as the engine makes them): as a bitmap it
    // would be the next step's frontier, and a path graph's 200,000 levels
    // of one vertex each took 34 s, the planner walking a chunk's vertices
    // for each.
    if (found->is_dense() || !std::is_sorted(found->list().begin(), found->list().end())) found->to_dense();
    const uint64_t borrowed = borrow_level_room(found->size());
    const uint64_t room_keys = (level_room_bytes_ + borrowed) / sizeof(LevelKey);
    const bool through_runs = !both_ways_ && held_degree_bytes_ == 0 && found->size() > room_keys;
    const Status status = through_runs ? number_through_runs(*found, room_keys) : number_in_passes(*found, room_keys);
    if (borrowed > 0) {
      level_.release();
      engine_->release_app_memory(borrowed);
    }
    return status;
  }

  // The level's vertices not numbered yet (numbered ones, in an earlier
  // pass, hold their rank), in id order, each with its discoverer's rank.
  template <typename Visit>
  void for_each_unnumbered(const VertexSubset& found, Visit&& visit) {
    found.for_each([&](uint32_t v) {
      if (const uint32_t tagged = rank_[v]; tagged >= kFound) visit(v, tagged & ~kFound);
    });
  }

  // Their keys.
  template <typename Offer>
  Status for_each_level_key(const VertexSubset& found, Offer&& offer) {
    Status status;
    for_each_unnumbered(found, [&](uint32_t v, uint32_t parent_rank) {
      if (!status.ok()) return;
      uint64_t degree = 0;
      if (!both_ways_) status = degrees_.get(v, &degree);
      offer(LevelKey{parent_rank, ~static_cast<uint32_t>(std::min<uint64_t>(degree, UINT32_MAX)), v});
    });
    return status;
  }

  Status number_in_passes(const VertexSubset& found, uint64_t room_keys) {
    return number_keys(found.size(), room_keys, [&](const auto& offer) { return for_each_level_key(found, offer); });
  }

  // Numbers `count` keys, the smallest that fit the room per call of
  // for_each_key(offer), which offers every key not numbered yet.
  template <typename ForEachKey>
  Status number_keys(uint64_t count, uint64_t room_keys, ForEachKey&& for_each_key) {
    const uint32_t first = next_rank_;
    while (next_rank_ - first < count) {
      const uint64_t left = count - (next_rank_ - first);
      level_.clear(left <= room_keys ? left : room_keys / 2, left);
      SG_RETURN_IF_ERROR(for_each_key([&](const LevelKey& key) { level_.offer(key); }));
      level_.sort();
      if (level_.values().empty()) return Status::Corruption("traversal order: a level's pass found nothing to number");
      for (const LevelKey& key : level_.values()) rank_[key.id] = next_rank_++;
    }
    return Status::OK();
  }

  // The in-degrees read once: each key written to its run, by discoverer
  // (found by a walk of the level, then counted by another), and each run
  // numbered from its part of the file, in the order of their discoverers.
  Status number_through_runs(const VertexSubset& found, uint64_t room_keys) {
    uint32_t first_parent = UINT32_MAX, last_parent = 0;
    for_each_unnumbered(found, [&](uint32_t, uint32_t parent_rank) {
      first_parent = std::min(first_parent, parent_rank);
      last_parent = std::max(last_parent, parent_rank);
    });
    if (first_parent > last_parent) return Status::Corruption("traversal order: a level without discoverers");
    level_.release();  // the runs' buffers take the room while they are written
    LevelRuns runs(first_parent, last_parent, room_keys);
    for_each_unnumbered(found, [&](uint32_t, uint32_t parent_rank) { runs.count(parent_rank); });
    SG_RETURN_IF_ERROR(runs.open(level_file_near_));
    Status added;
    SG_RETURN_IF_ERROR(for_each_level_key(found, [&](const LevelKey& key) {
      if (added.ok()) added = runs.add(key);
    }));
    SG_RETURN_IF_ERROR(added);
    SG_RETURN_IF_ERROR(runs.finish_adding());
    for (size_t run = 0; run < runs.runs(); ++run) {
      SG_RETURN_IF_ERROR(number_keys(runs.run_keys(run), room_keys, [&](const auto& offer) {
        return runs.for_each_in_run(run, [&](const LevelKey& key) {
          if (rank_[key.id] >= kFound) offer(key);  // else numbered in an earlier pass over the run
        });
      }));
    }
    return Status::OK();
  }

  // A level larger than its room borrows what the engine's cache may hold
  // (hold_app_memory drops chunks to make it), to be numbered in one pass
  // or a few. R-MAT 24 in 176 MiB: a level of 5.96 M vertices took 12
  // passes, each reading its in-degrees again; in one, the order took
  // 9.5 -> 8.1 s (page cache) for 60 MB more read by the next step.
  uint64_t borrow_level_room(uint64_t vertices) {
    const uint64_t need = vertices * sizeof(LevelKey);
    if (residual_taken_ || need <= level_room_bytes_) return 0;
    const uint64_t borrowed = std::min(need - level_room_bytes_, engine_->unheld_memory() / 8 * 7);
    if (borrowed > 0) engine_->hold_app_memory(borrowed);
    return borrowed;
  }

  // bfds reads a level's in-degrees: held whole when they take at most
  // half the work room (bfs reads degrees only to pick roots, in id order).
  static uint64_t held_degree_bytes(TraversalOrder kind, uint32_t n, uint64_t work_bytes) {
    const uint64_t bytes = uint64_t{n} * DegreeBlocks::kBytesPerVertex;
    return kind == TraversalOrder::kBfds && bytes <= work_bytes / 2 ? bytes : 0;
  }

  Engine* engine_;
  ResidualSource residual_;
  BfdsStart start_;  // the first two levels, when taken while sorting
  bool residual_offered_ = false;
  // The live count of a residual offered with a step and refused: the
  // engine's step number then, and the count.
  struct RefusedStep {
    int step = -2;  // none yet: step + 1 is never the engine's step number
    uint64_t vertices = 0, arcs = 0;
  } refused_;
  bool residual_taken_ = false;  // the engine is no longer used
  ResidualLists lists_;
  int dense_steps_ = 0;  // steps whose frontier held an eighth of the vertices or more
  bool both_ways_;
  bool compact_;
  uint32_t n_;
  std::string level_file_near_;                   // where a level's runs go (number_through_runs)
  std::string out_degree_path_, in_degree_path_;  // for write_new_ids (the in-space's: a directed graph's)
  RankSlots rank_;
  uint64_t held_degree_bytes_;
  DegreeBlocks degrees_;
  DegreeBlocks out_degrees_;   // bfds: roots without out-edges stay out of the frontier
  uint64_t level_room_bytes_;  // a level's keys: twice the smallest kept per pass, or all of them
  SmallestValues<LevelKey> level_;
  SmallestValues<RootKey> roots_;
  size_t root_cursor_ = 0;
  bool only_degree_zero_ = false;
  uint32_t zero_cursor_ = 0;
  uint32_t next_rank_ = 0;
  int step_ = 0;
};

}  // namespace

Status traversal_order(Engine* engine, TraversalOrder kind, uint64_t work_bytes, std::vector<uint32_t>* new_id,
                       const ResidualSource& residual, BfdsStart start) {
  Ordering ordering(engine, kind, work_bytes, false, residual, std::move(start));
  SG_RETURN_IF_ERROR(ordering.run());
  *new_id = ordering.take_new_ids();
  return Status::OK();
}

Status bfds_order_to_file(Engine* engine, uint64_t work_bytes, const std::string& path, const ResidualSource& residual,
                          RankSlots members, SlotArcs* slot_arcs) {
  Ordering ordering(engine, TraversalOrder::kBfds, work_bytes, true, residual);
  ordering.take_members(std::move(members));
  SG_RETURN_IF_ERROR(ordering.run());
  return ordering.write_new_ids(path, slot_arcs);
}

Status bfds_compact_ranks(const Graph& graph, RankSlots* slots) {
  DegreeBlocks degrees;
  SG_RETURN_IF_ERROR(degrees.open(graph, false));
  return slots->find_members(graph.num_vertices(),
                             [&](uint32_t v, uint64_t* degree) { return degrees.get(v, degree); });
}

}  // namespace sg

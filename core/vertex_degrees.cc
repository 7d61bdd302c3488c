#include "core/vertex_degrees.h"

#include <algorithm>
#include <cassert>

namespace sg {

void VertexDegrees::open(const Graph* graph, VertexResidency* residency, MemoryBudget* budget) {
  graph_ = graph;
  residency_ = residency;
  budget_ = budget;
}

bool VertexDegrees::cheap() const {
  return uint64_t{graph_->num_vertices()} * sizeof(uint32_t) <= budget_->share(kWholeDegreeShare);
}

Status VertexDegrees::setup_at_open() {
  for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    if (graph_->block_count(kind) == 0) continue;  // an out-only graph (push only)
    if (!graph_->space(kind).degrees.empty() || (kind == SpaceKind::kOut && cheap())) SG_RETURN_IF_ERROR(setup(kind));
  }
  return Status::OK();
}

Status VertexDegrees::setup(SpaceKind kind) {
  const size_t s = slot(kind);
  if (ready_[s]) return Status::OK();
  const uint32_t n = graph_->num_vertices();
  const EdgeSpace& space = graph_->space(kind);
  VertexArray<uint32_t>& degrees = degrees_[s];
  // Degrees after updates, cheap to hold: computed in memory, not written
  // to a scratch file and read back.
  bool taken = false;
  if (space.degrees.empty() && cheap())
    SG_RETURN_IF_ERROR(graph_->take_corrected_degrees(kind, &corrected_[s], &taken));
  if (taken) {
    assert(corrected_[s].size() == n);
    const uint64_t bytes = corrected_[s].size() * sizeof(uint32_t);
    degrees.raw().adopt(corrected_[s].data(), bytes);
    budget_->hold(MemoryHolder::kMetadata, bytes);
    corrected_held_bytes_ += bytes;
  } else if (!space.degrees.empty()) {
    degrees.raw().adopt(space.degrees.data(), space.degrees.size() * sizeof(uint32_t));  // counted at open
  } else {
    SG_RETURN_IF_ERROR(graph_->scan_degree_file(kind));
    // Degrees after updates, in a scratch file just written: from the page
    // cache, and its pages go unwritten with the run.
    const bool direct = !graph_->degrees_corrected_in_scratch(kind);
    SG_RETURN_IF_ERROR(degrees.raw().open_ranged(graph_->degree_path(kind), n, sizeof(uint32_t), direct));
    // After the app's edge arrays, before its vertex_map-only ones: the
    // planner prices push steps with exact degrees when they are whole.
    residency_->add(&degrees.raw(), VertexUse::kVertex, sizeof(uint32_t), space.meta.kind + ".degrees", false, 0, 1);
  }
  degrees.set_size(n);
  ready_[s] = true;
  return Status::OK();
}

Status VertexDegrees::read(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out) {
  assert(begin <= end && end <= graph_->num_vertices());
  const size_t s = slot(kind);
  if (ready_[s] && !degrees_[s].ranged()) {
    std::copy(degrees_[s].data() + begin, degrees_[s].data() + end, out);
    return Status::OK();
  }
  File& file = files_[s];
  if (!file.is_open()) {
    SG_RETURN_IF_ERROR(graph_->scan_degree_file(kind));
    SG_RETURN_IF_ERROR(File::open_read(graph_->degree_path(kind), &file));
  }
  return file.pread_all(out, size_t{end - begin} * sizeof(uint32_t), uint64_t{begin} * sizeof(uint32_t));
}

const uint32_t* VertexDegrees::whole(SpaceKind kind) const {
  const size_t s = slot(kind);
  return ready_[s] && !degrees_[s].ranged() ? degrees_[s].data() : nullptr;  // ranged until placed whole
}

void fold_max_degree(uint32_t first, const uint32_t* degrees, size_t count, uint32_t* best, uint32_t* most) {
  for (size_t i = 0; i < count; ++i) {
    if (degrees[i] > *most) {
      *most = degrees[i];
      *best = first + static_cast<uint32_t>(i);
    }
  }
}

Status VertexDegrees::max_out_degree_vertex(uint32_t* vertex) const {
  uint32_t most = 0;
  *vertex = 0;
  if (const uint32_t* degrees = whole(SpaceKind::kOut)) {
    fold_max_degree(0, degrees, graph_->num_vertices(), vertex, &most);
    return Status::OK();
  }
  return graph_->scan_degree_file(SpaceKind::kOut, [&](uint32_t first, const uint32_t* degrees, size_t count) {
    fold_max_degree(first, degrees, count, vertex, &most);
  });
}

void VertexDegrees::release() {
  for (size_t s = 0; s < 2; ++s) {
    degrees_[s] = VertexArray<uint32_t>();
    std::vector<uint32_t>().swap(corrected_[s]);
    ready_[s] = false;
  }
  if (budget_ != nullptr) budget_->release(MemoryHolder::kMetadata, corrected_held_bytes_);
  corrected_held_bytes_ = 0;
}

}  // namespace sg

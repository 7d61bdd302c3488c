#include "shards/ingest/space_output.h"

#include <cassert>

namespace sg {
namespace {
constexpr size_t kWriteBufferBytes = 1 << 20;
constexpr size_t kDegreeBufferEntries = 1 << 16;
}  // namespace

Status SpaceOutput::open(const std::vector<std::string>& device_paths, StripeLayout layout,
                         const std::string& degree_path, bool direct, FileSync sync) {
  sync_ = sync;
  SG_RETURN_IF_ERROR(out_.open(device_paths, layout, kWriteBufferBytes, direct));
  degrees_ = !degree_path.empty();
  if (!degrees_) return Status::OK();
  SG_RETURN_IF_ERROR(File::create(degree_path, &degree_file_));
  degree_buffer_.reserve(kDegreeBufferEntries);
  return Status::OK();
}

Status SpaceOutput::flush_degrees() {
  const size_t bytes = degree_buffer_.size() * sizeof(uint32_t);
  SG_RETURN_IF_ERROR(degree_file_.pwrite_all(degree_buffer_.data(), bytes, degree_file_bytes_));
  degree_sum_.update(degree_buffer_.data(), bytes);
  degree_file_bytes_ += bytes;
  degree_buffer_.clear();
  return Status::OK();
}

Status SpaceOutput::put_degree(uint32_t degree) {
  if (held_) {
    if (held_degree_ > UINT32_MAX) return Status::BadInput("a vertex has more than 2^32-1 neighbours");
    degree_buffer_.push_back(static_cast<uint32_t>(held_degree_));
    ++degrees_written_;
    if (degree_buffer_.size() == kDegreeBufferEntries) SG_RETURN_IF_ERROR(flush_degrees());
  }
  held_ = true;
  held_degree_ = degree;
  return Status::OK();
}

Status SpaceOutput::append(const ChunkEncoder& part) {
  if (degrees_) {
    if (part.continued_edges() > 0) {
      assert(held_);
      held_degree_ += part.continued_edges();
    }
    for (uint32_t degree : part.degrees()) SG_RETURN_IF_ERROR(put_degree(degree));
  }
  for (int c = 0; c < kGapLayouts; ++c) gap_coding_chunks_[c] += part.gap_coding_chunks()[c];
  packed_chunks_ += part.packed_chunks();
  const std::vector<uint8_t>& bytes = part.bytes();
  for (ChunkIndexEntry entry : part.chunks()) {
    SG_RETURN_IF_ERROR(out_.pad_to(kAlignBytes));
    const uint8_t* payload = bytes.data() + entry.offset;
    entry.offset = out_.logical_offset();
    SG_RETURN_IF_ERROR(out_.append(payload, entry.bytes));
    arcs_ += entry.edge_count;
    index_.push_back(entry);
  }
  return Status::OK();
}

Status SpaceOutput::finish(uint32_t num_vertices) {
  if (!degrees_) {
    SG_RETURN_IF_ERROR(out_.pad_to(kAlignBytes));
    return out_.finish(sync_);
  }
  SG_RETURN_IF_ERROR(put_degree(0));  // pushes the held degree out
  if (degrees_written_ != num_vertices) {
    return Status::Corruption("ingest wrote " + std::to_string(degrees_written_) + " degrees for " +
                              std::to_string(num_vertices) + " vertices");
  }
  SG_RETURN_IF_ERROR(flush_degrees());
  degree_checksum_ = degree_sum_.digest();
  SG_RETURN_IF_ERROR(degree_file_.finish_writes(sync_));
  SG_RETURN_IF_ERROR(degree_file_.close());
  SG_RETURN_IF_ERROR(out_.pad_to(kAlignBytes));
  return out_.finish(sync_);
}

Status SpaceOutput::finish_into(uint32_t num_vertices, ListCodec codec, const std::string& index_path,
                                SpaceManifest* meta) {
  SG_RETURN_IF_ERROR(finish(num_vertices));
  meta->logical_bytes = logical_bytes();
  meta->chunks = index_.size();
  meta->arcs = arcs_;
  if (codec == ListCodec::kV3) {
    meta->gap_coding_chunks.assign(gap_coding_chunks_.begin(), gap_coding_chunks_.end());
    meta->packed_chunks = packed_chunks_;
  }
  meta->device_bytes.clear();
  for (uint32_t d = 0; d < out_.device_count(); ++d) meta->device_bytes.push_back(out_.device_bytes(d));
  meta->degree_checksum = degree_checksum_;
  meta->index_checksum = checksum64(index_.data(), index_.size() * sizeof(ChunkIndexEntry));
  return write_file_atomic(index_path, index_.data(), index_.size() * sizeof(ChunkIndexEntry), sync_);
}

}  // namespace sg

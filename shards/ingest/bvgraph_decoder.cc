#include "shards/ingest/bvgraph_decoder.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace sg {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool parse_code(const std::string& name, BvCode* code) {
  static const std::pair<const char*, BvCode> kNames[] = {{"UNARY", BvCode::kUnary},
                                                          {"GAMMA", BvCode::kGamma},
                                                          {"DELTA", BvCode::kDelta},
                                                          {"ZETA", BvCode::kZeta},
                                                          {"NIBBLE", BvCode::kNibble}};
  for (const auto& [text, value] : kNames) {
    if (name == text) {
      *code = value;
      return true;
    }
  }
  return false;
}

// "OUTDEGREES_DELTA|RESIDUALS_GAMMA": each names a component and its code.
Status parse_flags(const std::string& flags, const std::string& where, BvProperties* p) {
  std::string token;
  std::istringstream in(flags);
  while (std::getline(in, token, '|')) {
    token = trim(token);
    if (token.empty()) continue;
    const size_t cut = token.rfind('_');
    BvCode code;
    if (cut == std::string::npos || !parse_code(token.substr(cut + 1), &code)) {
      return Status::BadInput(where + ": unknown coding '" + token + "' in compressionflags");
    }
    const std::string part = token.substr(0, cut);
    if (part == "OUTDEGREES")
      p->outdegrees = code;
    else if (part == "REFERENCES")
      p->references = code;
    else if (part == "BLOCKS")
      p->blocks = code;
    else if (part == "BLOCK_COUNT")
      p->block_count = code;
    else if (part == "RESIDUALS")
      p->residuals = code;
    else if (part == "OFFSETS")
      p->offsets = code;
    else
      return Status::BadInput(where + ": unknown component '" + part + "' in compressionflags");
  }
  return Status::OK();
}

bool parse_number(const std::string& text, int64_t* value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

Status parse_bv_properties(const std::string& text, const std::string& path, BvProperties* props) {
  BvProperties p;
  std::istringstream in(text);
  std::string line, graph_class;
  bool saw_nodes = false, saw_arcs = false;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t eq = line.find_first_of("=:");
    const std::string where = path + ":" + std::to_string(number);
    if (eq == std::string::npos) return Status::BadInput(where + ": expected 'key=value'");
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    int64_t n = 0;
    const bool numeric = parse_number(value, &n);
    auto need_number = [&](int64_t low, int64_t high) {
      return numeric && n >= low && n <= high
                 ? Status::OK()
                 : Status::BadInput(where + ": " + key + " must be an integer in [" + std::to_string(low) + ", " +
                                    std::to_string(high) + "]");
    };
    if (key == "nodes") {
      SG_RETURN_IF_ERROR(need_number(0, int64_t{1} << 40));
      p.nodes = static_cast<uint64_t>(n);
      saw_nodes = true;
    } else if (key == "arcs") {
      SG_RETURN_IF_ERROR(need_number(0, int64_t{1} << 50));
      p.arcs = static_cast<uint64_t>(n);
      saw_arcs = true;
    } else if (key == "windowsize") {
      SG_RETURN_IF_ERROR(need_number(0, 1 << 16));
      p.window = static_cast<uint32_t>(n);
    } else if (key == "minintervallength") {
      SG_RETURN_IF_ERROR(need_number(0, 1 << 16));
      p.min_interval = static_cast<uint32_t>(n);
    } else if (key == "zetak") {
      SG_RETURN_IF_ERROR(need_number(1, 32));
      p.zeta_k = static_cast<uint32_t>(n);
    } else if (key == "maxrefcount") {
      SG_RETURN_IF_ERROR(need_number(-1, int64_t{1} << 31));
      p.max_ref_count = n;
    } else if (key == "version") {
      if (value != "0") return Status::BadInput(where + ": BVGraph version " + value + " is not supported (0)");
    } else if (key == "compressionflags") {
      SG_RETURN_IF_ERROR(parse_flags(value, where, &p));
    } else if (key == "graphclass") {
      graph_class = value;
    }
  }
  if (!graph_class.empty() && !graph_class.ends_with("BVGraph")) {
    return Status::BadInput(path + ": graphclass " + graph_class + " is not a BVGraph");
  }
  if (!saw_nodes || !saw_arcs) return Status::BadInput(path + ": missing 'nodes' or 'arcs'");
  *props = p;
  return Status::OK();
}

OffsetWindow::OffsetWindow(const uint8_t* data, uint64_t size_bytes, const BvProperties& props, uint64_t graph_bits,
                           std::string path)
    : bits_(data, size_bytes), props_(props), graph_bits_(graph_bits), path_(std::move(path)) {}

Status OffsetWindow::extend_to_bit(uint64_t bit) {
  while (!complete_ && (offsets_.empty() || offsets_.back() < bit)) {
    if (read_ == props_.nodes) {
      offsets_.push_back(graph_bits_);  // the end marker
      complete_ = true;
      break;
    }
    const uint64_t gap = props_.offsets == BvCode::kDelta ? bits_.read_delta() : bits_.read_gamma();
    if (bits_.failed()) {
      return Status::BadInput(path_ + ": ends after " + std::to_string(read_) + " of " + std::to_string(props_.nodes) +
                              " offsets");
    }
    last_ += gap;
    if (last_ > graph_bits_) {
      return Status::BadInput(path_ + ": offset of node " + std::to_string(read_) + " (bit " + std::to_string(last_) +
                              ") is past the end of the .graph file");
    }
    offsets_.push_back(last_);
    ++read_;
  }
  return Status::OK();
}

uint64_t OffsetWindow::node_at_bit(uint64_t node, uint64_t bit) const {
  const auto from = offsets_.begin() + static_cast<ptrdiff_t>(std::max(node, first_) - first_);
  const auto at = std::lower_bound(from, offsets_.begin() + static_cast<ptrdiff_t>(end() - first_), bit);
  return first_ + static_cast<uint64_t>(at - offsets_.begin());
}

void OffsetWindow::drop_before(uint64_t node) {
  if (node <= first_) return;
  const uint64_t drop = std::min<uint64_t>(node - first_, offsets_.size());
  offsets_.erase(offsets_.begin(), offsets_.begin() + static_cast<ptrdiff_t>(drop));
  first_ += drop;
}

BvDecoder::BvDecoder(const BvProperties& props, const uint8_t* graph, uint64_t graph_bytes, const OffsetWindow* offsets,
                     std::string path)
    : props_(props),
      graph_(graph),
      graph_bytes_(graph_bytes),
      offsets_(offsets),
      path_(std::move(path)),
      bits_(graph, graph_bytes) {
  ring_.lists.resize(props_.window + 1);
  ring_.nodes.assign(props_.window + 1, UINT64_MAX);
  no_ring_.lists.resize(props_.window + 1);
  no_ring_.nodes.assign(props_.window + 1, UINT64_MAX);
}

uint64_t BvDecoder::margin_nodes(const BvProperties& props) {
  return uint64_t{props.window} * static_cast<uint64_t>(std::max<int64_t>(props.max_ref_count, 0) + 1);
}

// Random access nests once per reference in a chain.
int BvDecoder::max_depth() const {
  return props_.max_ref_count < 0 ? 0 : static_cast<int>(std::min<int64_t>(props_.max_ref_count, 1 << 20)) + 1;
}

void BvDecoder::start(uint64_t node, uint64_t bit) {
  node_ = node;
  bits_ = BitReader(graph_, graph_bytes_);
  bits_.seek(bit);
  std::fill(ring_.nodes.begin(), ring_.nodes.end(), UINT64_MAX);
}

Status BvDecoder::next(uint64_t* node, const std::vector<uint64_t>** successors) {
  const size_t slot = node_ % ring_.lists.size();
  ring_.nodes[slot] = UINT64_MAX;
  SG_RETURN_IF_ERROR(decode_node(&bits_, node_, &ring_, 0, &ring_.lists[slot]));
  ring_.nodes[slot] = node_;
  *node = node_++;
  *successors = &ring_.lists[slot];
  return Status::OK();
}

uint64_t BvDecoder::read(BitReader* bits, BvCode code) const {
  switch (code) {
    case BvCode::kUnary: return bits->read_unary();
    case BvCode::kGamma: return bits->read_gamma();
    case BvCode::kDelta: return bits->read_delta();
    case BvCode::kZeta: return bits->read_zeta(props_.zeta_k);
    case BvCode::kNibble: return bits->read_nibble();
  }
  return 0;
}

Status BvDecoder::corrupt(uint64_t x, const std::string& why) const {
  return Status::BadInput(path_ + ": node " + std::to_string(x) + ": " + why);
}

Status BvDecoder::decode_node(BitReader* bits, uint64_t x, Ring* ring, int depth, std::vector<uint64_t>* out) {
  out->clear();
  const uint64_t degree = read(bits, props_.outdegrees);
  if (bits->failed()) return corrupt(x, "truncated .graph file");
  if (degree > props_.nodes) return corrupt(x, "outdegree " + std::to_string(degree) + " exceeds the node count");
  if (degree == 0) return Status::OK();
  const uint64_t reference = props_.window > 0 ? read(bits, props_.references) : 0;
  if (reference > props_.window || reference > x) {
    return corrupt(
        x, "reference " + std::to_string(reference) + " outside the window of " + std::to_string(props_.window));
  }
  const std::vector<uint64_t>* list = nullptr;
  // Before the scratch vectors below are touched: decoding the referenced
  // node by random access uses them too.
  if (reference > 0) SG_RETURN_IF_ERROR(referenced_list(x - reference, ring, depth, &list));
  copied_.clear();
  if (list != nullptr) SG_RETURN_IF_ERROR(copy_blocks(bits, *list, degree, &copied_));
  if (copied_.size() > degree) return corrupt(x, "copies more successors than its outdegree");
  SG_RETURN_IF_ERROR(intervals_and_residuals(bits, x, degree - copied_.size(), &extra_));
  if (bits->failed()) return corrupt(x, "truncated .graph file");
  // Most lists are all copied or all new: hand that part over whole.
  if (extra_.empty()) {
    out->swap(copied_);
  } else if (copied_.empty()) {
    out->swap(extra_);
  } else {
    out->resize(degree);
    std::merge(copied_.begin(), copied_.end(), extra_.begin(), extra_.end(), out->begin());
  }
  return Status::OK();
}

Status BvDecoder::copy_blocks(BitReader* bits, const std::vector<uint64_t>& ref, uint64_t degree,
                              std::vector<uint64_t>* copied) {
  const uint64_t count = read(bits, props_.block_count);
  if (count > ref.size() + 1) return Status::BadInput(path_ + ": more copy blocks than referenced successors");
  if (count == 0) {
    copied->assign(ref.begin(), ref.end());
    return Status::OK();
  }
  uint64_t at = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t length = read(bits, props_.blocks) + (i == 0 ? 0 : 1);
    if (bits->failed() || length > ref.size() - at) {
      return Status::BadInput(path_ + ": a copy block runs past the referenced list");
    }
    if (i % 2 == 0)
      copied->insert(copied->end(), ref.begin() + static_cast<ptrdiff_t>(at),
                     ref.begin() + static_cast<ptrdiff_t>(at + length));
    at += length;
  }
  if (count % 2 == 0) copied->insert(copied->end(), ref.begin() + static_cast<ptrdiff_t>(at), ref.end());
  if (copied->size() > degree) return Status::BadInput(path_ + ": copy blocks exceed the outdegree");
  return Status::OK();
}

namespace {

// The first successor is coded relative to the node itself and the later
// ones as gaps; a corrupt code may point below zero or past 2^64, which is
// reported instead of wrapping.
bool first_successor(uint64_t x, uint64_t code, uint64_t* value) {
  int64_t signed_value = 0;
  if (__builtin_add_overflow(static_cast<int64_t>(x), nat_to_int(code), &signed_value) || signed_value < 0)
    return false;
  *value = static_cast<uint64_t>(signed_value);
  return true;
}

bool next_successor(uint64_t previous, uint64_t code, uint64_t* value) {
  return !__builtin_add_overflow(previous, code, value) && !__builtin_add_overflow(*value, uint64_t{1}, value);
}

}  // namespace

Status BvDecoder::intervals_and_residuals(BitReader* bits, uint64_t x, uint64_t extra, std::vector<uint64_t>* part) {
  part->clear();
  const uint64_t n = props_.nodes;
  uint64_t residuals = extra;
  if (extra > 0 && props_.min_interval > 0) {
    const uint64_t intervals = bits->read_gamma();
    if (intervals > extra) return corrupt(x, "more intervals than successors left");
    uint64_t next = 0;
    for (uint64_t i = 0; i < intervals; ++i) {
      const uint64_t code = bits->read_gamma();
      uint64_t left = 0;
      const bool in_range = i == 0 ? first_successor(x, code, &left) : next_successor(next, code, &left);
      const uint64_t length = bits->read_gamma() + props_.min_interval;
      if (bits->failed()) return corrupt(x, "truncated .graph file");
      if (!in_range || left > n || length > n - left || length > residuals) {
        return corrupt(x, "an interval outside the node range or the outdegree");
      }
      for (uint64_t v = 0; v < length; ++v) part->push_back(left + v);
      next = left + length;
      residuals -= length;
    }
  }
  const size_t interval_end = part->size();
  uint64_t previous = 0;
  for (uint64_t i = 0; i < residuals; ++i) {
    const uint64_t code = read(bits, props_.residuals);
    uint64_t value = 0;
    const bool in_range = i == 0 ? first_successor(x, code, &value) : next_successor(previous, code, &value);
    if (bits->failed()) return corrupt(x, "truncated .graph file");
    if (!in_range || value >= n) return corrupt(x, "a successor outside the node range");
    previous = value;
    part->push_back(previous);
  }
  std::inplace_merge(part->begin(), part->begin() + static_cast<ptrdiff_t>(interval_end), part->end());
  return Status::OK();
}

Status BvDecoder::referenced_list(uint64_t r, Ring* ring, int depth, const std::vector<uint64_t>** list) {
  const size_t slot = r % ring->lists.size();
  if (ring->nodes[slot] == r) {
    *list = &ring->lists[slot];
    return Status::OK();
  }
  while (deep_lists_.size() <= static_cast<size_t>(depth)) deep_lists_.emplace_back();
  SG_RETURN_IF_ERROR(random_access(r, depth + 1, &deep_lists_[static_cast<size_t>(depth)]));
  *list = &deep_lists_[static_cast<size_t>(depth)];
  return Status::OK();
}

// Decodes node r at its offset; the nodes it references are decoded the
// same way, one level deeper.
Status BvDecoder::random_access(uint64_t r, int depth, std::vector<uint64_t>* out) {
  if (offsets_ == nullptr || !offsets_->holds(r) || depth > max_depth()) {
    return corrupt(r, "a reference chain longer than maxrefcount " + std::to_string(props_.max_ref_count));
  }
  BitReader bits(graph_, graph_bytes_);
  bits.seek(offsets_->offset(r));
  return decode_node(&bits, r, &no_ring_, depth, out);
}

}  // namespace sg

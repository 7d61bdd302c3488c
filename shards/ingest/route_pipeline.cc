// The route step of a read input as a pipeline. A thread of its own reads
// batches into a few tokens; TBB then runs each token through translation,
// the degree count and each space's routing, stages that keep input order
// and overlap across tokens. Routing a batch as one fork-join of a task a
// space (route_batch) left a core idle at every join, a quarter of the
// route's time on 2 cores, and the reader's thread was made anew each batch.
#include <atomic>
#include <thread>
#include <type_traits>

#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>

#include "base/interrupt.h"
#include "shards/ingest/ingest_job.h"

namespace sg {
namespace {

// A batch on its way through the stages; a few are allocated up front and
// reused.
template <typename Arc, typename Record>
struct RouteToken {
  std::vector<Arc> batch;
  uint64_t bytes_read = 0;  // the reader's, once this batch was read
  Status status;            // the first stage's failure, passed on
  std::vector<DenseArc> arcs;
  uint64_t largest_id = 0;  // the translation's so far, which bounds the degree count
  std::vector<std::vector<Record>> space_records;
};

// Tokens in flight: one being read, one translated, one routed. Each holds
// a read batch and its records (at 256 MiB about 3 MiB).
constexpr size_t kRouteTokens = 3;

}  // namespace

// Reads batches into the tokens `free` hands out and passes them on in
// `ready`, until the input ends or fails (then a null token follows) or
// `free` hands out a null one.
template <typename Queue>
void IngestJob::read_route_tokens(Queue* free, Queue* ready, size_t batch_edges) {
  for (;;) {
    typename Queue::value_type token = nullptr;
    free->pop(token);
    if (token == nullptr) return;
    if constexpr (std::is_same_v<decltype(token->batch), std::vector<RawEdge>>) {
      token->status = reader_->next_batch(&token->batch, batch_edges);
    } else {
      token->status = reader_->next_dense_batch(&token->batch, batch_edges);
    }
    token->bytes_read = reader_->bytes_read();
    if (token->status.ok() && token->batch.empty()) {
      ready->push(nullptr);
      return;
    }
    ready->push(token);
    if (!token->status.ok()) {
      ready->push(nullptr);
      return;
    }
  }
}

template <typename Token>
Token* IngestJob::translate_token(Token* token) {
  if (!token->status.ok()) return token;
  if (interrupt_requested()) {
    token->status = Status::Interrupted("ingest stopped by a signal");
    return token;
  }
  token->status = ids_.translate_batch(token->batch, &token->arcs);
  token->largest_id = ids_.max_dense_id();
  manifest_.ingest.input_edges += token->batch.size();
  progress_.advance(token->batch.size(), token->bytes_read);
  return token;
}

// A stage a space: its lanes' slices of each batch, one after the other,
// and what they leave past the buckets (no other stage routes into that
// router).
template <typename Token, typename Record>
auto IngestJob::route_filters(std::vector<BucketRouter<Record>>* routers, std::vector<VertexHistogram>* histograms) {
  auto space_filter = [=, this](size_t space) {
    return tbb::make_filter<Token*, Token*>(tbb::filter_mode::serial_in_order, [=, this](Token* token) {
      const size_t lanes = (*routers)[space].lanes();
      std::vector<std::vector<Record>>& records = token->space_records;
      if (records.size() < routers->size()) records.resize(routers->size());
      size_records(token->arcs.size(), undirected_, &records, space);
      for (size_t lane = 0; lane < lanes && token->status.ok(); ++lane) {
        size_t count = 0, routed = 0;
        BucketRouter<Record>* router = &(*routers)[space];
        token->status = route_lane(token->arcs, space, lane, lanes, undirected_, router,
                                   &(*histograms)[space * lanes + lane], records[space].data(), &count, &routed);
        if (token->status.ok())
          token->status = route_leftover(token->arcs.size(), lane, lanes, undirected_, router, records[space].data(),
                                         count, routed);
      }
      return token;
    });
  };
  tbb::filter<Token*, Token*> filters = space_filter(0);
  for (size_t space = 1; space < routers->size(); ++space) filters = filters & space_filter(space);
  return filters;
}

template <typename Record, typename Arc>
Status IngestJob::route_batches(std::vector<Arc>* first_batch, std::vector<BucketRouter<Record>>* routers,
                                std::vector<VertexHistogram>* histograms) {
  using Token = RouteToken<Arc, Record>;
  const size_t lanes = (*routers)[0].lanes();
  if (histograms->size() < routers->size() * lanes) histograms->resize(routers->size() * lanes);
  std::vector<Token> tokens(kRouteTokens);
  tbb::concurrent_bounded_queue<Token*> free, ready;  // a null token: the end
  tokens[0].batch.swap(*first_batch);
  ready.push(&tokens[0]);
  for (size_t t = 1; t < tokens.size(); ++t) free.push(&tokens[t]);
  std::thread reading(
      [&, batch_edges = budget().read_batch_edges()] { read_route_tokens(&free, &ready, batch_edges); });
  std::atomic<bool> stopped{false};
  Status failed;
  auto take = [&](tbb::flow_control& fc) -> Token* {
    Token* token = nullptr;
    if (!stopped.load()) ready.pop(token);
    if (token == nullptr || stopped.load()) fc.stop();
    return stopped.load() ? nullptr : token;
  };
  auto count = [&](Token* token) {
    if (token->status.ok() && degree_limit_ != 0) count_degrees(token->arcs, token->largest_id);
    return token;
  };
  auto done = [&](Token* token) {
    if (failed.ok() && !token->status.ok()) {
      failed = token->status;
      stopped.store(true);
    }
    free.push(token);
  };
  tbb::parallel_pipeline(kRouteTokens,
                         tbb::make_filter<void, Token*>(tbb::filter_mode::serial_in_order, take) &
                             tbb::make_filter<Token*, Token*>(tbb::filter_mode::serial_in_order,
                                                              [&](Token* t) { return translate_token(t); }) &
                             tbb::make_filter<Token*, Token*>(tbb::filter_mode::serial_in_order, count) &
                             route_filters<Token>(routers, histograms) &
                             tbb::make_filter<Token*, void>(tbb::filter_mode::serial_in_order, done));
  free.push(nullptr);  // a reader still waiting for a token stops
  reading.join();
  return failed;
}

template Status IngestJob::route_batches<PlainArc, RawEdge>(std::vector<RawEdge>*, std::vector<BucketRouter<PlainArc>>*,
                                                            std::vector<VertexHistogram>*);
template Status IngestJob::route_batches<PlainArc, DenseArc>(std::vector<DenseArc>*,
                                                             std::vector<BucketRouter<PlainArc>>*,
                                                             std::vector<VertexHistogram>*);
template Status IngestJob::route_batches<WeightedArc, RawEdge>(std::vector<RawEdge>*,
                                                               std::vector<BucketRouter<WeightedArc>>*,
                                                               std::vector<VertexHistogram>*);
template Status IngestJob::route_batches<WeightedArc, DenseArc>(std::vector<DenseArc>*,
                                                                std::vector<BucketRouter<WeightedArc>>*,
                                                                std::vector<VertexHistogram>*);

}  // namespace sg

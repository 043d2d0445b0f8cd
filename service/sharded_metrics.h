#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace rosetta::service {

// The metrics written on every request are sharded by thread: each thread adds to its own
// cache line, without a lock, and a scrape sums the shards. prometheus-cpp's Histogram
// takes a mutex per Observe; five per request across gRPC's threads cost ~30% of gRPC
// throughput on a 2-core machine (measured with --request-metrics 0/1).
inline constexpr size_t kMetricShards = 8;

inline size_t MetricShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard = next.fetch_add(1, std::memory_order_relaxed) % kMetricShards;
  return shard;
}

class ShardedCounter {
 public:
  void Increment() { shards_[MetricShard()].n.fetch_add(1, std::memory_order_relaxed); }
  uint64_t Value() const {
    uint64_t v = 0;
    for (const Shard& s : shards_) v += s.n.load(std::memory_order_relaxed);
    return v;
  }

 private:
  struct alignas(64) Shard {
    std::atomic<uint64_t> n{0};
  };
  Shard shards_[kMetricShards];
};

class ShardedHistogram {
 public:
  explicit ShardedHistogram(std::vector<double> bounds)
      : bounds_(std::move(bounds)), shards_(kMetricShards) {
    for (Shard& s : shards_)
      s.buckets = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
  }
  void Observe(double v) {
    // Prometheus buckets are "le": the first bound not below v (else +Inf).
    const size_t i =
        static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
    Shard& s = shards_[MetricShard()];
    s.buckets[i].fetch_add(1, std::memory_order_relaxed);
    s.sum.fetch_add(v, std::memory_order_relaxed);
  }
  prometheus::ClientMetric::Histogram Collect() const {
    prometheus::ClientMetric::Histogram h;
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= bounds_.size(); ++i) {
      for (const Shard& s : shards_) cumulative += s.buckets[i].load(std::memory_order_relaxed);
      h.bucket.push_back(
          {cumulative, i < bounds_.size() ? bounds_[i] : std::numeric_limits<double>::infinity()});
    }
    h.sample_count = cumulative;  // from the buckets, so that a scrape is self-consistent
    for (const Shard& s : shards_) h.sample_sum += s.sum.load(std::memory_order_relaxed);
    return h;
  }

 private:
  struct alignas(64) Shard {
    std::atomic<double> sum{0};
    std::unique_ptr<std::atomic<uint64_t>[]> buckets;
  };
  const std::vector<double> bounds_;
  std::vector<Shard> shards_;
};

// One metric name with its labelled children (created on first use, kept for the
// process's life: label values are a closed set).
template <class Child>
class ShardedFamily : public prometheus::Collectable {
 public:
  ShardedFamily(std::string name, std::string help, prometheus::MetricType type)
      : name_(std::move(name)), help_(std::move(help)), type_(type) {}

  template <class... Args>
  Child* Add(std::vector<prometheus::ClientMetric::Label> labels, Args&&... args) {
    std::lock_guard<std::mutex> lock(mu_);
    children_.push_back(std::make_unique<Entry>(std::move(labels), std::forward<Args>(args)...));
    return &children_.back()->child;
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily family;
    family.name = name_;
    family.help = help_;
    family.type = type_;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : children_) {
      prometheus::ClientMetric m;
      m.label = e->labels;
      if constexpr (std::is_same_v<Child, ShardedCounter>) {
        m.counter.value = static_cast<double>(e->child.Value());
      } else {
        m.histogram = e->child.Collect();
      }
      family.metric.push_back(std::move(m));
    }
    return {std::move(family)};
  }

 private:
  struct Entry {
    template <class... Args>
    explicit Entry(std::vector<prometheus::ClientMetric::Label> l, Args&&... args)
        : labels(std::move(l)), child(std::forward<Args>(args)...) {
      std::sort(labels.begin(), labels.end());
    }
    std::vector<prometheus::ClientMetric::Label> labels;
    Child child;
  };
  const std::string name_, help_;
  const prometheus::MetricType type_;
  mutable std::mutex mu_;
  std::deque<std::unique_ptr<Entry>> children_;
};

}  // namespace rosetta::service

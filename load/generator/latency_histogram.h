#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace rosetta::load {

// Log-linear latency histogram in nanoseconds, after HdrHistogram: each power of two is
// cut into 128 linear buckets, so a value is reported within 1/128 (< 1%) of what was
// recorded, from 128 ns up to 100 s (values above are counted as 100 s; the exact maximum
// is kept). 3968 counters, 31 KiB: one per connection costs nothing.
class LatencyHistogram {
 public:
  static constexpr int kSubBits = 7;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  static constexpr uint64_t kHighestNs = 100'000'000'000;  // 100 s
  static constexpr int kCounters = (63 - std::countl_zero(kHighestNs) - kSubBits + 2) * kSubBuckets;

  void Record(uint64_t ns) {
    max_ = std::max(max_, ns);
    min_ = std::min(min_, ns);
    sum_ += static_cast<double>(ns);
    ++counts_[Index(std::min(ns, kHighestNs))];
    ++count_;
  }

  void Merge(const LatencyHistogram& other) {
    for (int i = 0; i < kCounters; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    max_ = std::max(max_, other.max_);
    min_ = std::min(min_, other.min_);
  }

  void Reset() { *this = LatencyHistogram(); }

  uint64_t count() const { return count_; }
  uint64_t max() const { return count_ ? max_ : 0; }
  uint64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }

  // The smallest recorded value v such that a fraction q of all values is <= v, reported
  // as the top of its bucket (HdrHistogram's "highest equivalent value"), never above max.
  uint64_t ValueAtQuantile(double q) const {
    if (count_ == 0) return 0;
    const uint64_t rank =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
    uint64_t seen = 0;
    for (int i = 0; i < kCounters; ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(HighestInBucket(i), max_);
    }
    return max_;
  }

  static int Index(uint64_t ns) {
    if (ns < kSubBuckets) return static_cast<int>(ns);
    const int shift = 63 - std::countl_zero(ns) - kSubBits;
    return static_cast<int>((shift + 1) * kSubBuckets + ((ns >> shift) - kSubBuckets));
  }
  static uint64_t HighestInBucket(int index) {
    if (static_cast<uint64_t>(index) < kSubBuckets) return index;
    const int shift = index / static_cast<int>(kSubBuckets) - 1;
    const uint64_t lowest = (kSubBuckets + index % kSubBuckets) << shift;
    return lowest + (uint64_t{1} << shift) - 1;
  }

 private:
  std::array<uint64_t, kCounters> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = ~uint64_t{0};
  double sum_ = 0;
};

}  // namespace rosetta::load

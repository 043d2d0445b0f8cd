#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "rosetta/codec/status.h"

namespace rosetta::service {

// Process-wide admission (--max-inflight-bytes): the payload bytes of the requests in
// flight, all transports together. A request claims its payload's size as soon as the
// size is known and before any of it is kept: a gRPC message at its 5-byte prefix, an
// HTTP body at its Content-Length (a chunked body as its chunks arrive), a TCP frame at
// its length prefix. A claim that would pass the bound is refused with `overloaded`, so
// the memory all requests may hold together is bounded, whatever the concurrency.
class Admission {
 public:
  explicit Admission(uint64_t max_bytes) : max_(max_bytes) {}

  bool TryAcquire(uint64_t n) {
    uint64_t now = inflight_.load(std::memory_order_relaxed);
    do {
      if (n > max_ - std::min(now, max_)) return false;
    } while (!inflight_.compare_exchange_weak(now, now + n, std::memory_order_relaxed));
    return true;
  }
  void Release(uint64_t n) { inflight_.fetch_sub(n, std::memory_order_relaxed); }

  uint64_t inflight() const { return inflight_.load(std::memory_order_relaxed); }
  uint64_t max() const { return max_; }

  // The refusal of a claim of n bytes, as every front-end reports it.
  codec::Status Refusal(uint64_t n) const {
    codec::Status s;
    s.code = codec::ErrorCode::kOverloaded;
    s.message = "a request of " + std::to_string(n) + " bytes would pass max_inflight_bytes " +
                std::to_string(max_) + " (" + std::to_string(inflight()) + " in flight); retry";
    return s;
  }

 private:
  const uint64_t max_;
  std::atomic<uint64_t> inflight_{0};
};

// One request's claim, given back when the ticket is released or destroyed.
class AdmissionTicket {
 public:
  AdmissionTicket() = default;
  AdmissionTicket(const AdmissionTicket&) = delete;
  AdmissionTicket& operator=(const AdmissionTicket&) = delete;
  AdmissionTicket(AdmissionTicket&& o) noexcept
      : admission_(std::exchange(o.admission_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  AdmissionTicket& operator=(AdmissionTicket&& o) noexcept {
    if (this != &o) {
      Release();
      admission_ = std::exchange(o.admission_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~AdmissionTicket() { Release(); }

  // Replaces what this ticket held by a claim of n bytes; false (holding nothing) if refused.
  bool Acquire(Admission& admission, uint64_t n) {
    Release();
    if (!admission.TryAcquire(n)) return false;
    admission_ = &admission;
    bytes_ = n;
    return true;
  }
  // Claims n bytes more (a chunked body growing); false if refused (what it held stays).
  bool Grow(uint64_t n) {
    if (admission_ == nullptr || !admission_->TryAcquire(n)) return false;
    bytes_ += n;
    return true;
  }
  void Release() {
    if (admission_ != nullptr) admission_->Release(bytes_);
    admission_ = nullptr;
    bytes_ = 0;
  }
  bool held() const { return admission_ != nullptr; }
  uint64_t bytes() const { return bytes_; }

 private:
  Admission* admission_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace rosetta::service

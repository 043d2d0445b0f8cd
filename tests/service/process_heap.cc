#include "process_heap.h"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROSETTA_COUNT_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ROSETTA_COUNT_NEW 0
#endif
#endif
#ifndef ROSETTA_COUNT_NEW
#define ROSETTA_COUNT_NEW 1
#endif

namespace {

std::atomic<uint64_t> g_bytes{0};
std::atomic<uint64_t> g_largest{0};

[[maybe_unused]] void* Counted(size_t n) {
  g_bytes.fetch_add(n, std::memory_order_relaxed);
  uint64_t prev = g_largest.load(std::memory_order_relaxed);
  while (n > prev && !g_largest.compare_exchange_weak(prev, n, std::memory_order_relaxed)) {
  }
  return std::malloc(n ? n : 1);
}

}  // namespace

#if ROSETTA_COUNT_NEW
// The replaceable global allocation functions ([new.delete.single], [new.delete.array]);
// the library's operator delete frees with free(), which matches.
void* operator new(size_t n) {
  if (void* p = Counted(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) {
  if (void* p = Counted(n)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t n, const std::nothrow_t&) noexcept { return Counted(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return Counted(n); }
#endif

namespace rosetta::service::testing {

bool HeapClaimCountingActive() { return ROSETTA_COUNT_NEW != 0; }

HeapClaimWatch::HeapClaimWatch() : bytes_(g_bytes.load()) { g_largest.store(0); }

HeapClaims HeapClaimWatch::Stop() const { return {g_bytes.load() - bytes_, g_largest.load()}; }

}  // namespace rosetta::service::testing

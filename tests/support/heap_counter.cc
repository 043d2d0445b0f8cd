#include "heap_counter.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROSETTA_HEAP_COUNTING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ROSETTA_HEAP_COUNTING 0
#endif
#endif
#ifndef ROSETTA_HEAP_COUNTING
#define ROSETTA_HEAP_COUNTING 1
#endif

namespace {

std::atomic<uint64_t> g_bytes{0};
std::atomic<uint64_t> g_largest{0};
std::atomic<uint64_t> g_calls{0};

inline void Count(size_t n) {
  g_bytes.fetch_add(n, std::memory_order_relaxed);
  g_calls.fetch_add(1, std::memory_order_relaxed);
  uint64_t prev = g_largest.load(std::memory_order_relaxed);
  while (n > prev && !g_largest.compare_exchange_weak(prev, n, std::memory_order_relaxed)) {
  }
}

}  // namespace

#if ROSETTA_HEAP_COUNTING
// glibc's own entry points: replacing malloc, calloc, realloc and free in the executable
// routes every allocation of the process (operator new included) through these.
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);

void* malloc(size_t n) noexcept {
  Count(n);
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) noexcept {
  Count(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) noexcept {
  Count(n);
  return __libc_realloc(p, n);
}
void free(void* p) noexcept { __libc_free(p); }
}
#endif

namespace rosetta::testing {

bool HeapCountingAvailable() { return ROSETTA_HEAP_COUNTING != 0; }

HeapWatch::HeapWatch() {
  g_largest.store(0, std::memory_order_relaxed);
  bytes_ = g_bytes.load(std::memory_order_relaxed);
  calls_ = g_calls.load(std::memory_order_relaxed);
}

HeapUse HeapWatch::Stop() {
  HeapUse use;
  use.bytes = g_bytes.load(std::memory_order_relaxed) - bytes_;
  use.calls = g_calls.load(std::memory_order_relaxed) - calls_;
  use.largest = g_largest.load(std::memory_order_relaxed);
  return use;
}

}  // namespace rosetta::testing

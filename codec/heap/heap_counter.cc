#include "heap/heap_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>

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

using rosetta::heap::Counts;

// initial-exec: no allocation and no lazy TLS set-up inside malloc itself.
thread_local Counts tls_counts [[gnu::tls_model("initial-exec")]];

std::atomic<bool> g_process_on{false};
std::atomic<uint64_t> g_bytes{0};
std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_largest{0};

[[maybe_unused]] inline void Count(size_t n) {
  tls_counts.bytes += n;
  ++tls_counts.calls;
  if (!g_process_on.load(std::memory_order_relaxed)) return;
  g_bytes.fetch_add(n, std::memory_order_relaxed);
  g_calls.fetch_add(1, std::memory_order_relaxed);
  uint64_t prev = g_largest.load(std::memory_order_relaxed);
  while (n > prev && !g_largest.compare_exchange_weak(prev, n, std::memory_order_relaxed)) {
  }
}

}  // namespace

#if ROSETTA_HEAP_COUNTING
// glibc exports its allocator under these names; defining malloc & co. in the executable
// interposes them for every shared library too (the documented way to replace malloc).
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* __libc_memalign(size_t, size_t);

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
void* memalign(size_t alignment, size_t n) noexcept {
  Count(n);
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(size_t alignment, size_t n) noexcept {
  Count(n);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  Count(n);
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"
#endif

namespace rosetta::heap {

bool CountingActive() { return ROSETTA_HEAP_COUNTING != 0; }

Counts ThisThread() { return tls_counts; }

Counts Process() {
  g_process_on.store(true, std::memory_order_relaxed);
  return {g_bytes.load(std::memory_order_relaxed), g_calls.load(std::memory_order_relaxed)};
}

Watch::Watch() : start_(Process()) { g_largest.store(0, std::memory_order_relaxed); }

Use Watch::Stop() const {
  const Counts now = Process();
  return {now.bytes - start_.bytes, now.calls - start_.calls,
          g_largest.load(std::memory_order_relaxed)};
}

}  // namespace rosetta::heap

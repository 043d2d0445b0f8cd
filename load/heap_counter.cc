#include "heap_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>

// glibc exports its allocator under these names; defining malloc & co. in the executable
// interposes them for every shared library too (libstdc++'s operator new included).
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* __libc_memalign(size_t, size_t);
}

namespace {
std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_bytes{0};

inline void Count(size_t bytes) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
}  // namespace

namespace rosetta::load {
HeapCounts HeapCountsNow() {
  return {g_calls.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}
}  // namespace rosetta::load

extern "C" {
void* malloc(size_t n) {
  Count(n);
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  Count(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  Count(n);
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
void* memalign(size_t alignment, size_t n) {
  Count(n);
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  Count(n);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  Count(n);
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}

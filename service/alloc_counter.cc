// Replaces malloc/calloc/realloc/free in the process that links it, forwarding to glibc's
// own allocator (__libc_malloc & co, the documented way to interpose malloc) and counting
// what each thread allocates. libstdc++'s operator new calls malloc, so it is counted too.
#include "service/alloc_counter.h"

#include <cstddef>

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {
// initial-exec: no allocation and no lazy TLS setup inside malloc itself.
thread_local rosetta::service::AllocationCount tls_count [[gnu::tls_model("initial-exec")]];
}  // namespace

extern "C" {

void* malloc(size_t n) {
  tls_count.bytes += n;
  ++tls_count.count;
  return __libc_malloc(n);
}

void* calloc(size_t n, size_t size) {
  tls_count.bytes += n * size;
  ++tls_count.count;
  return __libc_calloc(n, size);
}

void* realloc(void* p, size_t n) {
  tls_count.bytes += n;
  ++tls_count.count;
  return __libc_realloc(p, n);
}

void free(void* p) { __libc_free(p); }

}  // extern "C"

namespace rosetta::service {

AllocationCount ThreadAllocations() { return tls_count; }
bool AllocationCountingActive() { return true; }

}  // namespace rosetta::service

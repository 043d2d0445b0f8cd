#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "core/context.h"
#include "memory/block_cache.h"

namespace rosetta::codec {

// A stack of trivially copyable T whose every heap growth is charged to the request's
// budget before it happens. The first kInline elements live inside the object (on the
// caller's stack): a request of ordinary depth and map size allocates nothing for them.
template <class T, size_t kInline = 0>
class BudgetVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit BudgetVector(Context& ctx) : ctx_(ctx) {}
  BudgetVector(const BudgetVector&) = delete;
  BudgetVector& operator=(const BudgetVector&) = delete;
  ~BudgetVector() {
    if (block_bytes_) CachedFree(data_, block_bytes_);
  }

  bool Reserve(size_t n) {
    if (n <= cap_) return true;
    return Grow(n);
  }
  [[gnu::always_inline]] bool Push(const T& v) {
    if (size_ == cap_) [[unlikely]] {
      if (!Grow(size_ + 1)) return false;
    }
    data_[size_++] = v;
    return true;
  }
  void Pop() { --size_; }
  void Truncate(size_t n) { size_ = n; }
  T& back() { return data_[size_ - 1]; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }

 private:
  [[gnu::noinline]] bool Grow(size_t n) {
    size_t cap = cap_ ? cap_ * 2 : 16;
    if (cap < n) cap = n;
    if (cap > (SIZE_MAX / 4) / sizeof(T)) return ctx_.BudgetExceeded(SIZE_MAX / 4);
    // Blocks come from the thread's cache (block_cache.h) in power-of-two sizes; the
    // budget is charged for the whole block before it is taken.
    const size_t bytes = CachedBlockSize(cap * sizeof(T));
    if (!ctx_.budget.Charge(bytes - block_bytes_)) return ctx_.BudgetExceeded(bytes - block_bytes_);
    T* p = static_cast<T*>(CachedAlloc(bytes));
    if (size_ != 0)
      std::memcpy(static_cast<void*>(p), static_cast<const void*>(data_), size_ * sizeof(T));
    if (block_bytes_) CachedFree(data_, block_bytes_);
    data_ = p;
    cap_ = bytes / sizeof(T);
    block_bytes_ = bytes;
    return true;
  }

  Context& ctx_;
  alignas(T) unsigned char inline_[kInline ? kInline * sizeof(T) : 1];
  T* data_ = kInline ? reinterpret_cast<T*>(inline_) : nullptr;
  size_t size_ = 0;
  size_t cap_ = kInline;
  size_t block_bytes_ = 0;  // the heap block data_ points to (0: inline or none)
};

}  // namespace rosetta::codec

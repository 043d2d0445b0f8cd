#pragma once

#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "common/context.h"

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
    if (!is_inline()) std::free(data_);
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
  bool empty() const { return size_ == 0; }

 private:
  [[gnu::noinline]] bool Grow(size_t n) {
    size_t cap = cap_ ? cap_ * 2 : 16;
    if (cap < n) cap = n;
    const size_t heap_before = is_inline() ? 0 : cap_;
    if (!ctx_.budget.Charge((cap - heap_before) * sizeof(T))) return ctx_.BudgetExceeded((cap - heap_before) * sizeof(T));
    T* p;
    if (is_inline()) {
      p = static_cast<T*>(std::malloc(cap * sizeof(T)));
      if (p != nullptr && size_ != 0) std::memcpy(static_cast<void*>(p), static_cast<const void*>(data_), size_ * sizeof(T));
    } else {
      p = static_cast<T*>(std::realloc(static_cast<void*>(data_), cap * sizeof(T)));
    }
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    cap_ = cap;
    return true;
  }
  bool is_inline() const { return kInline != 0 && data_ == reinterpret_cast<const T*>(inline_); }

  Context& ctx_;
  alignas(T) unsigned char inline_[kInline ? kInline * sizeof(T) : 1];
  T* data_ = kInline ? reinterpret_cast<T*>(inline_) : nullptr;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

}  // namespace rosetta::codec

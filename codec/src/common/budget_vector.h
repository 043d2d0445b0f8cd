#pragma once

#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "common/context.h"

namespace rosetta::codec {

// A stack of trivially copyable T whose every growth is charged to the request's budget
// before it happens.
template <class T>
class BudgetVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit BudgetVector(Context& ctx) : ctx_(ctx) {}
  BudgetVector(const BudgetVector&) = delete;
  BudgetVector& operator=(const BudgetVector&) = delete;
  ~BudgetVector() { std::free(data_); }

  bool Reserve(size_t n) {
    if (n <= cap_) return true;
    size_t cap = cap_ ? cap_ * 2 : 16;
    if (cap < n) cap = n;
    if (!ctx_.budget.Charge((cap - cap_) * sizeof(T))) return ctx_.BudgetExceeded((cap - cap_) * sizeof(T));
    T* p = static_cast<T*>(std::realloc(static_cast<void*>(data_), cap * sizeof(T)));
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    cap_ = cap;
    return true;
  }
  bool Push(const T& v) {
    if (size_ == cap_ && !Reserve(size_ + 1)) return false;
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
  Context& ctx_;
  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace rosetta::codec

#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace rosetta::codec {

// A growable stack of trivially copyable T: std::vector's push_back, pop_back, indexing
// and shrinking, with the growth out of line. GCC 12 inlines std::vector's reallocation
// into each push_back's caller, whose every call then saves more registers and spills
// its arguments, growth or not; here a push is a compare, a store and an increment. What
// the memory costs is its owner's to charge (capacity()).
template <class T>
class PodStack {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PodStack() = default;
  PodStack(const PodStack&) = delete;
  PodStack& operator=(const PodStack&) = delete;
  ~PodStack() { Free(); }

  [[gnu::always_inline]] void push_back(const T& v) {
    if (size_ == cap_) [[unlikely]]
      Grow(size_ + 1);
    data_[size_++] = v;
  }
  // A push the caller knows has room (size() < capacity()): no growth path to keep.
  [[gnu::always_inline]] void push_within(const T& v) { data_[size_++] = v; }
  void pop_back() { --size_; }
  // Drops the elements from n on (n at most size()).
  void truncate(size_t n) { size_ = n; }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > cap_) Grow(n);
  }
  // n more elements, their bytes the caller's to write: where they start.
  [[gnu::always_inline]] T* extend(size_t n) {
    if (size_ + n > cap_) [[unlikely]]
      Grow(size_ + n);
    T* p = data_ + size_;
    size_ += n;
    return p;
  }
  T& back() { return data_[size_ - 1]; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  void swap(PodStack& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

 private:
  static constexpr std::align_val_t kAlign{alignof(T)};
  // At least doubled (so pushes cost amortized constant time), at least n.
  [[gnu::noinline]] void Grow(size_t n) {
    size_t cap = cap_ ? cap_ * 2 : 16;
    if (cap < n) cap = n;
    T* p = static_cast<T*>(::operator new(cap * sizeof(T), kAlign));
    if (size_ != 0)
      std::memcpy(static_cast<void*>(p), static_cast<const void*>(data_), size_ * sizeof(T));
    Free();
    data_ = p;
    cap_ = cap;
  }
  // (Unsized: clang 14 declares the sized forms only with -fsized-deallocation.)
  void Free() {
    if (data_ != nullptr) ::operator delete(data_, kAlign);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace rosetta::codec

#include "memory/block_cache.h"

#include <bit>
#include <cstdlib>
#include <new>

namespace rosetta::codec {
namespace {

constexpr size_t kMinBlock = 64;
constexpr int kClasses = 13;  // 64 B .. 256 KiB
constexpr int kPerClass = 4;
constexpr size_t kMaxKept = 1 << 20;  // bytes kept per thread

int ClassOf(size_t size) { return std::countr_zero(size) - std::countr_zero(kMinBlock); }

class ThreadBlocks {
 public:
  ~ThreadBlocks() {
    for (auto& c : classes_) {
      for (int i = 0; i < c.n; ++i) std::free(c.blocks[i]);
    }
  }
  void* Take(size_t size) {
    const int k = ClassOf(size);
    if (k < kClasses && classes_[k].n > 0) {
      kept_ -= size;
      return classes_[k].blocks[--classes_[k].n];
    }
    void* p = std::malloc(size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void Give(void* p, size_t size) {
    const int k = ClassOf(size);
    if (k < kClasses && classes_[k].n < kPerClass && kept_ + size <= kMaxKept) {
      classes_[k].blocks[classes_[k].n++] = p;
      kept_ += size;
      return;
    }
    std::free(p);
  }

 private:
  struct Class {
    void* blocks[kPerClass];
    int n = 0;
  };
  Class classes_[kClasses];
  size_t kept_ = 0;
};

ThreadBlocks& Blocks() {
  thread_local ThreadBlocks blocks;
  return blocks;
}

}  // namespace

size_t CachedBlockSize(size_t bytes) {
  return bytes <= kMinBlock ? kMinBlock : std::bit_ceil(bytes);
}

void* CachedAlloc(size_t size) { return Blocks().Take(size); }

void CachedFree(void* p, size_t size) { Blocks().Give(p, size); }

}  // namespace rosetta::codec

#include "rosetta/codec/limits.h"

namespace rosetta::codec {

Limits Limits::LowerTo(const Limits& r) const {
  Limits l = *this;
  for (const LimitInfo& info : kLimitTable) {
    const uint64_t theirs = info.get(r);
    if (theirs != 0 && theirs < info.get(l)) info.set(l, theirs);
  }
  return l;
}

}  // namespace rosetta::codec

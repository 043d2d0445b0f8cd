#pragma once

#include <cstdint>
#include <string_view>

#include "core/context.h"
#include "memory/scratch.h"
#include "rosetta/codec/sink.h"

namespace rosetta::codec {

// A JSON number token, classified exactly (docs/formats.md): integers that fit CBOR's
// range (-2^64 .. 2^64-1) are kUint / kNegInt, larger integers kBignum (magnitude bytes
// for tag 2, or for tag 3 the bytes of |v| - 1), the rest kDouble.
struct JsonNumber {
  enum Kind { kUint, kNegInt, kDouble, kBignum } kind;
  uint64_t u = 0;  // kUint: v; kNegInt: -1 - v
  double d = 0;    // kDouble
  bool negative = false;
  std::string_view bignum;  // kBignum: big-endian magnitude, in request scratch
};

enum class NumberScan { kOk, kSyntax, kOverflow, kTooLong, kNoBudget };

// Scans the number at p (p < end) strictly per RFC 8259 section 6. On kOk, *len is the
// token length; on kSyntax, the offset of the offending byte. Never reads at or past end.
NumberScan ScanJsonNumber(const char* p, const char* end, size_t* len, JsonNumber* out,
                          Scratch& scratch);

// The events of a scanned number: an integer, a double, or a bignum (tag 2 or 3, then its
// magnitude bytes). False when the sink refuses.
template <class S>
bool EmitJsonNumber(S& sink, const JsonNumber& n) {
  switch (n.kind) {
    case JsonNumber::kUint:
      return sink.Uint(n.u);
    case JsonNumber::kNegInt:
      return sink.NegInt(n.u);
    case JsonNumber::kDouble:
      return sink.Double(n.d);
    default:
      return sink.Tag(n.negative ? kTagNegativeBignum : kTagPositiveBignum) && sink.Bytes(n.bignum);
  }
}

}  // namespace rosetta::codec

#include "json/json_number.h"

#include <charconv>
#include <cmath>
#include <vector>

namespace rosetta::codec {
namespace {

inline bool IsDigit(char c) { return static_cast<unsigned>(c - '0') < 10; }

// Integers past this many digits are refused: decimal-to-binary is quadratic (CPython
// bounds int(str) at 4300 digits for the same reason).
constexpr size_t kMaxIntegerDigits = 4300;

// Decimal digits to big-endian magnitude bytes; minus_one subtracts 1 (for tag 3).
bool DigitsToMagnitude(std::string_view digits, bool minus_one, Scratch& scratch,
                       std::string_view* out) {
  std::vector<uint32_t> limbs;  // little-endian base 2^32; bounded by kMaxIntegerDigits
  limbs.reserve(digits.size() / 9 + 2);
  size_t i = 0;
  while (i < digits.size()) {
    size_t take = std::min<size_t>(9, digits.size() - i);
    uint32_t chunk = 0, scale = 1;
    for (size_t k = 0; k < take; ++k) {
      chunk = chunk * 10 + static_cast<uint32_t>(digits[i + k] - '0');
      scale *= 10;
    }
    i += take;
    uint64_t carry = chunk;
    for (auto& limb : limbs) {
      uint64_t cur = uint64_t{limb} * scale + carry;
      limb = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry) limbs.push_back(static_cast<uint32_t>(carry));
  }
  if (minus_one) {
    for (auto& limb : limbs) {
      if (limb-- != 0) break;
    }
  }
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  size_t bytes = limbs.size() * 4;
  char* block = scratch.Allocate(bytes);
  if (block == nullptr) return false;
  for (size_t l = 0; l < limbs.size(); ++l) {
    uint32_t v = limbs[limbs.size() - 1 - l];
    block[4 * l] = static_cast<char>(v >> 24);
    block[4 * l + 1] = static_cast<char>(v >> 16);
    block[4 * l + 2] = static_cast<char>(v >> 8);
    block[4 * l + 3] = static_cast<char>(v);
  }
  size_t skip = 0;
  while (skip < bytes && block[skip] == 0) ++skip;
  *out = {block + skip, bytes - skip};
  return true;
}

}  // namespace

NumberScan ScanJsonNumber(const char* p, const char* end, size_t* len, JsonNumber* out,
                          Scratch& scratch) {
  const char* const start = p;
  const bool negative = *p == '-';
  if (negative) ++p;
  if (p == end || !IsDigit(*p)) return *len = p - start, NumberScan::kSyntax;
  const char* int_begin = p;
  if (*p == '0') {
    ++p;
  } else {
    while (p < end && IsDigit(*p)) ++p;
  }
  const char* int_end = p;
  bool is_integer = true;
  bool negative_exponent = false;
  if (p < end && *p == '.') {
    is_integer = false;
    ++p;
    if (p == end || !IsDigit(*p)) return *len = p - start, NumberScan::kSyntax;
    while (p < end && IsDigit(*p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    is_integer = false;
    ++p;
    if (p < end && (*p == '+' || *p == '-')) negative_exponent = *p++ == '-';
    if (p == end || !IsDigit(*p)) return *len = p - start, NumberScan::kSyntax;
    while (p < end && IsDigit(*p)) ++p;
  }
  *len = static_cast<size_t>(p - start);
  out->negative = negative;
  if (!is_integer) {
    double d;
    auto r = std::from_chars(start, p, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Below the smallest subnormal rounds to zero; past DBL_MAX has no double.
      if (!negative_exponent) return NumberScan::kOverflow;
      d = negative ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != p) {
      return *len = 0, NumberScan::kSyntax;
    }
    out->kind = JsonNumber::kDouble;
    out->d = d;
    return NumberScan::kOk;
  }
  const size_t digits = static_cast<size_t>(int_end - int_begin);
  uint64_t v = 0;
  bool fits = digits <= 20;
  if (fits) {
    for (const char* q = int_begin; q < int_end; ++q) {
      unsigned digit = static_cast<unsigned>(*q - '0');
      if (v > (~uint64_t{0} - digit) / 10) {
        fits = false;
        break;
      }
      v = v * 10 + digit;
    }
  }
  if (fits) {
    if (!negative || v == 0) {
      out->kind = JsonNumber::kUint;  // "-0" is the integer 0
      out->u = v;
    } else {
      out->kind = JsonNumber::kNegInt;
      out->u = v - 1;
    }
    return NumberScan::kOk;
  }
  // -2^64 is still a CBOR negative integer (-1 - (2^64 - 1)).
  if (negative && std::string_view(int_begin, digits) == "18446744073709551616") {
    out->kind = JsonNumber::kNegInt;
    out->u = ~uint64_t{0};
    return NumberScan::kOk;
  }
  if (digits > kMaxIntegerDigits) return NumberScan::kTooLong;
  out->kind = JsonNumber::kBignum;
  if (!DigitsToMagnitude({int_begin, digits}, negative, scratch, &out->bignum))
    return NumberScan::kNoBudget;
  return NumberScan::kOk;
}

}  // namespace rosetta::codec

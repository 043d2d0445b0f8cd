// codec/src/text/decimal.h, utf8.h and same_bytes.h: the hand-written fast paths, each
// against an independent reference (std::to_chars; the byte-by-byte RFC 3629 check;
// std::string_view's ==).
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "rosetta/codec/output.h"
#include "text/decimal.h"
#include "text/double_text.h"
#include "text/same_bytes.h"
#include "text/utf8.h"

namespace rosetta::codec {
namespace {

std::string Reference(uint64_t v) {
  char buf[24];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// The writers store nothing outside the text they return: a canary on both sides.
constexpr char kCanary = 0x5A;
bool CanaryIntact(const char* buf, size_t size, size_t from, size_t text_size) {
  for (size_t i = 0; i < size; ++i) {
    if ((i < from || i >= from + text_size) && buf[i] != kCanary) return false;
  }
  return true;
}

std::string Written(uint64_t v) {
  char buf[64];
  std::memset(buf, kCanary, sizeof buf);
  std::string text(buf + 8, WriteDecimal(buf + 8, v));
  EXPECT_TRUE(CanaryIntact(buf, sizeof buf, 8, text.size())) << v;
  return text;
}

TEST(WriteDecimal, EveryDigitCountBoundary) {
  int checked = 0;
  uint64_t p = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (uint64_t v : {p - 1, p, p + 1, p * 2, p * 5 - 1}) {
      EXPECT_EQ(Written(v), Reference(v)) << v;
      ++checked;
    }
    if (digits < 20) p *= 10;
  }
  for (uint64_t v :
       {uint64_t{0}, ~uint64_t{0}, ~uint64_t{0} - 1, uint64_t{1} << 63, (uint64_t{1} << 63) - 1}) {
    EXPECT_EQ(Written(v), Reference(v)) << v;
    ++checked;
  }
  EXPECT_EQ(checked, 105);
  for (uint64_t v = 0; v < 100000; ++v) ASSERT_EQ(Written(v), Reference(v)) << v;
}

TEST(WriteDecimal, RandomValuesOfEveryBitLength) {
  std::mt19937_64 rng(20261130);
  int checked = 0;
  for (int bits = 1; bits <= 64; ++bits) {
    for (int i = 0; i < 5000; ++i) {
      const uint64_t v = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
      ASSERT_EQ(Written(v), Reference(v)) << v;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64 * 5000);
}

#if defined(__SSE4_1__)
// Every value below 10^8 in each half: the 16 bytes are the two numbers' digits with
// leading zeros, checked against to_chars now and then and read back always.
TEST(SixteenDigits, EveryValueInEachHalf) {
  char text[16];
  auto digits_of = [](const char* p, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      if (p[i] < '0' || p[i] > '9') return ~uint32_t{0};
      v = v * 10 + static_cast<uint32_t>(p[i] - '0');
    }
    return v;
  };
  for (uint32_t v = 0; v < 100000000; ++v) {
    const uint32_t other = 99999999 - v;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(text), SixteenDigits(v, other));
    ASSERT_EQ(digits_of(text, 8), v);
    ASSERT_EQ(digits_of(text + 8, 8), other);
    if (v % 9973 == 0) {
      char expected[17];
      std::snprintf(expected, sizeof expected, "%08u%08u", v, other);
      ASSERT_EQ(std::string(text, 16), expected);
    }
  }
}
#endif

std::string ReferenceDouble(double d) {
  char buf[40];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, d).ptr);
}

std::string WrittenDouble(double d) {
  char buf[80];
  std::memset(buf, kCanary, sizeof buf);
  bool integral;
  std::string text(buf + 8, WriteShortestDouble(buf + 8, d, &integral));
  // The text is at most 24 bytes, and nothing is written outside p .. p + 24 (scratch).
  EXPECT_LE(text.size(), 24u) << text;
  EXPECT_TRUE(CanaryIntact(buf, sizeof buf, 8, 24)) << text;
  EXPECT_EQ(integral, text.find_first_of(".e") == std::string::npos) << text;
  return text;
}

// Floats (the fixed format's float fields into JSON): the float's own shortest text,
// std::to_chars of the float, for every exponent and a million random bit patterns.
TEST(WriteShortestFloat, SameTextAsToCharsOfTheFloat) {
  int checked = 0;
  auto check = [&](float f) {
    char ref[40];
    const std::string want(ref, std::to_chars(ref, ref + sizeof ref, f).ptr);
    char buf[80];
    std::memset(buf, kCanary, sizeof buf);
    bool integral;
    const std::string got(buf + 8, WriteShortestFloat(buf + 8, f, &integral));
    ASSERT_EQ(got, want) << std::bit_cast<uint32_t>(f);
    ASSERT_TRUE(CanaryIntact(buf, sizeof buf, 8, 24)) << got;
    ASSERT_EQ(integral, got.find_first_of(".e") == std::string::npos) << got;
    ++checked;
  };
  for (float f : {0.0f, -0.0f, 0.1f, 1.0f, 16777216.0f, 1234560.0f, 1e10f,
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::lowest()}) {
    check(f);
  }
  for (int e = -45; e <= 38; ++e) {
    const float p = std::pow(10.0f, static_cast<float>(e));
    for (float f : {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY), 1.5f * p, 7.0f * p}) {
      if (std::isfinite(f)) check(f);
    }
  }
  std::mt19937_64 rng(32);
  for (int i = 0; i < 1000000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isfinite(f)) check(f);
  }
  EXPECT_GT(checked, 990000);
}

TEST(WriteShortestDouble, SameTextAsToChars) {
  int checked = 0;
  auto check = [&](double d) {
    ASSERT_EQ(WrittenDouble(d), ReferenceDouble(d)) << std::bit_cast<uint64_t>(d);
    ++checked;
  };
  // Zeros, the extremes, subnormals, and every power of ten with its neighbours: where
  // fixed and scientific trade places.
  for (double d : {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 123.0, 1e21, 1e22, 1e23, 5e-324, -5e-324,
                   std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest(), std::numeric_limits<double>::epsilon()}) {
    check(d);
  }
  for (int e = -325; e <= 308; ++e) {
    const double p = std::pow(10.0, e);
    for (double d : {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY), 1.5 * p, 9.999 * p,
                     1.25 * p, 7 * p}) {
      if (std::isfinite(d)) check(d);
    }
  }
  // Integers (fixed up to 10^15 or so, then scientific when shorter).
  for (int64_t v = 1; v < (int64_t{1} << 53); v = v * 3 + 1) {
    check(static_cast<double>(v));
    check(static_cast<double>(-v));
  }
  // Random bit patterns (every exponent) and random decimals of up to 17 digits.
  std::mt19937_64 rng(53);
  for (int i = 0; i < 300000; ++i) {
    const double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) check(d);
  }
  for (int i = 0; i < 300000; ++i) {
    const double d = static_cast<double>(rng() % 100000000000000000ull) *
                     std::pow(10.0, static_cast<int>(rng() % 40) - 30);
    if (std::isfinite(d)) check(d);
  }
  // 16 and 17 significant digits with 1..8 of them before the point (WholeAndFraction
  // and its neighbours), both signs.
  for (int i = 0; i < 200000; ++i) {
    const uint64_t sig = 1000000000000000ull + rng() % 99000000000000000ull;
    const double d = static_cast<double>(sig) / std::pow(10.0, 9 + static_cast<int>(rng() % 9));
    check(i & 1 ? -d : d);
  }
  // 1..15 significant digits with up to 9 before the point (ShortFraction and its
  // neighbours), both signs.
  for (int i = 0; i < 200000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 15);
    const uint64_t sig =
        kPowersOf10[digits - 1] + rng() % (kPowersOf10[digits] - kPowersOf10[digits - 1]);
    const double d = static_cast<double>(sig) / std::pow(10.0, static_cast<int>(rng() % 17));
    check(i & 1 ? -d : d);
  }
  EXPECT_GT(checked, 1000000);
}

// OutputBuffer::Append copies short runs with overlapping word moves: every length, at
// every alignment, lands exactly, and nothing past it is touched.
TEST(OutputBufferAppend, EveryLengthAtEveryAlignmentIsExact) {
  std::string source(64, '\0');
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<char>('A' + i % 50);
  int checked = 0;
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n <= 40; ++n) {
      OutputBuffer out;
      out.Begin(1024, nullptr);
      ASSERT_TRUE(out.Ensure(128));
      std::memset(out.cursor(), kCanary, 128);
      out.Append(source.data(), offset);  // the alignment
      out.Append(n ? source.data() + offset : nullptr, n);
      ASSERT_EQ(out.size(), offset + n);
      EXPECT_EQ(std::string(out.data() + offset, n), source.substr(offset, n))
          << offset << " " << n;
      for (size_t i = offset + n; i < 128; ++i)
        ASSERT_EQ(out.data()[i], kCanary) << offset << " " << n << " " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8 * 41);
}

TEST(ValidUtf8, AgreesWithTheByteByByteCheck) {
  std::mt19937_64 rng(7);
  // Bytes drawn so that valid and invalid multi-byte sequences both occur often.
  const uint8_t pool[] = {'a',  'Z',  '0',  ' ',  0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xdf,
                          0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f};
  int valid = 0, invalid = 0;
  for (int i = 0; i < 200000; ++i) {
    const size_t n = rng() % 90;
    std::string s(n, 'x');
    const int mode = static_cast<int>(rng() % 3);  // 0: ASCII only, 1: one odd byte, 2: any
    for (size_t j = 0; j < n; ++j) {
      s[j] = static_cast<char>(mode == 2 ? pool[rng() % sizeof pool] : 'a' + rng() % 26);
    }
    if (mode == 1 && n > 0) s[rng() % n] = static_cast<char>(pool[rng() % sizeof pool]);
    const bool expected = InvalidUtf8Offset(s) == s.size();
    ASSERT_EQ(ValidUtf8(s), expected) << i;
    // The same string inside a buffer, followed by bytes that are not ASCII (which the
    // masked loads read and must ignore), with fewer or more than 24 bytes readable.
    const size_t after = rng() % 40;
    std::string buffer = s + std::string(after, '\xff');
    ASSERT_EQ(ValidUtf8In(std::string_view(buffer.data(), n), n + after), expected) << i;
    (expected ? valid : invalid)++;
  }
  EXPECT_GT(valid, 80000);
  EXPECT_GT(invalid, 50000);
}

// Every length up to 80 (the word-compare cases and memcmp past them), a difference at
// every position of each, equal views at different addresses, and the bytes around the
// views different (nothing outside a view may count).
TEST(SameBytes, AgreesWithStringViewEquality) {
  int compared = 0;
  for (size_t n = 0; n <= 80; ++n) {
    std::string a(n + 16, 'x'), b(n + 16, 'y');
    for (size_t i = 0; i < n; ++i) a[8 + i] = b[8 + i] = static_cast<char>('a' + i % 26);
    const std::string_view va(a.data() + 8, n), vb(b.data() + 8, n);
    EXPECT_TRUE(SameBytes(va, vb)) << n;
    ++compared;
    for (size_t at = 0; at < n; ++at) {
      b[8 + at] ^= 0x20;
      EXPECT_EQ(SameBytes(va, vb), va == vb) << n << " " << at;
      EXPECT_FALSE(SameBytes(va, vb)) << n << " " << at;
      b[8 + at] ^= 0x20;
      ++compared;
    }
    if (n > 0) {
      EXPECT_FALSE(SameBytes(va, std::string_view(b.data() + 8, n - 1))) << n;
    }
  }
  EXPECT_EQ(compared, 81 + 80 * 81 / 2);
}

}  // namespace
}  // namespace rosetta::codec

// Fixed records into compact JSON, CBOR and MessagePack at memory speed: each layout's
// encoding is compiled once (BuildFixedEncoding) into (prefix, value) steps, and a record
// is a loop over them. The bytes are exactly those the general path writes (FixedReader
// driving JsonWriter, CborWriter or MsgpackWriter; fixed_test compares them over random
// records); anything that path would refuse or treat specially (a bool other than 0 or 1,
// a number a closed enum does not define, a non-finite float into JSON, the
// google.protobuf.NullValue enum) makes EncodeFixed give up, and the caller runs the
// general path, which reports it.
#include "fixed/fixed_encoder.h"

#include <google/protobuf/descriptor.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>

#if defined(__SSSE3__)
#include <immintrin.h>
#endif

#include "binary/float_bits.h"
#include "fixed/fixed_reader.h"
#include "text/decimal.h"
#include "text/double_text.h"

namespace rosetta::codec {

namespace {

constexpr uint8_t kJson = 1, kCbor = 2, kMsgpack = 3;

inline char* Big(char* o, uint64_t v, int bytes) {
  if (bytes == 8) {
    v = __builtin_bswap64(v);
  } else if (bytes == 4) {
    const uint32_t w = __builtin_bswap32(static_cast<uint32_t>(v));
    std::memcpy(o, &w, 4);
    return o + 4;
  } else if (bytes == 2) {
    const uint16_t w = __builtin_bswap16(static_cast<uint16_t>(v));
    std::memcpy(o, &w, 2);
    return o + 2;
  } else {
    *o = static_cast<char>(v);
    return o + 1;
  }
  std::memcpy(o, &v, 8);
  return o + 8;
}

inline char* MsgpackStrHead(char* o, size_t n) {
  if (n <= 31) {
    *o++ = static_cast<char>(0xa0 | n);
    return o;
  }
  if (n <= 0xff) {
    *o++ = static_cast<char>(0xd9);
    return Big(o, n, 1);
  }
  if (n <= 0xffff) {
    *o++ = static_cast<char>(0xda);
    return Big(o, n, 2);
  }
  *o++ = static_cast<char>(0xdb);
  return Big(o, n, 4);
}

inline char* MsgpackMapHead(char* o, uint64_t n) {
  if (n <= 15) {
    *o++ = static_cast<char>(0x80 | n);
    return o;
  }
  if (n <= 0xffff) {
    *o++ = static_cast<char>(0xde);
    return Big(o, n, 2);
  }
  *o++ = static_cast<char>(0xdf);
  return Big(o, n, 4);
}

// A width class c, by a value's significant bits: 0 when the value fits in the head (up
// to `in_head` bits), then 1, 2, 4 or 8 bytes after it, each up to its bits less `less`.
// Packed: the bytes a value takes with its head, the shift that brings its bytes to the
// top of a word, and c.
constexpr uint32_t WidthOf(unsigned bits, unsigned in_head, unsigned less) {
  const unsigned c = bits <= in_head     ? 0
                     : bits <= 8 - less  ? 1
                     : bits <= 16 - less ? 2
                     : bits <= 32 - less ? 3
                                         : 4;
  const unsigned size = (1u << c) >> 1;
  return (1 + size) | (((64 - 8 * size) & 63) << 8) | (c << 16);
}
struct WidthTable {
  uint32_t of[65];  // by significant bits, 1..64
};
constexpr WidthTable Widths(unsigned in_head, unsigned less) {
  WidthTable t{};
  for (unsigned bits = 0; bits <= 64; ++bits) t.of[bits] = WidthOf(bits, in_head, less);
  return t;
}
// CBOR: up to 23 in the head (5 bits, and 24..31 counted as 6); MessagePack: a positive
// fixint holds 7 bits; a negative value is measured as ~v, a negative fixint holding 5
// bits and int 8/16/32 one bit less than their width.
constexpr WidthTable kCborWidths = Widths(5, 0);
constexpr WidthTable kMsgpackWidths[2] = {Widths(7, 0), Widths(5, 1)};  // >= 0, < 0

inline unsigned SignificantBits(uint64_t v) {
  return 64 - static_cast<unsigned>(__builtin_clzll(v | 1));
}

// The head, then the value's bytes as one 8-byte big-endian store of which the width's
// count (the room holds the rest: max_bytes gives every value 21 bytes).
inline char* PutWidth(char* o, uint32_t width, uint8_t in_head, unsigned base, uint64_t v) {
  const unsigned c = width >> 16;
  *o = static_cast<char>(c == 0 ? in_head : base + c);
  const uint64_t big = __builtin_bswap64(v << ((width >> 8) & 0xff));
  std::memcpy(o + 1, &big, 8);
  return o + (width & 0xff);
}

// Integer heads and values: the same bytes as the CBOR and MessagePack writers, with no
// branch on the value (a record's random integers would mispredict their widths
// and signs): the width comes from a table by the value's significant bits.
inline char* CborHeadFast(char* o, uint8_t major_bits, uint64_t v) {
  const unsigned bits = SignificantBits(v) + static_cast<unsigned>(v - 24 < 8);
  return PutWidth(o, kCborWidths.of[bits], static_cast<uint8_t>(major_bits | v), major_bits | 23u,
                  v);
}

inline char* CborSignedFast(char* o, int64_t v) {
  const uint64_t mask = static_cast<uint64_t>(v >> 63);  // all ones when negative
  return CborHeadFast(o, static_cast<uint8_t>(mask & 0x20), static_cast<uint64_t>(v) ^ mask);
}

inline char* MsgpackUintFast(char* o, uint64_t v) {
  return PutWidth(o, kMsgpackWidths[0].of[SignificantBits(v)], static_cast<uint8_t>(v), 0xcb,
                  v);  // uint 8 is 0xcc
}

inline char* MsgpackIntFast(char* o, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  const uint64_t negative = u >> 63;
  const unsigned bits = SignificantBits(u ^ (0 - negative));
  return PutWidth(o, kMsgpackWidths[negative].of[bits], static_cast<uint8_t>(u),
                  static_cast<unsigned>(0xcb + 4 * negative),
                  u);  // int 8 is 0xd0
}

// The literal bytes of a compiled encoding, written by the encoders records use.
template <class Head>
void AppendHead(std::string& s, Head head) {
  char buf[16];
  s.append(buf, static_cast<size_t>(head(buf) - buf));
}

// The most bytes a value of kind k takes in format f.
size_t MaxValueBytes(uint8_t f, const FixedStep& s) {
  size_t enum_text = 0;
  if (s.kind == FixedKind::kEnum) {
    const auto* d = s.enum_info->descriptor;
    for (int i = 0; i < d->value_count(); ++i)
      enum_text = std::max(enum_text, d->value(i)->name().size());
    enum_text += 9;  // quotes, or a head of up to 9 bytes
  }
  switch (s.kind) {
    case FixedKind::kBool:
      return 5;
    case FixedKind::kFloat:
    case FixedKind::kDouble:
      return f == kJson ? 32 : 9;
    case FixedKind::kEnum:
      return std::max<size_t>(enum_text, 21);
    default:
      return 21;  // "-9223372036854775808", or a head and 8 bytes
  }
}

// FixedEncoding::shuffle for an image whose floats are the whole record of `size` bytes;
// left empty when a piece would need record bytes more than 16 apart.
void BuildShuffle(FixedEncoding& e, size_t size) {
#if defined(__SSSE3__)
  bool dense = !e.floats.empty() && size >= 16 && e.floats.size() * 4 == size;
  for (size_t i = 0; dense && i < e.floats.size(); ++i) dense = e.floats[i].from == 4 * i;
  if (!dense) return;
  for (size_t at = 0; at < e.image_size; at += 16) {
    FixedEncoding::ShufflePiece piece;
    std::memset(piece.mask, 0x80, 16);
    // Which record byte each of the piece's bytes is (-1: a literal).
    int source[16];
    std::fill(std::begin(source), std::end(source), -1);
    uint32_t low = ~uint32_t{0}, high = 0;
    for (const FixedEncoding::FloatSlot& f : e.floats) {
      for (uint32_t b = 0; b < 4; ++b) {  // big-endian: image byte b is the word's byte 3 - b
        const size_t to = f.to + b;
        if (to < at || to >= at + 16) continue;
        const uint32_t from = f.from + 3 - b;
        source[to - at] = static_cast<int>(from);
        low = std::min(low, from);
        high = std::max(high, from);
      }
    }
    if (low == ~uint32_t{0}) low = high = 0;  // literals only
    if (high - low >= 16) {
      e.shuffle.clear();
      return;
    }
    piece.from = static_cast<uint32_t>(std::min<size_t>(low, size - 16));  // inside the record
    for (int k = 0; k < 16; ++k) {
      if (source[k] >= 0) piece.mask[k] = static_cast<uint8_t>(source[k] - piece.from);
    }
    e.shuffle.push_back(piece);
  }
#else
  (void)e;
  (void)size;
#endif
}

}  // namespace

FixedEncoding BuildFixedEncoding(const FixedLayout& layout, uint8_t format) {
  FixedEncoding e;
  std::string literal;
  std::vector<bool> first;  // JSON: no member written yet in each open message
  auto flush_literal_over = [&](size_t keep) {
    // Literal runs longer than a prefix become steps of their own (kBegin: no value).
    while (literal.size() > keep) {
      EncodeStep st{};
      st.kind = FixedKind::kBegin;
      st.prefix_len = 16;
      std::memcpy(st.prefix, literal.data(), 16);
      e.steps.push_back(st);
      e.max_bytes += 16;
      literal.erase(0, 16);
    }
  };
  for (const FixedStep& s : layout.steps) {
    if (s.kind == FixedKind::kEnd) {
      if (format == kJson) literal += '}';
      if (format == kJson) first.pop_back();
      continue;
    }
    // The key (every step but the root's).
    if (!s.key.empty()) {
      if (format == kJson) {
        if (!first.back()) literal += ',';
        first.back() = false;
        literal += '"';
        literal += s.key;
        literal += "\":";
      } else if (format == kCbor) {
        AppendHead(literal, [&](char* o) { return CborHeadFast(o, 0x60, s.key.size()); });
        literal += s.key;
      } else {
        AppendHead(literal, [&](char* o) { return MsgpackStrHead(o, s.key.size()); });
        literal += s.key;
      }
    }
    if (s.kind == FixedKind::kBegin) {
      if (format == kJson) {
        literal += '{';
        first.push_back(true);
      } else if (format == kCbor) {
        AppendHead(literal, [&](char* o) { return CborHeadFast(o, 0xa0, s.fields); });
      } else {
        AppendHead(literal, [&](char* o) { return MsgpackMapHead(o, s.fields); });
      }
      continue;
    }
    flush_literal_over(16);
    EncodeStep st{};
    st.kind = s.kind;
    st.offset = s.offset;
    st.step = &s;
    st.prefix_len = static_cast<uint8_t>(literal.size());
    std::memcpy(st.prefix, literal.data(), literal.size());
    e.max_bytes += 16 + MaxValueBytes(format, s);
    literal.clear();
    e.steps.push_back(st);
  }
  // What follows the last value (closing brackets) as literal steps of up to 16 bytes.
  for (size_t at = 0; at < literal.size(); at += 16) {
    EncodeStep st{};
    st.kind = FixedKind::kBegin;
    st.prefix_len = static_cast<uint8_t>(std::min<size_t>(16, literal.size() - at));
    std::memcpy(st.prefix, literal.data() + at, st.prefix_len);
    e.steps.push_back(st);
    e.max_bytes += 16;
  }
  e.max_bytes += 16 + 1;  // and a newline
  // The record's end, as a step: the loop over the steps needs no bound check.
  EncodeStep last{};
  last.kind = FixedKind::kEnd;
  e.steps.push_back(last);
  const bool floats_only = std::all_of(e.steps.begin(), e.steps.end(), [](const EncodeStep& st) {
    return st.kind == FixedKind::kBegin || st.kind == FixedKind::kFloat ||
           st.kind == FixedKind::kEnd;
  });
  if (format != kJson && floats_only) {
    for (const EncodeStep& st : e.steps) {
      e.image.append(st.prefix, st.prefix_len);
      if (st.kind != FixedKind::kFloat) continue;
      e.image += static_cast<char>(format == kCbor ? 0xfa : 0xca);  // single precision
      e.floats.push_back({st.offset, static_cast<uint32_t>(e.image.size())});
      e.image.append(4, '\0');
    }
    if (e.floats.empty()) e.image.clear();
    e.image_size = e.image.size();
    BuildShuffle(e, layout.size);
    e.image.resize((e.image_size + 31) / 32 * 32);        // EncodeFloats copies 32 bytes at a time
    e.max_bytes = std::max(e.max_bytes, e.image.size());  // all of which the room must hold
  }
  return e;
}

namespace {

template <uint8_t F>
inline char* Signed(char* o, int64_t v) {
  if constexpr (F == kJson) {
    if (v < 0) {
      *o++ = '-';
      return WriteDecimal(o, 0 - static_cast<uint64_t>(v));
    }
    return WriteDecimal(o, static_cast<uint64_t>(v));
  } else if constexpr (F == kCbor) {
    return CborSignedFast(o, v);
  } else {
    return MsgpackIntFast(o, v);
  }
}

template <uint8_t F>
inline char* Unsigned(char* o, uint64_t v) {
  if constexpr (F == kJson) {
    return WriteDecimal(o, v);
  } else if constexpr (F == kCbor) {
    return CborHeadFast(o, 0, v);
  } else {
    return MsgpackUintFast(o, v);
  }
}

// A double as the format's writer writes it; null when the general path must (JSON:
// non-finite).
template <uint8_t F>
inline char* Floating(char* o, double d) {
  if constexpr (F == kJson) {
    if (!std::isfinite(d)) [[unlikely]]
      return nullptr;
    return WriteJsonDouble(o, d);
  } else if constexpr (F == kCbor) {
    uint16_t half;
    if (DoubleToHalf(d, &half)) {
      *o++ = static_cast<char>(0xf9);
      return Big(o, half, 2);
    }
    if (FitsFloat(d)) {
      *o++ = static_cast<char>(0xfa);
      return Big(o, std::bit_cast<uint32_t>(static_cast<float>(d)), 4);
    }
    *o++ = static_cast<char>(0xfb);
    return Big(o, std::bit_cast<uint64_t>(d), 8);
  } else {
    if (FitsFloat(d)) {
      *o++ = static_cast<char>(0xca);
      return Big(o, std::isnan(d) ? 0x7fc00000u : std::bit_cast<uint32_t>(static_cast<float>(d)),
                 4);
    }
    *o++ = static_cast<char>(0xcb);
    return Big(o, std::bit_cast<uint64_t>(d), 8);
  }
}

template <uint8_t F>
inline char* Float(char* o, float f) {
  if constexpr (F == kJson) {
    if (!std::isfinite(f)) [[unlikely]]
      return nullptr;
    return WriteJsonFloat(o, f);
  } else if constexpr (F == kCbor) {
    // A float widened to double always fits single: half when it holds it exactly.
    uint16_t half;
    if (FloatToHalf(f, &half)) {
      *o++ = static_cast<char>(0xf9);
      return Big(o, half, 2);
    }
    *o++ = static_cast<char>(0xfa);
    return Big(o, std::bit_cast<uint32_t>(f), 4);
  } else {
    *o++ = static_cast<char>(0xca);
    return Big(o, std::isnan(f) ? 0x7fc00000u : std::bit_cast<uint32_t>(f), 4);
  }
}

template <uint8_t F>
inline char* Text(char* o, std::string_view s) {
  if constexpr (F == kJson) {
    *o++ = '"';
    std::memcpy(o, s.data(), s.size());
    o += s.size();
    *o++ = '"';
    return o;
  } else if constexpr (F == kCbor) {
    o = CborHeadFast(o, 0x60, s.size());
  } else {
    o = MsgpackStrHead(o, s.size());
  }
  std::memcpy(o, s.data(), s.size());
  return o + s.size();
}

// `records` records (at least one, `size` bytes apart) through the steps at o: the end of
// what they wrote, or null when the general path must write them. Threaded: every kind's
// code ends in a jump of its own to the next step's code (GCC's labels as values), so the
// branch predictor can tell a layout's sequence of kinds by where each jump is, which one
// shared switch jump hides (log records into CBOR: 95 -> 62 ns, docs/benchmarks.md).
template <uint8_t F>
#if defined(__GNUC__) && !defined(__clang__)
// Keeps GCC from merging the steps' jumps back into one (cross-jumping).
__attribute__((optimize("no-crossjumping")))
#endif
char* EncodeRecords(const FixedEncoding& e, const uint8_t* p, size_t records, size_t size,
                    char* o, bool lines) {
  static constexpr void* kCode[] = {&&begin, &&done,   &&boolean, &&int32,   &&uint32,
                                    &&int64, &&uint64, &&float32, &&float64, &&enumeration};
  static_assert(std::size(kCode) == static_cast<size_t>(FixedKind::kEnum) + 1);
  const EncodeStep* const first = e.steps.data();  // the last is kEnd: `done`
  const EncodeStep* s = first;
  const uint8_t* v;
#define ROSETTA_NEXT_STEP()                                                \
  do {                                                                     \
    std::memcpy(o, s->prefix, 16); /* the whole array: max_bytes' slack */ \
    o += s->prefix_len;                                                    \
    v = p + s->offset;                                                     \
    goto* kCode[static_cast<uint8_t>((s++)->kind)];                        \
  } while (0)
  ROSETTA_NEXT_STEP();
begin:
  ROSETTA_NEXT_STEP();
boolean : {
  const uint8_t b = *v;
  if (b > 1) [[unlikely]]
    return nullptr;
  if constexpr (F == kJson) {
    std::memcpy(o, b ? "true " : "false", 5);
    o += b ? 4 : 5;
  } else {
    *o++ = static_cast<char>(F == kCbor ? (b ? 0xf5 : 0xf4) : (b ? 0xc3 : 0xc2));
  }
  ROSETTA_NEXT_STEP();
}
int32:
  o = Signed<F>(o, fixed_detail::Load<int32_t>(v));
  ROSETTA_NEXT_STEP();
uint32:
  o = Unsigned<F>(o, fixed_detail::Load<uint32_t>(v));
  ROSETTA_NEXT_STEP();
int64:
  o = Signed<F>(o, fixed_detail::Load<int64_t>(v));
  ROSETTA_NEXT_STEP();
uint64:
  o = Unsigned<F>(o, fixed_detail::Load<uint64_t>(v));
  ROSETTA_NEXT_STEP();
float32:
  o = Float<F>(o, fixed_detail::Load<float>(v));
  if (o == nullptr) [[unlikely]]
    return nullptr;
  ROSETTA_NEXT_STEP();
float64:
  o = Floating<F>(o, fixed_detail::Load<double>(v));
  if (o == nullptr) [[unlikely]]
    return nullptr;
  ROSETTA_NEXT_STEP();
enumeration : {
  const FixedStep& fs = *s[-1].step;
  if (fs.enum_info->is_null_value) return nullptr;
  const int32_t number = fixed_detail::Load<int32_t>(v);
  if (const std::string_view* name = fs.EnumName(number)) {
    o = Text<F>(o, *name);
  } else if (fs.closed_enum) {
    return nullptr;
  } else {
    o = Signed<F>(o, number);
  }
  ROSETTA_NEXT_STEP();
}
done:
  if (lines) *o++ = '\n';
  if (--records == 0) return o;
  p += size;
  s = first;
  ROSETTA_NEXT_STEP();
#undef ROSETTA_NEXT_STEP
}

// A record of floats only (FixedEncoding::image): the image copied, each float's bytes
// put in, and whether every float is written as single precision there (else the steps
// write the record).
template <uint8_t F>
inline bool EncodeFloats(const FixedEncoding& e, const uint8_t* p, char* o) {
  // In 32-byte pieces of constant size (vector moves, not a call): the image is kept
  // padded to a multiple of 32, and max_bytes is at least that.
  for (size_t i = 0; i < e.image.size(); i += 32) std::memcpy(o + i, e.image.data() + i, 32);
  uint32_t odd = 0;  // nonzero when a float needs the steps
  for (const FixedEncoding::FloatSlot& f : e.floats) {
    const uint32_t bits = fixed_detail::Load<uint32_t>(p + f.from);
    if constexpr (F == kCbor) {
      // Fits a half only if its 13 low mantissa bits are 0; infinities and NaN too.
      odd |= static_cast<uint32_t>((bits & 0x1fff) == 0) |
             static_cast<uint32_t>((bits & 0x7f800000) == 0x7f800000);
    } else {
      odd |= static_cast<uint32_t>((bits & 0x7fffffff) > 0x7f800000);  // NaN: canonical
    }
    const uint32_t big = __builtin_bswap32(bits);
    std::memcpy(o + f.to, &big, 4);
  }
  return odd == 0;
}

// Whether any of the n floats at p is one the image does not take (EncodeFloats' rule),
// in a loop the compiler vectorizes.
template <uint8_t F>
inline bool AnyOddFloat(const uint8_t* p, size_t n) {
  uint32_t odd = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = fixed_detail::Load<uint32_t>(p + 4 * i);
    if constexpr (F == kCbor) {
      odd |= static_cast<uint32_t>((bits & 0x1fff) == 0) |
             static_cast<uint32_t>((bits & 0x7f800000) == 0x7f800000);
    } else {
      odd |= static_cast<uint32_t>((bits & 0x7fffffff) > 0x7f800000);
    }
  }
  return odd != 0;
}

#if defined(__SSSE3__)
// `records` records (`size` bytes apart) of floats the image takes, by
// FixedEncoding::shuffle: per 16 bytes of output, one load, one byte shuffle, one OR with
// the image's literal bytes, one store.
inline char* ShuffleRecords(const FixedEncoding& e, const uint8_t* p, size_t records, size_t size,
                            char* o) {
  const FixedEncoding::ShufflePiece* const pieces = e.shuffle.data();
  const size_t n = e.shuffle.size();
  const char* const image = e.image.data();
  for (size_t r = 0; r < records; ++r, p += size) {
    for (size_t j = 0; j < n; ++j) {
      const __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pieces[j].from));
      const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pieces[j].mask));
      const __m128i literal = _mm_loadu_si128(reinterpret_cast<const __m128i*>(image + 16 * j));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 16 * j),
                       _mm_or_si128(_mm_shuffle_epi8(in, mask), literal));
    }
    o += e.image_size;
  }
  return o;
}
#endif

template <uint8_t F>
bool Encode(const FixedEncoding& e, const uint8_t* p, size_t records, size_t size, bool lines,
            OutputBuffer& out) {
  const size_t max = e.max_bytes;
  const bool floats = F != kJson && !e.image.empty();
  char* o = nullptr;
  char* room = nullptr;  // the end of the room made for whole records
  for (size_t k = 0; k < records;) {
    if (static_cast<size_t>(room - o) < max) {
      // Room for up to 256 records at a time (the writers' bound for each).
      if (o != nullptr) out.Advance(static_cast<size_t>(o - out.cursor()));
      const size_t batch = records - k < 256 ? records - k : 256;
      if (!out.Ensure(batch * max) && !out.Ensure(max)) return false;
      o = out.cursor();
      room = out.room_end();
    }
#if defined(__SSSE3__)
    if (floats && !e.shuffle.empty()) {
      // The records the room holds whole, 16 at a time: all by the shuffle when none has
      // a float the image does not take (random floats: one in 8,192 fits a half), else
      // one at a time.
      const size_t fit = std::min(records - k, static_cast<size_t>(room - o) / max);
      for (size_t r = 0; r < fit; r += 16) {
        const size_t group = std::min<size_t>(fit - r, 16);
        const uint8_t* q = p + r * size;
        if (!AnyOddFloat<F>(q, group * size / 4)) [[likely]] {
          o = ShuffleRecords(e, q, group, size, o);
          continue;
        }
        for (size_t i = 0; i < group; ++i, q += size) {
          o = AnyOddFloat<F>(q, size / 4) ? EncodeRecords<F>(e, q, 1, size, o, false)
                                          : ShuffleRecords(e, q, 1, size, o);
          if (o == nullptr) return false;
        }
      }
      k += fit;
      p += fit * size;
      continue;
    }
#endif
    if (floats) {
      if (EncodeFloats<F>(e, p, o)) [[likely]] {
        o += e.image_size;
      } else {
        o = EncodeRecords<F>(e, p, 1, size, o, lines);
        if (o == nullptr) return false;
      }
      ++k;
      p += size;
      continue;
    }
    // As many records as the room holds whole, in one run of the steps.
    const size_t fit = std::min(records - k, static_cast<size_t>(room - o) / max);
    o = EncodeRecords<F>(e, p, fit, size, o, lines);
    if (o == nullptr) return false;
    k += fit;
    p += fit * size;
  }
  if (o != nullptr) out.Advance(static_cast<size_t>(o - out.cursor()));
  return true;
}

}  // namespace

bool EncodeFixed(const FixedLayout& layout, uint8_t format, const uint8_t* records_at,
                 size_t records, bool lines, OutputBuffer& out) {
  switch (format) {
    case kJson:
      return Encode<kJson>(layout.json, records_at, records, layout.size, lines, out);
    case kCbor:
      return Encode<kCbor>(layout.cbor, records_at, records, layout.size, false, out);
    case kMsgpack:
      return Encode<kMsgpack>(layout.msgpack, records_at, records, layout.size, false, out);
    default:
      return false;
  }
}

}  // namespace rosetta::codec

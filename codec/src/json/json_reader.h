#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <simdjson.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "core/reader_state.h"
#include "json/json_number.h"
#include "json/json_scalar_reader.h"
#include "memory/scratch.h"
#include "rosetta/codec/sink.h"
#include "text/decimal.h"

namespace rosetta::codec {

// simdjson's first stage, kept per thread and reused from request to request: the SIMD
// kernel the CPU supports (chosen at run time) finds every structural character and
// the start of every scalar, checks UTF-8, closed strings and that no string holds a raw
// control character, at several GB/s. `strings` holds the unescaped text of the strings
// that have escapes (never longer than their escaped form).
struct JsonIndex {
  std::unique_ptr<simdjson::internal::dom_parser_implementation> impl;
  std::unique_ptr<char[]> strings;
  size_t capacity = 0;  // the input size both are made for
  // Ready for n bytes of input: false when the memory cannot be had.
  bool Prepare(size_t n);

  // The item counts of a document's containers, in the order they open (CountItems):
  // for writers whose containers are headed by their count, so that a large document
  // streams instead of being held until its outermost container closes. Made on first
  // use and kept, for half the document's structural characters (a closed container
  // takes two); `open` is the stack of containers open while counting.
  std::unique_ptr<uint32_t[]> counts;
  size_t counts_capacity = 0;
  struct OpenContainer {
    uint32_t ordinal;  // its place in `counts`
    uint32_t commas;   // the innermost container's commas so far, saved while a child is open
    uint32_t opened;   // the index of its opening bracket's structural character
  };
  std::unique_ptr<OpenContainer[]> open;
  size_t open_capacity = 0;
  // Counts the items of every container of the n structural characters at idx over b, up
  // to depth max_depth: returns how many containers were counted (those after the first
  // container deeper than max_depth are not). A container still open at the end (the
  // document is cut short) gets kNoCount. The grammar is not checked here: on a malformed
  // document the counts are meaningless, and the reader refuses it before any container
  // whose count was wrong closes.
  static constexpr uint32_t kNoCount = ~uint32_t{0};
  uint32_t CountItems(const char* b, const uint32_t* idx, uint32_t n, uint32_t max_depth);
};

// Documents from this size on have their containers counted before they are read, for
// writers that head containers with their count (CBOR, MessagePack) into streaming output
// (the CLI): their output then streams in OutputBuffer's chunks. A smaller document's
// output, or one that is not streamed (a server's reply, which is held whole anyway), is
// held until its root closes and the counts are filled in then: no pass ahead.
inline constexpr size_t kCountItemsFrom = size_t{1} << 20;
// Documents from this size on get an index in transparent huge pages (JsonIndex::Prepare).
inline constexpr size_t kHugePagesFrom = size_t{4} << 20;
JsonIndex& ThreadJsonIndex();

// The JSON reader needs simdjson's padding after the input: `input` itself when
// `padding` is enough, else one copy into a per-thread buffer charged to the budget.
bool ReadPadded(Context& ctx, std::string_view input, size_t padding, std::string_view* padded);

// Memory the index works in for n bytes of input (4 bytes a structural index, the string
// buffer), charged to each JSON request.
inline uint64_t JsonParserBytes(size_t n) { return uint64_t{n} * 6 + 4096; }

namespace json_detail {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Whether the n bytes at p hold a backslash. Reads whole words, up to 7 bytes past p + n:
// only for padded input.
inline bool HasBackslash(const char* p, size_t n) {
  static_assert(std::endian::native == std::endian::little,
                "bytes are found by their place in a little-endian word");
  if (n >= 64) return std::memchr(p, '\\', n) != nullptr;
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  for (size_t k = 0; k < n; k += 8) {
    uint64_t w;
    std::memcpy(&w, p + k, 8);
    const uint64_t x = w ^ (kOnes * '\\');
    const uint64_t z = (x - kOnes) & ~x & kHigh;  // exact for the lowest match, all that is used
    if (z != 0) return k + (std::countr_zero(z) >> 3) < n;
  }
  return false;
}

// When the 8 bytes at p are all digits, their value (p[0] the most significant): the
// multiply-and-shift reduction of one 64-bit word, pairs, then fours, then the eight.
[[gnu::always_inline]] inline bool EightDigitsWord(uint64_t w, uint64_t* v) {
  // Every byte in '0'..'9': its high nibble is 3, and adding 6 keeps it 3.
  if (((w & 0xF0F0F0F0F0F0F0F0ull) |
       (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull) {
    return false;
  }
  w -= 0x3030303030303030ull;
  w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFull;    // pairs: d0*10+d1 in every other byte
  w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFull;  // fours
  *v = (w * 10000 + (w >> 32)) & 0xFFFFFFFFull;       // the eight
  return true;
}
[[gnu::always_inline]] inline bool EightDigits(const char* p, uint64_t* v) {
  static_assert(std::endian::native == std::endian::little,
                "digits are found by their place in a little-endian word");
  uint64_t w;
  std::memcpy(&w, p, 8);
  return EightDigitsWord(w, v);
}
// The same for the r (1..7) bytes at p (the 8 at p must be readable): they are moved to
// the word's low-order end and '0's put before them.
[[gnu::always_inline]] inline bool FewDigits(const char* p, size_t r, uint64_t* v) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  const unsigned shift = static_cast<unsigned>(8 * (8 - r));
  return EightDigitsWord((w << shift) | (0x3030303030303030ull >> (64 - shift)), v);
}

// Whether a token that starts with c may be a number.
inline bool StartsNumber(char c) { return c == '-' || static_cast<unsigned>(c - '0') < 10; }

// Whether a number's extent [p, e) has one of the shapes JsonReader::Number reads in one
// pass, an integer of 1..19 digits with no leading zero or such digits, '.' and fraction
// digits, 19 digits in all: *d is then the number (sink.h, ShortDecimal). For the short
// arrays offered whole (TakesDecimals) where AVX2 is not compiled in, and the reference
// ReadShortDecimalAvx2 is tested against. (Number's own reading stays its own: one
// reading shared with it, handing each shape to the caller inlined, took citm 0.3% and
// geojson 1% more instructions.)
[[gnu::always_inline]] inline bool ReadShortDecimal(const char* p, const char* e, ShortDecimal* d) {
  const bool negative = *p == '-';
  const char* q = p + negative;
  const char* const digits = q;
  uint64_t v = 0;
  while (q < e && static_cast<unsigned>(*q - '0') < 10)
    v = v * 10 + static_cast<unsigned>(*q++ - '0');
  const size_t nd = static_cast<size_t>(q - digits);
  if (nd - 1 >= 19 || (nd != 1 && *digits == '0')) return false;
  size_t m = 0;
  if (q != e) {
    const char* c = q + 1;
    m = static_cast<size_t>(e - c);
    if (*q != '.' || m - 1 >= 19 - nd) return false;
    uint64_t w;
    for (; e - c >= 8; c += 8) {
      if (!EightDigits(c, &w)) return false;
      v = v * 100000000 + w;
    }
    if (c < e) {
      if (!FewDigits(c, static_cast<size_t>(e - c), &w)) return false;
      v = v * kPowersOf10[e - c] + w;
    }
  }
  *d = {v, static_cast<uint32_t>(m), negative};
  return true;
}

#if defined(__AVX2__)
// ReadShortDecimal with AVX2, for the shapes whose integer and fraction digits are at most
// 16 each (an integer, up to 19): the extent's bytes classified at once, then the two
// parts converted side by side, one in each 128-bit lane, each right-aligned by a shuffle
// and reduced as pairs, fours and eights (multiply-adds). False for every other extent,
// ReadShortDecimal's longer shapes included (their arrays come event by event). On
// geojson's 17-digit coordinates, 43 instructions fewer a number than ReadShortDecimal
// (65.54M -> 60.68M for 1,000 records, measured with the offer's first version).
[[gnu::always_inline]] inline bool ReadShortDecimalAvx2(const char* p, const char* e,
                                                        ShortDecimal* d) {
  // out[j] = in[j - (16 - k)] for the last k bytes of a lane, 0 before (index 0x80):
  // loaded from kAlign + k.
  alignas(64) static constexpr uint8_t kAlign[32] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                                     0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                                     0,    1,    2,    3,    4,    5,    6,    7,
                                                     8,    9,    10,   11,   12,   13,   14,   15};
  const bool negative = *p == '-';
  p += negative;
  const size_t len = static_cast<size_t>(e - p);
  if (len - 1 >= 20) return false;  // 1..20 bytes: 19 digits and a '.' at most
  // The extent is padded (Read's input): 32 bytes from p are readable.
  const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i v = _mm256_sub_epi8(raw, _mm256_set1_epi8('0'));
  const uint32_t digit = static_cast<uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(9)), v)));
  const uint32_t all = (uint32_t{1} << len) - 1;
  // The integer digits (the byte after the extent is none: whitespace or a token's own).
  const size_t nd = std::min(static_cast<size_t>(std::countr_one(digit)), len);
  if (nd == 0 || (nd > 1 && *p == '0')) return false;
  // The two parts: lane 0 the first k0 digits from p, lane 1 the k1 digits from p1.
  const char* p1 = p;
  size_t k0 = nd, k1 = 0, m = 0;
  if (nd >= len) {  // an integer: its last 16 digits in lane 1 when it has more
    if (len > 19) return false;
    if (len > 16) {
      k0 = len - 16;
      k1 = 16;
      p1 = p + k0;
    }
  } else {  // a decimal: '.', then digits only, to the extent's end
    m = len - nd - 1;
    if (p[nd] != '.' || m == 0 || ((digit | (uint32_t{1} << nd)) & all) != all || nd > 16 || m > 16)
      return false;
    k1 = m;
    p1 = p + nd + 1;
  }
  const __m256i parts = _mm256_sub_epi8(_mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p1),
                                                            reinterpret_cast<const __m128i*>(p)),
                                        _mm256_set1_epi8('0'));
  const __m256i align = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(kAlign + k1),
                                            reinterpret_cast<const __m128i*>(kAlign + k0));
  __m256i t = _mm256_shuffle_epi8(parts, align);
  t = _mm256_maddubs_epi16(t, _mm256_set1_epi16(0x010A));   // pairs: 10 * first + second
  t = _mm256_madd_epi16(t, _mm256_set1_epi32(0x00010064));  // fours: 100 * first + second
  t = _mm256_packus_epi32(t, t);                            // (each below 10^4: 16 bits)
  t = _mm256_madd_epi16(t, _mm256_set1_epi32(0x00012710));  // eights: 10^4 * first + second
  const uint64_t w0 = static_cast<uint64_t>(_mm256_extract_epi64(t, 0));
  const uint64_t w1 = static_cast<uint64_t>(_mm256_extract_epi64(t, 2));
  const uint64_t a = (w0 & 0xFFFFFFFF) * 100000000 + (w0 >> 32);
  const uint64_t b = (w1 & 0xFFFFFFFF) * 100000000 + (w1 >> 32);
  *d = {a * kPowersOf10[k1] + b, static_cast<uint32_t>(m), negative};
  return true;
}
#endif

// Whether the decimal with integer digits [digits, digits + nd) (no leading zero unless
// it is "0") and fraction [f, e) (digits only, checked by the caller) is exactly the text
// JsonWriter writes for the double it reads as: the fraction does not end in 0, there
// are at most 15 significant digits, and fixed notation is what to_chars chooses (double_text.h
// WriteShortestDouble: the shorter, fixed on a tie). At most 15 significant digits read
// back from any double to themselves (DBL_DIG), so no shorter digits read as the same
// double; with a nonzero integer part, scientific notation is 4 bytes longer; for 0.ddd,
// fixed is no longer while at most 2 zeros (3 with two or more digits) follow the point.
inline bool IsShortestFixed(const char* digits, size_t nd, const char* f, const char* e) {
  const size_t m = static_cast<size_t>(e - f);
  if (m == 0 || m > 15 || e[-1] == '0') return false;
  if (*digits != '0') return nd + m <= 15;
  size_t zeros = 0;
  while (f[zeros] == '0') ++zeros;  // stops at the last digit, which is not 0
  const size_t k = m - zeros;
  return zeros <= (k > 1 ? 3u : 2u);
}

}  // namespace json_detail

// Reads JSON (RFC 8259) into a sink in two passes: simdjson's first stage (JsonIndex)
// indexes the structure with SIMD, then a loop over that index checks the grammar and
// drives the sink directly. No tree, no tape, no recursion: open containers are
// ReaderState's explicit stack. Strings without escapes are views of the input; numbers
// are read exactly (integers of up to 19 digits here, decimals by simdjson's parser, the
// rest by ScanJsonNumber); depth, duplicate keys and limits are ReaderState's.
// A malformed document is read again by JsonScalarReader, on the cold path, for the exact
// code, offset and path of its first error.
template <Sink S>
class JsonReader {
 public:
  JsonReader(Context& ctx, S& sink) : ctx_(ctx), st_(ctx), sink_(sink), scratch_(ctx) {}

  // `padding` readable bytes must follow the input (words are read past strings and
  // simdjson reads ahead): at least SIMDJSON_PADDING, else the caller copies.
  bool Read(std::string_view input, size_t padding);

 private:
  // Malformed (or past a limit): find out exactly where and why. `at` and `what` are
  // reported only if the byte-by-byte reader finds nothing wrong.
  [[gnu::cold, gnu::noinline]] bool Malformed(uint64_t at, const char* what,
                                              ErrorCode code = ErrorCode::kSyntax);
  // A sink or limit error at the item that starts at offset `at`.
  [[gnu::cold, gnu::noinline]] bool FailAt(uint64_t at) {
    st_.Locate(at);
    return false;
  }
  // The string whose opening quote is at `open`; `next` is where the next token starts
  // (or the end of the input). `verbatim`: it had no escapes (s is its text in the input).
  // Always inlined (every key and string value passes here, and whether the compiler
  // inlined it varied with what else its translation unit held); the strings with escapes
  // go to Unescaped, out of line.
  [[gnu::always_inline]] bool String(const char* open, const char* next, std::string_view* s,
                                     bool* verbatim);
  [[gnu::noinline]] bool Unescaped(const char* open, const char* p, std::string_view* s);
  // The sink writes JSON and takes checked JSON text as it is (JsonWriter::VerbatimText).
  static constexpr bool kVerbatim = requires(S & sink, std::string_view v) {
    sink.VerbatimText(v);
    sink.VerbatimInteger(v, uint64_t{0}, false);
    sink.VerbatimDecimal(v);
  };
  // The sink is told where each item starts (sink.h, ItemStart): the offset in the input
  // of its token's first byte (a string's opening quote, a container's '[' or '{').
  static constexpr bool kItemStarts = requires(S & sink) { sink.ItemStart(uint64_t{0}); };
  // The sink may settle a decimal from its digits before it is converted (Validator::
  // TakeDecimal): a validator whose check of it needs no exact double.
  static constexpr bool kTakesDecimals = requires(S & sink, bool* ok) {
    { sink.TakeDecimal(uint64_t{0}, size_t{0}, false, ok) } -> std::same_as<bool>;
  };
  // The sink heads a container with its item count, and holds its output until the count
  // is known when it is not given (cbor_writer.h, msgpack_writer.h).
  static constexpr bool kWantsCounts = requires { requires S::kHeadsWithCount; };
  bool Text(std::string_view s, bool verbatim) {
    if constexpr (kVerbatim) {
      if (verbatim) return sink_.VerbatimText(s);
    }
    return sink_.Text(s);
  }
  // A scalar's extent [p, e): from its first byte to the next token, whitespace before
  // that taken off. Stage 1 starts a token at every structural character and after
  // whitespace, so a number or literal is valid only if it is its whole extent (a quote
  // right after a scalar starts no token: `3"x"` is one extent, and is refused).
  bool Number(const char* p, const char* e, uint64_t at);
  // The array whose '[' is token i offered whole to a TakesDecimals sink when it is 1 to
  // kMaxTakenDoubles short numbers (json_detail::ReadShortDecimal), with what came of it
  // (reader_state.h, Offer). Out of line: within Read, the loop's other paths took 1%
  // (workflow) to 2.4% (citm) more instructions.
  // (next: the token after its ']', when taken.)
  struct Offered {
    Offer offer;
    uint32_t next;
  };
  [[gnu::noinline]] Offered OfferNumbers(const uint32_t* idx, uint32_t n, uint32_t i);
  // The map whose '{' is token i offered whole to a TakesMembers sink when it is 1 to
  // kMaxTakenMembers members of ShortMember's shapes, as OfferNumbers offers an array.
  [[gnu::noinline]] Offered OfferMembers(const uint32_t* idx, uint32_t n, uint32_t i);
  // The text of the string whose opening quote is `open` (next: the next token) when it
  // has no escape and is within max_string_bytes, as String reads it; false otherwise
  // (String then says what is wrong with it, if anything).
  [[gnu::always_inline]] bool PlainString(const char* open, const char* next,
                                          std::string_view* s) const {
    const char* close = next - 1;
    while (close > open && json_detail::IsSpace(*close)) --close;
    if (close <= open || *close != '"') return false;
    const char* p = open + 1;
    const size_t size = static_cast<size_t>(close - p);
    if (size > ctx_.limits.max_string_bytes || json_detail::HasBackslash(p, size)) return false;
    *s = {p, size};
    return true;
  }
  static bool Literal(const char* p, const char* e, const char* word, size_t n) {
    return static_cast<size_t>(e - p) == n && std::memcmp(p, word, n) == 0;
  }

  Context& ctx_;
  ReaderState st_;
  S& sink_;
  Scratch scratch_;
  std::string_view input_;
  const char* end_ = nullptr;
  const simdjson::internal::dom_parser_implementation* impl_ = nullptr;
  char* strings_ = nullptr;           // where the next unescaped string goes
  const uint32_t* counts_ = nullptr;  // JsonIndex::CountItems's, when made
  uint32_t counted_ = 0;              // how many containers counts_ holds
  uint32_t opened_ = 0;               // containers opened so far
};

template <Sink S>
bool JsonReader<S>::Malformed(uint64_t at, const char* what, ErrorCode code) {
  // Re-read from scratch under the same limits, into no sink, for the real location.
  Context probe(ctx_.limits, ctx_.options);
  NullSink null;
  JsonScalarReader<NullSink> scalar(probe, null);
  if (!scalar.Read(input_)) {
    ctx_.status = probe.status;
    ctx_.located = true;
    return false;
  }
  ctx_.located = false;
  ctx_.FailAt(code, at, std::string("malformed JSON: ") + what);
  st_.Locate(at);
  return false;
}

template <Sink S>
inline bool JsonReader<S>::String(const char* open, const char* next, std::string_view* s,
                                  bool* verbatim) {
  using namespace json_detail;
  // The closing quote: the last byte before the next token that is not whitespace (what
  // follows a string is whitespace, a structural character or the start of a scalar).
  const char* close = next - 1;
  while (close > open && IsSpace(*close)) --close;
  if (close <= open || *close != '"') [[unlikely]]
    return Malformed(open - input_.data(), "unterminated string");
  const char* p = open + 1;
  const size_t n = static_cast<size_t>(close - p);
  *verbatim = !HasBackslash(p, n);
  if (!*verbatim) [[unlikely]]
    return Unescaped(open, p, s);
  if (n > ctx_.limits.max_string_bytes) [[unlikely]]
    return Malformed(open - input_.data(), "string too large", ErrorCode::kStringTooLarge);
  *s = {p, n};
  return true;
}

template <Sink S>
bool JsonReader<S>::Unescaped(const char* open, const char* p, std::string_view* s) {
  // simdjson's unescaping, into the document's string buffer: what is there stays valid
  // for the whole request (keys are kept as views).
  char* const dst = strings_;
  const uint8_t* e =
      impl_->parse_string(reinterpret_cast<const uint8_t*>(p), reinterpret_cast<uint8_t*>(dst));
  if (e == nullptr) [[unlikely]]
    return Malformed(open - input_.data(), "invalid escape");
  const size_t size = static_cast<size_t>(reinterpret_cast<const char*>(e) - dst);
  if (size > ctx_.limits.max_string_bytes) [[unlikely]]
    return Malformed(open - input_.data(), "string too large", ErrorCode::kStringTooLarge);
  strings_ = dst + size;
  *s = {dst, size};
  return true;
}

template <Sink S>
inline bool JsonReader<S>::Number(const char* p, const char* e, uint64_t at) {
  // The common shapes in one pass: an integer of 1..19 digits (exact in 64 bits), or a
  // decimal. Anything else (more integer digits, leading zeros, a malformed or
  // out-of-range number) goes to ScanJsonNumber, which decides exactly.
  const bool negative = *p == '-';
  const char* q = p + negative;
  const char* const digits = q;
  uint64_t v = 0;
  if (e - q >= 8) {  // eight digits at once (ids, timestamps), then one at a time
    uint64_t w;
    if (json_detail::EightDigits(q, &w)) {
      v = w;
      q += 8;
    }
  }
  while (q < e && static_cast<unsigned>(*q - '0') < 10)
    v = v * 10 + static_cast<unsigned>(*q++ - '0');
  const size_t nd = static_cast<size_t>(q - digits);
  if (nd - 1 < 19 && (nd == 1 || *digits != '0')) [[likely]] {
    if (q == e) {
      if constexpr (kItemStarts) sink_.ItemStart(at);
      if constexpr (kVerbatim) {
        if (!negative) return sink_.VerbatimInteger({p, nd}, v, false) || FailAt(at);
        if (v != 0) return sink_.VerbatimInteger({p, nd + 1}, v - 1, true) || FailAt(at);
      }
      // "-0" is the integer 0, as ScanJsonNumber reads it.
      const bool ok = !negative || v == 0 ? sink_.Uint(v) : sink_.NegInt(v - 1);
      return ok || FailAt(at);
    }
    // A decimal without an exponent, of at most 19 digits in all (its digits are then
    // one exact 64-bit significand): the fraction's digits eight at a time, then
    // simdjson's exact significand-and-power step (Clinger's fast path, Eisel-Lemire),
    // which declines only what needs the slow path below.
    const char* const f = q + 1;
    const size_t m = static_cast<size_t>(e - f);
    if (*q == '.' && m - 1 < 19 - nd) {
      uint64_t s = v, w;
      const char* c = f;
      bool digits_only = true;
      for (; e - c >= 8; c += 8) {
        if (!json_detail::EightDigits(c, &w)) {
          digits_only = false;
          break;
        }
        s = s * 100000000 + w;
      }
      if (digits_only && c < e) {  // the last 1..7 digits, read to the padding's side
        digits_only = json_detail::FewDigits(c, static_cast<size_t>(e - c), &w);
        s = s * kPowersOf10[e - c] + w;
      }
      if (digits_only) {
        if constexpr (kVerbatim) {
          if (json_detail::IsShortestFixed(digits, nd, f, e)) {
            if constexpr (kItemStarts) sink_.ItemStart(at);
            return sink_.VerbatimDecimal({p, static_cast<size_t>(e - p)}) || FailAt(at);
          }
        }
        if constexpr (kTakesDecimals) {
          // (No ItemStart: a decimal TakeDecimal settles passes, and no offset of it is
          // kept; one it declines gets its ItemStart before Double, below.)
          bool ok;
          if (sink_.TakeDecimal(s, m, negative, &ok)) return ok || FailAt(at);
        }
        double d;
        if (simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::compute_float_64(
                -static_cast<int64_t>(m), s, negative, d)) [[likely]] {
          if constexpr (kItemStarts) sink_.ItemStart(at);
          return sink_.Double(d) || FailAt(at);
        }
      }
    }
    // simdjson's own one-pass decimal parser (the one its On-Demand API compiles in):
    // strict RFC 8259 grammar, exact (Eisel-Lemire, then a slow path), refusing what is
    // malformed or past DBL_MAX, which ScanJsonNumber then reports. Stopped at e, it has
    // read the whole extent when it succeeds (no byte in it ends a number). For an
    // integer part of 0 only when the number has at most 19 digits in all (20 bytes):
    // simdjson 3.0.1 counts the digits of 0.ddd... wrongly and takes more than 19 of them
    // as exact (0.12345789018446744073709551615 comes out wrong); up to 19 they are.
    if ((*q == '.' || *q == 'e' || *q == 'E') && (*digits != '0' || e - p <= 20) &&
        static_cast<unsigned>(e[-1] - '0') < 10) {
      double d;
      if (!simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::parse_double(
               reinterpret_cast<const uint8_t*>(p), reinterpret_cast<const uint8_t*>(e))
               .get(d)) [[likely]] {
        if constexpr (kItemStarts) sink_.ItemStart(at);
        return sink_.Double(d) || FailAt(at);
      }
    }
  }
  size_t len = 0;
  JsonNumber num;
  const NumberScan scan = ScanJsonNumber(p, e, &len, &num, scratch_);
  if (scan == NumberScan::kNoBudget) [[unlikely]]
    return FailAt(at);
  if (scan != NumberScan::kOk || len != static_cast<size_t>(e - p)) [[unlikely]]
    return Malformed(at, "invalid number");
  if constexpr (kItemStarts) return EmitJsonNumberAt(sink_, num, at) || FailAt(at);
  return EmitJsonNumber(sink_, num) || FailAt(at);
}

template <Sink S>
typename JsonReader<S>::Offered JsonReader<S>::OfferNumbers(const uint32_t* idx, uint32_t n,
                                                            uint32_t i) {
  const char* const b = input_.data();
  // Tokens number (',' number)* ']' after the '[', 1 to kMaxTakenDoubles numbers (an array
  // of more has at most that many read in vain: the sink has said it would take it).
  ShortDecimal d[kMaxTakenDoubles];
  uint32_t k = 0;  // the numbers
  uint32_t j = i + 1;
  for (;; j += 2) {
    if (j + 1 >= n) return {Offer::kNone, 0};
    // (The number's extent ends where the next token starts, whitespace taken off.)
    const char* e = b + idx[j + 1];
    while (json_detail::IsSpace(e[-1])) --e;
#if defined(__AVX2__)
    if (!json_detail::ReadShortDecimalAvx2(b + idx[j], e, &d[k])) return {Offer::kNone, 0};
#else
    if (!json_detail::ReadShortDecimal(b + idx[j], e, &d[k])) return {Offer::kNone, 0};
#endif
    ++k;
    const char c = b[idx[j + 1]];
    if (c == ']') break;
    if (c != ',' || k == kMaxTakenDoubles) return {Offer::kNone, 0};
  }
  if (k > ctx_.limits.max_items) return {Offer::kNone, 0};
  const uint64_t at = idx[i];
  if constexpr (kItemStarts) sink_.ItemStart(at);
  bool ok;
  if (!sink_.TakeDecimals(d, k, &ok)) return {Offer::kDeclined, 0};
  if (!ok) [[unlikely]]
    return {Offer::kFailed, 0};
  if constexpr (kWantsCounts) ++opened_;
  return {Offer::kTaken, j + 2};
}

template <Sink S>
typename JsonReader<S>::Offered JsonReader<S>::OfferMembers(const uint32_t* idx, uint32_t n,
                                                            uint32_t i) {
  const char* const b = input_.data();
  // Tokens name ':' value (',' name ':' value)* '}' after the '{', 1 to kMaxTakenMembers
  // members, each value one token (a number, a string, a literal) or two (`[]`, `{}`).
  // (Storage left uninitialized: a ShortMember's views would be set to empty first.)
  alignas(ShortMember) unsigned char storage[sizeof(ShortMember) * kMaxTakenMembers];
  ShortMember* const m = reinterpret_cast<ShortMember*>(storage);
  uint32_t k = 0;        // the members
  uint32_t empties = 0;  // of them `[]` or `{}`
  uint32_t j = i + 1;    // the name's token
  for (;;) {
    // (Its name, ':', a value and one token more.)
    if (j + 3 >= n || b[idx[j]] != '"' || b[idx[j + 1]] != ':') return {Offer::kNone, 0};
    ShortMember& x = m[k];
    if (!PlainString(b + idx[j], b + idx[j + 1], &x.key)) return {Offer::kNone, 0};
    const char* const v = b + idx[j + 2];
    const char* const next = b + idx[j + 3];
    uint32_t after = j + 3;  // the token after the value
    switch (*v) {
      case '"':
        if (!PlainString(v, next, &x.text)) return {Offer::kNone, 0};
        x.kind = ShortMember::kText;
        break;
      case '[':
      case '{':
        if (*next != *v + 2) return {Offer::kNone, 0};  // ('[' + 2 is ']')
        x.kind = *v == '[' ? ShortMember::kEmptyArray : ShortMember::kEmptyMap;
        ++empties;
        ++after;
        break;
      default: {
        // (A scalar's extent ends where the next token starts, whitespace taken off.)
        const char* e = next;
        while (json_detail::IsSpace(e[-1])) --e;
        if (*v == 't' || *v == 'f' || *v == 'n') {
          if (Literal(v, e, "null", 4)) {
            x.kind = ShortMember::kNull;
          } else if (Literal(v, e, "true", 4)) {
            x.kind = ShortMember::kTrue;
          } else if (Literal(v, e, "false", 5)) {
            x.kind = ShortMember::kFalse;
          } else {
            return {Offer::kNone, 0};
          }
          break;
        }
#if defined(__AVX2__)
        if (!json_detail::ReadShortDecimalAvx2(v, e, &x.number)) return {Offer::kNone, 0};
#else
        if (!json_detail::ReadShortDecimal(v, e, &x.number)) return {Offer::kNone, 0};
#endif
        x.kind = ShortMember::kNumber;
      }
    }
    ++k;
    if (after >= n) return {Offer::kNone, 0};
    const char c = b[idx[after]];
    if (c == '}') {
      j = after;
      break;
    }
    if (c != ',' || k == kMaxTakenMembers) return {Offer::kNone, 0};
    j = after + 1;
  }
  // (max_items: as the ',' checks count a map's members.)
  if (k > ctx_.limits.max_items) return {Offer::kNone, 0};
  const Offer offer = OfferTo(sink_, st_, m, k, empties, idx[i]);
  if constexpr (kWantsCounts) {
    if (offer == Offer::kTaken) opened_ += 1 + empties;
  }
  return {offer, j + 1};
}

template <Sink S>
bool JsonReader<S>::Read(std::string_view input, size_t padding) {
  input_ = input;
  end_ = input.data() + input.size();
  counted_ = opened_ = 0;
  size_t start = 0;
  while (start < input.size() && json_detail::IsSpace(input[start])) ++start;
  if (start == input.size() || (input[start] != '[' && input[start] != '{')) {
    // A scalar at the root (or nothing): read directly.
    JsonScalarReader<S> scalar(ctx_, sink_);
    return scalar.Read(input);
  }
  if (padding < simdjson::SIMDJSON_PADDING) return Malformed(0, "input without padding");
  if (!ctx_.budget.Charge(JsonParserBytes(input.size()))) {
    ctx_.BudgetExceeded(JsonParserBytes(input.size()));
    st_.Locate(0);  // refused before the first byte is read
    return false;
  }
  JsonIndex& index = ThreadJsonIndex();
  if (!index.Prepare(input.size()))
    return Malformed(0, "out of memory for the structural index", ErrorCode::kBudgetExceeded);
  if (auto e = index.impl->stage1(reinterpret_cast<const uint8_t*>(input.data()), input.size(),
                                  simdjson::stage1_mode::regular)) {
    // Malformed before anything reached the sink: read by the byte-by-byte reader into
    // the sink, so that the first error in document order is the one reported (a sink's
    // refusal before the bad byte included).
    JsonScalarReader<S> scalar(ctx_, sink_);
    if (!scalar.Read(input)) return false;
    ctx_.FailAt(e == simdjson::UTF8_ERROR ? ErrorCode::kInvalidUtf8 : ErrorCode::kSyntax,
                input.size(), std::string("malformed JSON: ") + simdjson::error_message(e));
    return false;
  }
  impl_ = index.impl.get();
  strings_ = index.strings.get();
  const uint32_t* const idx = index.impl->structural_indexes.get();
  const uint32_t n = index.impl->n_structural_indexes;
  const char* const b = input.data();
  if constexpr (kWantsCounts) {
    if (input.size() >= kCountItemsFrom && sink_.Streams()) {
      counted_ = index.CountItems(b, idx, n, ctx_.limits.max_depth);
      counts_ = index.counts.get();
      if (!ctx_.budget.Charge(uint64_t{counted_} * sizeof(uint32_t))) [[unlikely]] {
        ctx_.BudgetExceeded(uint64_t{counted_} * sizeof(uint32_t));
        st_.Locate(0);
        return false;
      }
    }
  }
  const Limits& limits = ctx_.limits;
  // Where the token after token k starts (the end of the input after the last one).
  auto next_token = [&](uint32_t k) { return k + 1 < n ? b + idx[k + 1] : end_; };
  auto extent_end = [&](uint32_t k) {
    const char* e = next_token(k);
    while (json_detail::IsSpace(e[-1])) --e;  // stops at the scalar's own first byte
    return e;
  };
  uint32_t i = 0;
  for (;;) {
    // A value is due at token i.
    if (i >= n) [[unlikely]]
      return Malformed(input.size(), "input ends where a value was due", ErrorCode::kTruncated);
    const uint64_t at = idx[i];
    const char* const v = b + at;
    switch (*v) {
      case '{':
      case '[': {
        const bool is_map = *v == '{';
        if constexpr (TakesEmpty<S>) {
          // (An empty one past max_depth goes on to Open's refusal: below, a container
          // this sink is given is never empty.)
          if (i + 1 < n && b[idx[i + 1]] == *v + 2 && st_.HasRoom()) {  // ('[' + 2 is ']')
            if constexpr (kItemStarts) sink_.ItemStart(at);
            if constexpr (kWantsCounts) ++opened_;
            if (!sink_.Empty(is_map)) [[unlikely]]
              return FailAt(at);
            i += 2;
            break;
          }
        }
        Offer offer = Offer::kNone;  // (kDeclined: ItemStart came before it)
        if constexpr (TakesDecimals<S>) {
          // (Called only when its first token may be a number and the sink may take it.)
          if (!is_map && i + 1 < n && json_detail::StartsNumber(b[idx[i + 1]]) &&
              sink_.MayTakeDecimals() && st_.HasRoom()) {
            const Offered o = OfferNumbers(idx, n, i);
            offer = o.offer;
            if (offer == Offer::kTaken) {
              i = o.next;
              goto after_value;
            }
            if (offer == Offer::kFailed) [[unlikely]]
              return FailAt(at);
          }
        }
        if constexpr (TakesMembers<S>) {
          // (The same for a map that the sink may take.)
          if (is_map && sink_.MayTakeMembers() && st_.HasRoom()) {
            const Offered o = OfferMembers(idx, n, i);
            offer = o.offer;
            if (offer == Offer::kTaken) {
              i = o.next;
              goto after_value;
            }
            if (offer == Offer::kFailed) [[unlikely]]
              return FailAt(at);
          }
        }
        if (!st_.Open(is_map, kUnknownLength, at)) [[unlikely]] {
          ctx_.located = false;
          return FailAt(at);
        }
        if constexpr (kItemStarts) {
          if (offer != Offer::kDeclined) sink_.ItemStart(at);
        }
        uint64_t count = kUnknownLength;
        if constexpr (kWantsCounts) {
          if (opened_ < counted_ && counts_[opened_] != JsonIndex::kNoCount)
            count = counts_[opened_];
          ++opened_;
        }
        if (!(is_map ? sink_.BeginMap(count) : sink_.BeginArray(count))) [[unlikely]] {
          st_.Close();  // the error's path is the container's own
          return FailAt(at);
        }
        ++i;
        if (!TakesEmpty<S> && i < n && b[idx[i]] == (is_map ? '}' : ']')) {
          const uint64_t close_at = idx[i++];
          st_.Close();
          if (!(is_map ? sink_.EndMap() : sink_.EndArray())) [[unlikely]]
            return FailAt(close_at);
          break;
        }
        if (is_map) goto key;
        continue;
      }
      case '"': {
        std::string_view s;
        bool verbatim = false;
        if (!String(v, next_token(i), &s, &verbatim)) [[unlikely]]
          return false;
        if constexpr (kItemStarts) sink_.ItemStart(at);
        if (!Text(s, verbatim)) [[unlikely]]
          return FailAt(at);
        ++i;
        break;
      }
      case 't':
        if (!Literal(v, extent_end(i), "true", 4)) [[unlikely]]
          return Malformed(at, "invalid literal");
        if constexpr (kItemStarts) sink_.ItemStart(at);
        if (!sink_.Bool(true)) [[unlikely]]
          return FailAt(at);
        ++i;
        break;
      case 'f':
        if (!Literal(v, extent_end(i), "false", 5)) [[unlikely]]
          return Malformed(at, "invalid literal");
        if constexpr (kItemStarts) sink_.ItemStart(at);
        if (!sink_.Bool(false)) [[unlikely]]
          return FailAt(at);
        ++i;
        break;
      case 'n':
        if (!Literal(v, extent_end(i), "null", 4)) [[unlikely]]
          return Malformed(at, "invalid literal");
        if constexpr (kItemStarts) sink_.ItemStart(at);
        if (!sink_.Null()) [[unlikely]]
          return FailAt(at);
        ++i;
        break;
      default:
        if (!Number(v, extent_end(i), at)) [[unlikely]]
          return false;
        ++i;
    }
  after_value:
    // A value ended: next is a separator or a close (the root's end ends the loop).
    if (st_.empty()) break;
    {
      Frame& f = st_.top();
      ++f.index;
      if (i >= n) [[unlikely]]
        return Malformed(input.size(), "input ends inside a container", ErrorCode::kTruncated);
      const char c = b[idx[i]];
      if (c == ',') {
        ++i;
        if (f.index >= (f.is_map ? limits.max_items * 2 : limits.max_items)) [[unlikely]] {
          return Malformed(i < n ? idx[i] : input.size(), "too many items",
                           ErrorCode::kTooManyItems);
        }
        if (!f.is_map) continue;
        goto key;
      }
      if (c != (f.is_map ? '}' : ']')) [[unlikely]]
        return Malformed(idx[i], "expected ',' or a close");
      const uint64_t close_at = idx[i++];
      const bool is_map = f.is_map;
      st_.Close();
      if (!(is_map ? sink_.EndMap() : sink_.EndArray())) [[unlikely]]
        return FailAt(close_at);
      goto after_value;
    }
  key:
    // A member name is due at token i, then ':' and a value.
    {
      if (i >= n || b[idx[i]] != '"') [[unlikely]]
        return Malformed(i < n ? idx[i] : input.size(), "expected a member name");
      const uint64_t key_at = idx[i];
      std::string_view key;
      bool verbatim = false;
      if (!String(b + key_at, next_token(i), &key, &verbatim)) [[unlikely]]
        return false;
      ++i;
      Frame& f = st_.top();
      if constexpr (kItemStarts) sink_.ItemStart(key_at);
      if (!Text(key, verbatim)) [[unlikely]] {
        ++f.index;  // the path names the member the sink refused
        st_.SetKey(KeyKind::kText, key, 0);
        return FailAt(key_at);
      }
      ++f.index;
      // The sink may keep its own record of the name (ClaimsKeys): the reader's check
      // takes the names it does not claim.
      KeyClaim claim = KeyClaim::kNo;
      if constexpr (ClaimsKeys<S>) {
        if (st_.claims_text()) claim = sink_.ClaimKey(key, true);
      }
      if (claim != KeyClaim::kNo) {
        if (!st_.Claimed(claim, key, key_at)) [[unlikely]]
          return Malformed(key_at, "duplicate key", ErrorCode::kDuplicateKey);
      } else if (!st_.Key(KeyKind::kText, key, 0, key_at)) [[unlikely]] {
        // A duplicate is located by the exact re-read; running out of budget is not.
        return ctx_.status.code == ErrorCode::kDuplicateKey
                   ? Malformed(key_at, "duplicate key", ErrorCode::kDuplicateKey)
                   : FailAt(key_at);
      }
      // The ':' after the key is checked once the key is given to the sink, the order in
      // which a byte-by-byte reader meets them.
      if (i >= n || b[idx[i]] != ':') [[unlikely]]
        return Malformed(i < n ? idx[i] : input.size(), "expected ':'");
      ++i;
    }
  }
  if (i != n) [[unlikely]]
    return Malformed(idx[i], "data after the end of the JSON text", ErrorCode::kTrailingData);
  return true;
}

}  // namespace rosetta::codec

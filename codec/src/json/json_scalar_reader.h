#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/reader_state.h"
#include "json/json_number.h"
#include "memory/scratch.h"
#include "rosetta/codec/sink.h"
#include "text/utf8.h"

namespace rosetta::codec {

// The events of a scanned number (EmitJsonNumber) for a sink with ItemStart: the number
// starts at `at`, and so does each item a bignum is (its tag, then the tagged byte string).
template <class S>
bool EmitJsonNumberAt(S& sink, const JsonNumber& n, uint64_t at) {
  sink.ItemStart(at);
  if (n.kind != JsonNumber::kBignum) return EmitJsonNumber(sink, n);
  if (!sink.Tag(n.negative ? kTagNegativeBignum : kTagPositiveBignum)) return false;
  sink.ItemStart(at);
  return sink.Bytes(n.bignum);
}

// A strict RFC 8259 reader that walks the input byte by byte. It reads documents whose
// root is a scalar, and it is the cold path that finds the exact offset, path and code of
// an error the SIMD reader (JsonReader) reports only as "somewhere".
template <Sink S>
class JsonScalarReader {
 public:
  JsonScalarReader(Context& ctx, S& sink) : st_(ctx), sink_(sink), scratch_(ctx), buf_(ctx) {}

  bool Read(std::string_view input);

 private:
  // The sink is told where each item starts (sink.h, ItemStart): the offset in `input`
  // of its token's first byte.
  static constexpr bool kItemStarts = requires(S & s) { s.ItemStart(uint64_t{0}); };
  [[gnu::cold]] bool Fail(ErrorCode code, uint64_t offset, std::string message) {
    return st_.FailAt(code, offset, std::move(message));
  }
  [[gnu::cold]] bool Unexpected(const char* p, const char* what) {
    if (p >= end_)
      return Fail(ErrorCode::kTruncated, p - begin_,
                  std::string("input ends where ") + what + " was due");
    return Fail(ErrorCode::kSyntax, p - begin_,
                std::string("unexpected ") + Describe(*p) + ", expected " + what);
  }
  [[gnu::cold]] bool StringTooLarge(const char* open, uint64_t size) {
    return Fail(ErrorCode::kStringTooLarge, open - begin_,
                "string of " + std::to_string(size) + " bytes passes max_string_bytes " +
                    std::to_string(st_.ctx().limits.max_string_bytes));
  }
  static std::string Describe(char c) {
    if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    unsigned char u = static_cast<unsigned char>(c);
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool ReadString(std::string_view* out, bool stable);
  bool ReadHex4(const char* at, uint32_t* v);
  bool ReadNumber();
  bool Literal(const char* word, size_t n);

  ReaderState st_;
  S& sink_;
  Scratch scratch_;
  BudgetVector<char> buf_;  // unescaped string values (keys go to scratch: they must stay valid)
  const char* begin_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
};

template <Sink S>
bool JsonScalarReader<S>::ReadHex4(const char* at, uint32_t* v) {
  if (end_ - at < 4) return Unexpected(end_, "four hex digits");
  uint32_t x = 0;
  for (int i = 0; i < 4; ++i) {
    char c = at[i];
    uint32_t d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return Unexpected(at + i, "a hex digit");
    x = x << 4 | d;
  }
  *v = x;
  return true;
}

// p_ is at the opening quote. Raw bytes are checked for UTF-8 once; escapes are decoded
// only when the string has one.
template <Sink S>
bool JsonScalarReader<S>::ReadString(std::string_view* out, bool stable) {
  const char* const open = p_++;
  const char* run = p_;
  bool escaped = false;
  const char* q = p_;
  for (;;) {
    if (q >= end_) return Fail(ErrorCode::kTruncated, open - begin_, "unterminated string");
    unsigned char c = static_cast<unsigned char>(*q);
    if (c == '"') break;
    if (c < 0x20)
      return Fail(ErrorCode::kSyntax, q - begin_, "unescaped control character in string");
    if (c == '\\') {
      escaped = true;
      ++q;
      if (q >= end_) return Fail(ErrorCode::kTruncated, open - begin_, "unterminated string");
    }
    ++q;
  }
  std::string_view raw(run, q - run);
  // max_string_bytes bounds the value, as the SIMD reader measures it: the unescaped text.
  const uint64_t max = st_.ctx().limits.max_string_bytes;
  if (!escaped && raw.size() > max) return StringTooLarge(open, raw.size());
  if (!ValidUtf8(raw)) {
    return Fail(ErrorCode::kInvalidUtf8, run + InvalidUtf8Offset(raw) - begin_,
                "string is not valid UTF-8");
  }
  p_ = q + 1;
  if (!escaped) {
    *out = raw;
    return true;
  }
  // Unescaped text is never longer than the raw text.
  char* dst;
  if (stable) {
    dst = scratch_.Allocate(raw.size());
  } else {
    dst = buf_.Reserve(raw.size()) ? &buf_[0] : nullptr;
  }
  if (dst == nullptr) {
    st_.Locate(open - begin_);  // out of budget: refused where the string starts
    return false;
  }
  char* o = dst;
  for (const char* s = run; s < q;) {
    if (*s != '\\') {
      *o++ = *s++;
      continue;
    }
    const char* esc = s;
    char e = s[1];
    s += 2;
    switch (e) {
      case '"':
        *o++ = '"';
        break;
      case '\\':
        *o++ = '\\';
        break;
      case '/':
        *o++ = '/';
        break;
      case 'b':
        *o++ = '\b';
        break;
      case 'f':
        *o++ = '\f';
        break;
      case 'n':
        *o++ = '\n';
        break;
      case 'r':
        *o++ = '\r';
        break;
      case 't':
        *o++ = '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!ReadHex4(s, &cp)) return false;
        s += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return Fail(ErrorCode::kInvalidUtf8, esc - begin_, "lone low surrogate escape");
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo = 0;
          if (q - s < 6 || s[0] != '\\' || s[1] != 'u' || !ReadHex4(s + 2, &lo) || lo < 0xDC00 ||
              lo > 0xDFFF) {
            if (!st_.ctx().status.ok()) return false;
            return Fail(ErrorCode::kInvalidUtf8, esc - begin_,
                        "high surrogate escape without its low surrogate");
          }
          s += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp < 0x80) {
          *o++ = static_cast<char>(cp);
        } else if (cp < 0x800) {
          *o++ = static_cast<char>(0xC0 | cp >> 6);
          *o++ = static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          *o++ = static_cast<char>(0xE0 | cp >> 12);
          *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          *o++ = static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          *o++ = static_cast<char>(0xF0 | cp >> 18);
          *o++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          *o++ = static_cast<char>(0x80 | (cp & 0x3F));
        }
        break;
      }
      default:
        return Fail(ErrorCode::kSyntax, esc - begin_, "invalid escape \\" + std::string(1, e));
    }
  }
  if (static_cast<uint64_t>(o - dst) > max)
    return StringTooLarge(open, static_cast<uint64_t>(o - dst));
  *out = {dst, static_cast<size_t>(o - dst)};
  return true;
}

template <Sink S>
bool JsonScalarReader<S>::ReadNumber() {
  const char* start = p_;
  size_t len = 0;
  JsonNumber n;
  switch (ScanJsonNumber(p_, end_, &len, &n, scratch_)) {
    case NumberScan::kOk:
      break;
    case NumberScan::kOverflow:
      return Fail(ErrorCode::kUnrepresentable, start - begin_,
                  "number is beyond the range of a double");
    case NumberScan::kTooLong:
      return Fail(ErrorCode::kUnrepresentable, start - begin_, "integer of more than 4300 digits");
    case NumberScan::kNoBudget:
      st_.Locate(start - begin_);
      return false;
    default:
      return Unexpected(start + len, "a digit");
  }
  p_ += len;
  bool ok;
  if constexpr (kItemStarts) {
    ok = EmitJsonNumberAt(sink_, n, start - begin_);
  } else {
    ok = EmitJsonNumber(sink_, n);
  }
  if (!ok) st_.Locate(start - begin_);
  return ok;
}

template <Sink S>
bool JsonScalarReader<S>::Literal(const char* word, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p_ + i >= end_)
      return Fail(ErrorCode::kTruncated, p_ - begin_,
                  std::string("input ends inside '") + word + "'");
    if (p_[i] != word[i])
      return Fail(ErrorCode::kSyntax, p_ + i - begin_,
                  std::string("invalid literal, expected '") + word + "'");
  }
  if constexpr (kItemStarts) sink_.ItemStart(p_ - begin_);  // its event follows
  p_ += n;
  return true;
}

template <Sink S>
bool JsonScalarReader<S>::Read(std::string_view input) {
  begin_ = p_ = input.data();
  end_ = begin_ + input.size();
  const Limits& limits = st_.ctx().limits;
  for (;;) {
    // A value is due at p_.
    SkipSpace();
    if (p_ >= end_) return Unexpected(p_, "a value");
    const char* start = p_;
    bool ok = true;
    switch (*p_) {
      case '{':
      case '[': {
        const bool is_map = *p_ == '{';
        if (!st_.Open(is_map, kUnknownLength, start - begin_)) return false;
        if constexpr (kItemStarts) sink_.ItemStart(start - begin_);
        if (!(is_map ? sink_.BeginMap(kUnknownLength) : sink_.BeginArray(kUnknownLength))) {
          st_.Close();  // the error's path is the container's own
          st_.Locate(start - begin_);
          return false;
        }
        ++p_;
        SkipSpace();
        if (p_ < end_ && *p_ == (is_map ? '}' : ']')) {
          ++p_;
          st_.Close();
          ok = is_map ? sink_.EndMap() : sink_.EndArray();
          break;
        }
        if (!is_map) continue;
        goto key;
      }
      case '"': {
        std::string_view s;
        if (!ReadString(&s, false)) return false;
        if constexpr (kItemStarts) sink_.ItemStart(start - begin_);
        ok = sink_.Text(s);
        break;
      }
      case 't':
        ok = Literal("true", 4) && (sink_.Bool(true) || (st_.Locate(start - begin_), false));
        if (!ok) return false;
        break;
      case 'f':
        ok = Literal("false", 5) && (sink_.Bool(false) || (st_.Locate(start - begin_), false));
        if (!ok) return false;
        break;
      case 'n':
        ok = Literal("null", 4) && (sink_.Null() || (st_.Locate(start - begin_), false));
        if (!ok) return false;
        break;
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
          if (!ReadNumber()) return false;
          break;
        }
        return Unexpected(p_, "a value");
    }
    if (!ok) {
      st_.Locate(start - begin_);
      return false;
    }
  after_value:
    // A value ended: the next thing is a separator, a close, or the end of the input.
    if (st_.empty()) break;
    {
      Frame& f = st_.top();
      ++f.index;
      SkipSpace();
      if (p_ >= end_) return Unexpected(p_, f.is_map ? "',' or '}'" : "',' or ']'");
      const char c = *p_;
      if (c == ',') {
        ++p_;
        // Refused where the first item past the limit starts (a member: at its name).
        if (f.index >= (f.is_map ? limits.max_items * 2 : limits.max_items)) [[unlikely]] {
          SkipSpace();
          return Fail(ErrorCode::kTooManyItems, p_ - begin_,
                      "container passes max_items " + std::to_string(limits.max_items));
        }
        if (!f.is_map) continue;
        goto key;
      }
      if (c != (f.is_map ? '}' : ']'))
        return Unexpected(p_, f.is_map ? "',' or '}'" : "',' or ']'");
      ++p_;
      const bool is_map = f.is_map;
      st_.Close();
      if (!(is_map ? sink_.EndMap() : sink_.EndArray())) {
        st_.Locate(p_ - 1 - begin_);
        return false;
      }
      goto after_value;
    }
  key:
    // A member name is due at p_, then ':' and a value.
    SkipSpace();
    if (p_ >= end_ || *p_ != '"') return Unexpected(p_, "a member name");
    {
      const char* key_start = p_;
      std::string_view key;
      if (!ReadString(&key, true)) return false;
      if constexpr (kItemStarts) sink_.ItemStart(key_start - begin_);
      if (!sink_.Text(key)) {
        ++st_.top().index;  // the path names the member the sink refused, as JsonReader's does
        st_.SetKey(KeyKind::kText, key, 0);
        st_.Locate(key_start - begin_);
        return false;
      }
      ++st_.top().index;
      if (!st_.Key(KeyKind::kText, key, 0, key_start - begin_)) {
        st_.Locate(key_start -
                   begin_);  // a duplicate is located already; running out of budget is not
        return false;
      }
      SkipSpace();
      if (p_ >= end_ || *p_ != ':') return Unexpected(p_, "':'");
      ++p_;
    }
  }
  SkipSpace();
  if (p_ != end_)
    return Fail(ErrorCode::kTrailingData, p_ - begin_, "data after the end of the JSON text");
  return true;
}

}  // namespace rosetta::codec

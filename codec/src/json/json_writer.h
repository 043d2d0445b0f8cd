#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "core/context.h"
#include "core/writer_stack.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"
#include "text/decimal.h"
#include "text/double_text.h"

namespace rosetta::codec {

// Writes JSON (RFC 8259): compact, or with kPretty (option `pretty`) indented by two
// spaces, one item a line, ": " after a key, empty containers as {} and [] (the layout of
// Python's json.dumps(indent=2)). The pretty writer is its own type, so the compact one
// carries no branch for it. Map keys: text, or integers as decimal strings; any other key
// is unrepresentable. Bytes: base64url without padding (RFC 8949 6.1) or, by option,
// standard base64. Tags 2/3 print as the exact decimal integer, 52/54 as IP text (RFC
// 9164); MessagePack ext tags are unrepresentable; with option `timestamps_as_text`, tags
// 1 and 1001 (not as map keys) print as RFC 3339 text; other tags are dropped and their
// item kept (RFC 8949 6.1). Undefined and simple values become null.
template <bool kPretty>
class BasicJsonWriter {
 public:
  BasicJsonWriter(Context& ctx, OutputBuffer& out)
      : ctx_(ctx), out_(out), stack_(ctx), time_text_(ctx.options.timestamps_as_text) {}

  // The events, Begin and Room are forced inline: as a class template, GCC 12 inlined less
  // into the JSON reader than it did for the plain class (callgrind, JSON -> JSON: +0.7%
  // instructions on citm_catalog); forced, 0.2 to 1.6% fewer than before the template.
  [[gnu::always_inline]] bool Null() { return Literal("null", 4); }
  [[gnu::always_inline]] bool Undefined() { return Literal("null", 4); }
  [[gnu::always_inline]] bool Simple(uint8_t) { return Literal("null", 4); }
  [[gnu::always_inline]] bool Bool(bool b) { return b ? Literal("true", 4) : Literal("false", 5); }
  [[gnu::always_inline]] bool Uint(uint64_t v) {
    if (special_) [[unlikely]]
      return SpecialInt(v, false);
    return Integer(v, false);
  }
  [[gnu::always_inline]] bool NegInt(uint64_t n) {
    if (special_) [[unlikely]]
      return SpecialInt(n, true);
    return Integer(n, true);
  }
  [[gnu::always_inline]] bool Double(double d) {
    if (special_) [[unlikely]]
      return SpecialDouble(d);
    return DoubleItem(d);
  }
  [[gnu::always_inline]] bool Text(std::string_view s) {
    if (special_) [[unlikely]]
      return SpecialText(s);
    return TextItem(s);
  }
  // A float (a sink capability the fixed reader uses): its own shortest text, which
  // reads back as the same float ("0.1", not the "0.10000000149011612" of the double it
  // widens to). Otherwise as Double.
  bool Float(float f) {
    if (special_ || !std::isfinite(f) || AtKey()) [[unlikely]]
      return Double(f);
    if (!Lead()) return false;
    if (!out_.Ensure(32)) [[unlikely]]
      return FloatExact(f);
    Prefix();
    char* p = out_.cursor();
    out_.Advance(WriteJsonFloat(p, f) - p);
    return true;
  }
  // JSON -> JSON (an optional sink capability the JSON reader uses when its sink has it):
  // a string without escapes, whose content the reader's first stage has checked (no
  // quote, backslash or control character: nothing to escape), and an integer as the
  // canonical text the reader checked it is. Written as they are; the result is what
  // Text() and Uint() / NegInt() would write.
  bool VerbatimText(std::string_view s) {
    if (special_) [[unlikely]]
      return Text(s);
    if (!Lead()) return false;
    if (!Room(s.size() + 3, Sep() + s.size() + 2)) return false;
    Prefix();
    out_.Put('"');
    out_.Append(s.data(), s.size());
    out_.Put('"');
    return true;
  }
  bool VerbatimInteger(std::string_view text, uint64_t v, bool negative) {
    if (special_ || AtKey()) [[unlikely]]
      return negative ? NegInt(v) : Uint(v);
    if (!Lead()) return false;
    if (!Room(text.size() + 1, Sep() + text.size())) return false;
    Prefix();
    out_.Append(text.data(), text.size());
    return true;
  }
  // A decimal the JSON reader has checked is the text DoubleItem would write for it
  // (json_reader.h IsShortestFixed): written as it is, without reading it as a double.
  bool VerbatimDecimal(std::string_view text) {
    if (special_ || AtKey()) [[unlikely]]
      return DecimalAsDouble(text);
    if (!Lead()) return false;
    if (!Room(text.size() + 1, Sep() + text.size())) return false;
    Prefix();
    out_.Append(text.data(), text.size());
    return true;
  }
  bool Bytes(std::string_view s) {
    if (special_) [[unlikely]]
      return SpecialBytes(s);
    if (AtKey()) [[unlikely]]
      return BadKey("byte string");
    return Base64(s);
  }
  [[gnu::always_inline]] bool BeginArray(uint64_t) {
    if (special_) [[unlikely]]
      return SpecialArray();
    return Begin('[', false);
  }
  [[gnu::always_inline]] bool BeginMap(uint64_t) {
    if (special_) [[unlikely]]
      return SpecialMap();
    return Begin('{', true);
  }
  // special_ is set in a container only while a capture (an IP prefix, a tag-1001 map)
  // reads it.
  [[gnu::always_inline]] bool EndArray() {
    if (special_) [[unlikely]]
      return SpecialEndArray();
    return End(']');
  }
  [[gnu::always_inline]] bool EndMap() {
    if (special_) [[unlikely]]
      return SpecialEndMap();
    return End('}');
  }
  bool Tag(uint64_t tag) {
    if (special_) [[unlikely]]
      return SpecialTag(tag);
    return TagItem(tag);
  }

 private:
  // Room for n bytes. Hot paths ask for a bound; `exact`, what will really be written, is
  // tried before refusing, so an output of exactly max_output_bytes fits.
  [[gnu::always_inline]] bool Room(size_t n, size_t exact) {
    if (out_.Ensure(n)) [[likely]]
      return true;
    return RoomExact(exact);
  }
  [[gnu::always_inline]] bool Room(size_t n) { return Room(n, n); }
  [[gnu::cold]] bool RoomExact(size_t exact);
  // Double() where the 32-byte bound does not fit: the text is made aside (the double
  // writer uses up to 24 bytes of scratch) and copied in if its exact size fits.
  [[gnu::cold]] bool DoubleExact(double d);
  // VerbatimDecimal where the decimal is not written as it is: read as a double.
  [[gnu::cold]] bool DecimalAsDouble(std::string_view text);
  [[gnu::cold]] bool FloatExact(float f);
  [[gnu::cold]] bool IntegerRoom(uint64_t v, bool negative, bool key);
  [[gnu::cold]] bool OutputFull();
  // The separator Prefix() will write: 0 or 1 byte (pretty: Lead() has written it).
  size_t Sep() {
    if constexpr (kPretty) return 0;
    return stack_.top().count ? 1 : 0;
  }
  [[gnu::cold]] bool Unrepresentable(std::string message) {
    return ctx_.Fail(ErrorCode::kUnrepresentable, std::move(message));
  }
  [[gnu::cold]] bool BadKey(const char* type);
  [[gnu::cold]] bool NonFinite(double d);

  bool AtKey() {
    const WriterLevel& l = stack_.top();
    return l.is_map && !(l.count & 1);
  }
  // Separator before an item; needs 1 byte of room.
  [[gnu::always_inline]] void Prefix() {
    WriterLevel& l = stack_.top();
    if constexpr (!kPretty) {
      if (l.count) out_.Put(l.is_map && (l.count & 1) ? ':' : ',');
    }
    ++l.count;
  }
  // Pretty: the separator, line break and indent before an item, with room of their own,
  // once the item is known to be written (then its Room() and Prefix()). Compact: nothing.
  [[gnu::always_inline]] bool Lead() {
    if constexpr (kPretty) return PrettyLead();
    return true;
  }
  bool PrettyLead();
  bool Literal(const char* text, size_t n) {
    if (special_) [[unlikely]]
      return SpecialLiteral(text, n);
    return LiteralItem(text, n);
  }
  bool LiteralItem(const char* text, size_t n) {
    if (AtKey()) [[unlikely]]
      return BadKey(text);
    if (!Lead()) return false;
    if (!Room(n + 1, Sep() + n)) return false;
    Prefix();
    out_.Append(text, n);
    return true;
  }
  bool Integer(uint64_t v, bool negative) {
    const bool key = AtKey();
    if (!Lead()) return false;
    if (!out_.Ensure(24) && !IntegerRoom(v, negative, key)) [[unlikely]]
      return false;
    Prefix();
    if (key) out_.Put('"');
    if (negative) {
      out_.Put('-');
      if (v == ~uint64_t{0}) [[unlikely]] {
        out_.Append("18446744073709551616", 20);
      } else {
        out_.Advance(WriteDecimal(out_.cursor(), v + 1) - out_.cursor());
      }
    } else {
      out_.Advance(WriteDecimal(out_.cursor(), v) - out_.cursor());
    }
    if (key) out_.Put('"');
    return true;
  }
  bool DoubleItem(double d) {
    if (AtKey()) [[unlikely]]
      return BadKey("float");
    if (!std::isfinite(d)) [[unlikely]]
      return NonFinite(d);
    if (!Lead()) return false;
    if (!out_.Ensure(32)) [[unlikely]]
      return DoubleExact(d);
    Prefix();
    char* p = out_.cursor();
    out_.Advance(WriteJsonDouble(p, d) - p);
    return true;
  }
  bool TextItem(std::string_view s) {
    if (!Lead()) return false;
    if (!Room(s.size() + 3, Sep() + s.size() + 2)) return false;
    Prefix();
    return String(s);
  }
  bool String(std::string_view s);  // after Room(s.size() + 2)
  bool Base64(std::string_view s);
  [[gnu::always_inline]] bool Begin(char open, bool is_map) {
    if (AtKey()) [[unlikely]]
      return BadKey(is_map ? "map" : "array");
    if (!Lead()) return false;
    if (!Room(2, Sep() + 1)) return false;
    Prefix();
    if (!stack_.Push(WriterLevel{0, 0, is_map, false})) return false;
    out_.Put(open);
    return true;
  }
  bool End(char close) {
    if constexpr (kPretty) {
      if (stack_.Pop().count) return PrettyEnd(close);
    } else {
      stack_.Pop();
    }
    if (!Room(1)) return false;
    out_.Put(close);
    return true;
  }
  bool PrettyEnd(char close);
  bool TagItem(uint64_t tag) {
    if (tag == kTagPositiveBignum || tag == kTagNegativeBignum || tag == kTagIpv4 ||
        tag == kTagIpv6 || (tag >= kTagMsgpackExtBase && tag <= kTagMsgpackExtBase + 0xff) ||
        (time_text_ && (tag == kTagEpochTime || tag == kTagExtendedTime) && !AtKey())) {
      pending_tag_ = tag;
      special_ = true;
    }
    return true;
  }

  // Tagged items (cold: only after a tag this writer gives meaning to).
  bool SpecialOther();
  bool SpecialLiteral(const char* text, size_t n);
  bool SpecialInt(uint64_t v, bool negative);
  bool SpecialDouble(double d);
  bool SpecialText(std::string_view s);
  bool SpecialBytes(std::string_view s);
  bool SpecialArray();
  bool SpecialMap();
  bool SpecialEndArray();
  bool SpecialEndMap();
  bool SpecialTag(uint64_t tag);
  bool EndIpPrefix();
  bool Bignum(std::string_view magnitude, bool negative);
  bool IpText(bool v6, std::string_view addr, int prefix);

  // Option timestamps_as_text: the item of tag 1 (an integer or a float), or tag 1001's
  // map read whole (RFC 9581 section 3) before its text is written. kTimeOther: any
  // event but a number, a text, a container's start or end, or a tag.
  enum TimeEvent {
    kTimeUint,
    kTimeNegInt,
    kTimeDouble,
    kTimeText,
    kTimeOther,
    kTimeBeginArray,
    kTimeBeginMap,
    kTimeEnd,
    kTimeTag
  };
  // With special_: the item due is a timestamp's (only TagItem sets these tags pending).
  bool InTime() const { return pending_tag_ == kTagEpochTime || pending_tag_ == kTagExtendedTime; }
  bool Time(TimeEvent event, uint64_t v = 0, double d = 0);
  bool TimeMapKey(TimeEvent event, uint64_t v);
  bool TimeMapValue(TimeEvent event, uint64_t v, double d);
  bool EndTimeMap();
  // seconds + fraction / 10^digits as RFC 3339 text, in the tagged item's place.
  bool TimeText(int64_t seconds, uint64_t fraction, int digits);

  Context& ctx_;
  OutputBuffer& out_;
  WriterStack stack_;
  const bool time_text_;
  bool special_ = false;
  uint64_t pending_tag_ = 0;
  // An RFC 9164 prefix [length, address] being captured.
  size_t ip_depth_ = 0;
  bool ip_v6_ = false;
  int ip_field_ = 0;  // 0: length due, 1: address due, 2: complete
  uint64_t ip_prefix_ = 0;
  uint8_t ip_addr_[16] = {};
  size_t ip_addr_size_ = 0;
  // A tag-1001 map being read (option timestamps_as_text).
  struct TimeMap {
    static constexpr int64_t kKeyDue = 0;  // not a key this writer reads a value of
    static constexpr int64_t kSkip = 2;    // an elective key's value, skipped
    bool open = false;
    int64_t value_of = kKeyDue;  // the key whose value is due: 1, -1, -3 .. -18, kSkip
    uint64_t skip_depth = 0;     // containers open in a skipped value
    bool has_seconds = false;
    bool float_seconds = false;
    bool seconds_in_range = true;  // an integer within int64
    int64_t seconds = 0;
    double seconds_double = 0;
    int digits = 0;  // of the fraction key (-3: 3 ... -18: 18); 0: none
    uint64_t fraction = 0;
  } time_;
};

using JsonWriter = BasicJsonWriter<false>;
using PrettyJsonWriter = BasicJsonWriter<true>;

template <class W>
inline constexpr bool kIsJsonWriter =
    std::is_same_v<W, JsonWriter> || std::is_same_v<W, PrettyJsonWriter>;

}  // namespace rosetta::codec

#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

namespace rosetta::codec {

// Count given to BeginArray/BeginMap when the input did not say (JSON, CBOR indefinite).
inline constexpr uint64_t kUnknownLength = ~uint64_t{0};

// The one event interface between every reader and every writer (DESIGN.md "The codec
// core"). Readers are templates on their sink, so each (reader, writer) pair compiles to
// direct calls. Every event returns false to stop; the sink has then recorded the error
// in the request's Context and the reader adds the offset and path.
//
// Integers cover CBOR's whole range: Uint(n) is n, NegInt(n) is -1 - n. Map keys are
// ordinary items: BeginMap, then key, value, key, value, ..., EndMap. A Tag applies to
// the one item that follows it.
template <class S>
concept Sink = requires(S s, bool b, uint8_t u8, uint64_t u, double d, std::string_view v) {
  { s.Null() } -> std::same_as<bool>;
  { s.Undefined() } -> std::same_as<bool>;
  { s.Bool(b) } -> std::same_as<bool>;
  { s.Simple(u8) } -> std::same_as<bool>;
  { s.Uint(u) } -> std::same_as<bool>;
  { s.NegInt(u) } -> std::same_as<bool>;
  { s.Double(d) } -> std::same_as<bool>;
  { s.Text(v) } -> std::same_as<bool>;
  { s.Bytes(v) } -> std::same_as<bool>;
  { s.BeginArray(u) } -> std::same_as<bool>;
  { s.EndArray() } -> std::same_as<bool>;
  { s.BeginMap(u) } -> std::same_as<bool>;
  { s.EndMap() } -> std::same_as<bool>;
  { s.Tag(u) } -> std::same_as<bool>;
};

// A sink that takes an empty array or map as one event, Empty(is_map), in place of
// BeginArray(0) and EndArray() (BeginMap, EndMap): the schema validator, which then opens
// no frame for it when its subschema passes it as it is. The readers give it only an
// untagged container that says it is empty (JSON `[]` and `{}`, a CBOR or MessagePack
// head of count 0), at a depth where opening it would be allowed.
template <class S>
concept TakesEmpty = requires(S& s, bool b) {
  { s.Empty(b) } -> std::same_as<bool>;
};

// A sink that takes a short array of binary doubles as one event, TakeDoubles(v, n, &ok),
// in place of BeginArray(n), n Double events and EndArray(): the schema validator, when
// the array's subschema passes it at once (GeoJSON's positions). True when it took the
// array (*ok: the event's result); false, with nothing changed, when it declines: the
// reader then gives the array event by event. The CBOR and MessagePack readers offer it
// an untagged array of 1 to kMaxTakenDoubles items of definite length, each a 64-bit
// float, that is no map key, at a depth where opening it would be allowed (a
// deterministic CBOR reader, which checks each float's shortest form, offers none).
inline constexpr size_t kMaxTakenDoubles = 4;
template <class S>
concept TakesDoubles = requires(S& s, const double* v, size_t n, bool* ok) {
  { s.TakeDoubles(v, n, ok) } -> std::same_as<bool>;
};

// A number as the JSON reader reads it before any conversion: (negative ? -1 : 1) *
// digits / 10^fraction_digits, of at most 19 digits (digits < 10^19); fraction_digits 0
// for an integer (JSON text with no '.'), else at least 1.
struct ShortDecimal {
  uint64_t digits;
  uint32_t fraction_digits;
  bool negative;
};
// The same for JSON: a sink that takes a short array of numbers as one event,
// TakeDecimals(v, n, &ok), in place of BeginArray, n number events and EndArray(), true
// when taken (*ok its result), false with nothing changed when declined. The JSON reader
// offers an array of 1 to kMaxTakenDoubles items, each an integer or a decimal without
// exponent of at most 19 digits (the shapes it reads in one pass; with AVX2, a decimal's
// integer and fraction digits at most 16 each), at a depth where opening it would be
// allowed.
// MayTakeDecimals(), inlined, says whether the array that comes next would be taken if
// its items pass: the reader reads the digits only then.
template <class S>
concept TakesDecimals = requires(S& s, const ShortDecimal* v, size_t n, bool* ok) {
  { s.TakeDecimals(v, n, ok) } -> std::same_as<bool>;
  { s.MayTakeDecimals() } -> std::same_as<bool>;
};

// A member of a short map as a reader reads it: its name (a text string), then a value
// that is an integer or a JSON decimal of ShortDecimal's shape (kNumber; an integer has
// fraction_digits 0), a CBOR or MessagePack float (kDouble), a text string, null, true,
// false, an empty array or an empty map (names and strings: views of the input, JSON's
// without escapes).
struct ShortMember {
  enum Kind : uint8_t { kNumber, kDouble, kText, kNull, kTrue, kFalse, kEmptyArray, kEmptyMap };
  std::string_view key;
  std::string_view text;  // kText
  union {
    ShortDecimal number;  // kNumber
    double real;          // kDouble
  };
  Kind kind;
};
// The same for maps: a sink that takes a short map of such members as one event,
// TakeMembers(v, n, &ok), in place of BeginMap, each name and value (an empty container
// as its Empty, or its Begin and End) and EndMap(): true when taken (*ok its result),
// false with nothing changed when declined. The JSON, CBOR and MessagePack readers offer
// a map of 1 to kMaxTakenMembers members, each of those shapes, when MayTakeMembers()
// (inlined) says the map that comes next may be taken: untagged, of definite length, no
// map key, at a depth where opening the map (and a container of its members) would be
// allowed (a deterministic CBOR reader, which checks the order of names, offers none). A
// sink takes a map only when its verdict is that of the events, names repeated included.
inline constexpr size_t kMaxTakenMembers = 32;
template <class S>
concept TakesMembers = requires(S& s, const ShortMember* v, size_t n, bool* ok) {
  { s.TakeMembers(v, n, ok) } -> std::same_as<bool>;
  { s.MayTakeMembers() } -> std::same_as<bool>;
};

// CBOR tags with a meaning in the mapping (docs/formats.md).
inline constexpr uint64_t kTagEpochTime = 1;       // RFC 8949 3.4.2
inline constexpr uint64_t kTagPositiveBignum = 2;  // RFC 8949 3.4.3
inline constexpr uint64_t kTagNegativeBignum = 3;
inline constexpr uint64_t kTagIpv4 = 52;  // RFC 9164
inline constexpr uint64_t kTagIpv6 = 54;
inline constexpr uint64_t kTagExtendedTime = 1001;  // RFC 9581: {1: seconds, -9: nanoseconds}
// MessagePack ext type T (-128..127, other than the timestamp -1) travels through CBOR as
// tag kTagMsgpackExtBase + (T & 0xff) over a byte string ("mp" in the high bytes; a tag in
// the first-come-first-served range, RFC 8949 9.2).
inline constexpr uint64_t kTagMsgpackExtBase = 0x6D700000;

// A sink that accepts every event: validation is a reader driving it.
struct NullSink {
  bool Null() { return true; }
  bool Undefined() { return true; }
  bool Bool(bool) { return true; }
  bool Simple(uint8_t) { return true; }
  bool Uint(uint64_t) { return true; }
  bool NegInt(uint64_t) { return true; }
  bool Double(double) { return true; }
  bool Text(std::string_view) { return true; }
  bool Bytes(std::string_view) { return true; }
  bool BeginArray(uint64_t) { return true; }
  bool EndArray() { return true; }
  bool BeginMap(uint64_t) { return true; }
  bool EndMap() { return true; }
  bool Tag(uint64_t) { return true; }
};
static_assert(Sink<NullSink>);

}  // namespace rosetta::codec

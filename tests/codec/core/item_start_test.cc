// The optional sink capability ItemStart(offset) (sink.h): every reader tells a sink that
// has it where each data item starts, immediately before the event that begins the item.
// A recording sink logs each event with the offset it was told; the expected offsets are
// written by hand (counted from the documents below, never copied from a reader's output).
//
// The log: "OFFSET:EVENT" for an event that begins an item, "]" / "}" for the ends (which
// are told nothing). "?:EVENT" would be an item event with no ItemStart before it, "!twice"
// two ItemStarts with no event between them, "!dangling" one left over at the end.
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "cbor/cbor_reader.h"
#include "codec_test_support.h"
#include "core/context.h"
#include "json/json_reader.h"
#include "json/json_scalar_reader.h"
#include "msgpack/msgpack_reader.h"

namespace rosetta::codec::testing {
namespace {

class Recorder {
 public:
  void ItemStart(uint64_t offset) {
    if (pending_) log_ += "!twice ";
    pending_ = offset;
  }
  bool Null() { return Item("null"); }
  bool Undefined() { return Item("undefined"); }
  bool Bool(bool b) { return Item(b ? "true" : "false"); }
  bool Simple(uint8_t v) { return Item("simple(", std::to_string(v), ")"); }
  bool Uint(uint64_t v) { return Item(std::to_string(v)); }
  bool NegInt(uint64_t v) {
    return v == ~uint64_t{0} ? Item("-18446744073709551616") : Item("-", std::to_string(v + 1));
  }
  bool Double(double d) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d);  // the shortest text that reads back
    return Item("d", std::string_view(buf, r.ptr - buf));
  }
  bool Text(std::string_view s) { return Item("\"", s, "\""); }
  bool Bytes(std::string_view s) { return Item("h'", ToHex(s), "'"); }
  bool BeginArray(uint64_t n) { return Item("[", Count(n)); }
  bool EndArray() { return End("]"); }
  bool BeginMap(uint64_t n) { return Item("{", Count(n)); }
  bool EndMap() { return End("}"); }
  bool Tag(uint64_t t) {
    if (t >= kTagMsgpackExtBase && t <= kTagMsgpackExtBase + 0xff)
      return Item("t(mp+", std::to_string(t - kTagMsgpackExtBase), ")");
    return Item("t(", std::to_string(t), ")");
  }

  std::string log() const {
    std::string out = log_;
    if (pending_) out += "!dangling ";
    if (!out.empty()) out.pop_back();
    return out;
  }

 protected:
  static std::string Count(uint64_t n) { return n == kUnknownLength ? "_" : std::to_string(n); }
  bool Item(std::string_view a, std::string_view b = {}, std::string_view c = {}) {
    log_ += pending_ ? std::to_string(*pending_) : "?";
    log_ += ':';
    log_.append(a).append(b).append(c).append(" ");
    pending_.reset();
    return true;
  }
  bool End(std::string_view event) {
    if (pending_) log_ += "!dangling ";
    pending_.reset();
    log_.append(event).append(" ");
    return true;
  }

  std::string log_;
  std::optional<uint64_t> pending_;
};
static_assert(Sink<Recorder>);

// With the JSON writer's capability too (json_reader.h: strings without escapes and short
// integers come as their checked text): the same log, as Text / Uint / NegInt would give.
class VerbatimRecorder : public Recorder {
 public:
  bool VerbatimText(std::string_view s) {
    ++verbatim;
    return Text(s);
  }
  bool VerbatimInteger(std::string_view, uint64_t v, bool negative) {
    ++verbatim;
    return negative ? NegInt(v) : Uint(v);
  }
  bool VerbatimDecimal(std::string_view text) {
    ++verbatim;
    return Double(std::strtod(std::string(text).c_str(), nullptr));
  }
  int verbatim = 0;
};

// The log of reading `json` with JsonReader (indexed) or JsonScalarReader. The input is
// followed by kInputPadding readable bytes, as JsonReader needs.
template <class R = Recorder>
std::string ReadJson(std::string_view json, bool indexed, int* verbatim = nullptr) {
  const Limits limits;
  const MappingOptions options;
  Context ctx(limits, options);
  R sink;
  std::string padded(json);
  padded.append(kInputPadding, ' ');
  const std::string_view input(padded.data(), json.size());
  const bool ok = indexed ? JsonReader<R>(ctx, sink).Read(input, kInputPadding)
                          : JsonScalarReader<R>(ctx, sink).Read(input);
  EXPECT_TRUE(ok) << ctx.status.message << " at " << ctx.status.offset;
  if constexpr (std::is_same_v<R, VerbatimRecorder>) *verbatim = sink.verbatim;
  return sink.log();
}

// Both JSON readers, with and without the verbatim capability: one log.
void ExpectJson(std::string_view json, std::string_view expected) {
  SCOPED_TRACE(std::string(json));
  EXPECT_EQ(ReadJson(json, /*indexed=*/true), expected) << "JsonReader";
  EXPECT_EQ(ReadJson(json, /*indexed=*/false), expected) << "JsonScalarReader";
  int verbatim = 0;
  EXPECT_EQ(ReadJson<VerbatimRecorder>(json, /*indexed=*/true, &verbatim), expected)
      << "JsonReader, verbatim";
  EXPECT_EQ(ReadJson<VerbatimRecorder>(json, /*indexed=*/false, &verbatim), expected)
      << "JsonScalarReader, verbatim";
}

std::string ReadCbor(std::string_view hex, uint64_t* item_end = nullptr) {
  const Limits limits;
  const MappingOptions options;
  Context ctx(limits, options);
  ctx.item_end = item_end;
  Recorder sink;
  EXPECT_TRUE(CborReader<Recorder>(ctx, sink).Read(Hex(hex)))
      << ctx.status.message << " at " << ctx.status.offset;
  return sink.log();
}

std::string ReadMsgpack(std::string_view hex, uint64_t* item_end = nullptr) {
  const Limits limits;
  const MappingOptions options;
  Context ctx(limits, options);
  ctx.item_end = item_end;
  Recorder sink;
  EXPECT_TRUE(MsgpackReader<Recorder>(ctx, sink).Read(Hex(hex)))
      << ctx.status.message << " at " << ctx.status.offset;
  return sink.log();
}

// ---- JSON: the first byte of each token ----

TEST(ItemStartJson, NestedDocumentWithWhitespaceEscapesAndEveryNumberShape) {
  // Numbers: 1 and 2 digits, 8 digits (read eight at once), 19 digits (the longest exact
  // in the fast path), 20 digits (a uint64 read by ScanJsonNumber), bignums of either sign
  // (a tag, then its byte string: both start at the number), 0, -0, 0.5 (an integer part
  // of 0), an exponent with a sign, a capital E, a plain decimal, -0.0.
  const std::string_view json =
      " {\"a\": [1, -2, 12345678, 1234567890123456789, 12345678901234567890, "
      "123456789012345678901,\n"
      "  -123456789012345678901, 0, -0, 0.5, -1.25e-3, 3E2, 1.5, -0.0],\n"
      " \"b\\\"q\" : {\"c\": true, \"d\" :false, \"e\": null, \"f\": [ ], \"g\": {}},\n"
      " \"h\": \"x\\u00e9\\\\y\", \"\": \"\"} ";
  ExpectJson(json,
             "1:{_ 2:\"a\" 7:[_ 8:1 11:-2 15:12345678 25:1234567890123456789 "
             "46:12345678901234567890 68:t(2) 68:h'06b14e9f812f366c35' "
             "93:t(3) 93:h'06b14e9f812f366c34' 117:0 120:0 124:d0.5 129:d-0.00125 139:d300 "
             "144:d1.5 149:d-0 ] "
             "157:\"b\"q\" 166:{_ 167:\"c\" 172:true 178:\"d\" 183:false 190:\"e\" 195:null "
             "201:\"f\" 206:[_ ] 211:\"g\" 216:{_ } } "
             "222:\"h\" 227:\"x\xC3\xA9\\y\" 241:\"\" 245:\"\" }");
}

TEST(ItemStartJson, VerbatimEventsAreToldToo) {
  int verbatim = 0;
  EXPECT_EQ(ReadJson<VerbatimRecorder>("[\"ab\", -17, {\"k\": 5}, 2.5]", true, &verbatim),
            "0:[_ 1:\"ab\" 7:-17 12:{_ 13:\"k\" 18:5 } 22:d2.5 ]");
  EXPECT_EQ(verbatim, 5);  // "ab", -17, "k", 5, 2.5
}

TEST(ItemStartJson, ArraysAndMapsAtEveryDepth) {
  ExpectJson("[[[]],{\"a\":{\"b\":[{}]}},\t\r\n[ 0 ]]",
             "0:[_ 1:[_ 2:[_ ] ] 6:{_ 7:\"a\" 11:{_ 12:\"b\" 16:[_ 17:{_ } ] } } "
             "26:[_ 28:0 ] ]");
}

TEST(ItemStartJson, RootScalars) {
  ExpectJson("  \"s\\n\" ", "2:\"s\n\"");
  ExpectJson("\"\"", "0:\"\"");
  ExpectJson(" 42", "1:42");
  ExpectJson("\t-1.5e2\n", "1:d-150");
  ExpectJson("-7", "0:-7");
  ExpectJson("true", "0:true");
  ExpectJson("\n\nfalse ", "2:false");
  ExpectJson(" null", "1:null");
  ExpectJson("   123456789012345678901", "3:t(2) 3:h'06b14e9f812f366c35'");
  ExpectJson("18446744073709551615", "0:18446744073709551615");
}

// ---- CBOR: the initial byte of each item; a tag's content after the tag ----

TEST(ItemStartCbor, DefiniteContainersKeysAndEveryScalar) {
  // {"a": [1, 24, 256, 65536, 4294967296, -1, -500],
  //  h'01': {1: null, -2: [false, true, undefined, simple(0), simple(32), 1.5, 100000.0, 1.1]},
  //  "e": []}
  EXPECT_EQ(ReadCbor("a3 61 61 87 01 18 18 19 01 00 1a 00 01 00 00 1b 00 00 00 01 00 00 00 00 "
                     "20 39 01 f3 41 01 a2 01 f6 21 88 f4 f5 f7 e0 f8 20 f9 3e 00 fa 47 c3 50 00 "
                     "fb 3f f1 99 99 99 99 99 9a 61 65 80"),
            "0:{3 1:\"a\" 3:[7 4:1 5:24 7:256 10:65536 15:4294967296 24:-1 25:-500 ] "
            "28:h'01' 30:{2 31:1 32:null 33:-2 34:[8 35:false 36:true 37:undefined "
            "38:simple(0) 39:simple(32) 41:d1.5 44:d1e+05 49:d1.1 ] } "
            "58:\"e\" 60:[0 ] }");
}

TEST(ItemStartCbor, IndefiniteContainersAndStringsStartAtTheirInitialByte) {
  // {_ "a": [_ 1, (_ "b" "c"), (_ h'0102' h'03')], "b": (_ ), "c": [_ ], (_ "x"): {_ }}
  EXPECT_EQ(ReadCbor("bf 61 61 9f 01 7f 61 62 61 63 ff 5f 42 01 02 41 03 ff ff "
                     "61 62 5f ff 61 63 9f ff 7f 61 78 ff bf ff ff"),
            "0:{_ 1:\"a\" 3:[_ 4:1 5:\"bc\" 11:h'010203' ] 19:\"b\" 21:h'' "
            "23:\"c\" 25:[_ ] 27:\"x\" 31:{_ } }");
}

TEST(ItemStartCbor, ATagAndItsContentAreEachToldTheirStart) {
  // {1(1): 0("x"), 32(2(h'01')): 6([_ 1]), "t": 33((_ "a"))}: a tagged item starts at its
  // first tag (the first ItemStart); each tag and the content after it are told their own.
  EXPECT_EQ(ReadCbor("a3 c1 01 c0 61 78 d8 20 c2 41 01 c6 9f 01 ff 61 74 d8 21 7f 61 61 ff"),
            "0:{3 1:t(1) 2:1 3:t(0) 4:\"x\" 6:t(32) 8:t(2) 9:h'01' 11:t(6) 12:[_ 13:1 ] "
            "15:\"t\" 17:t(33) 19:\"a\" }");
  EXPECT_EQ(ReadCbor("d9 03 e9 a2 01 00 28 01"),  // 1001({1: 0, -9: 1}) at the root
            "0:t(1001) 3:{2 4:1 5:0 6:-9 7:1 }");
}

TEST(ItemStartCbor, ARecordOfASequenceCountsFromTheBufferItWasGiven) {
  // A record of a sequence (item_end set): the reader stops after the first item, 03 being
  // the next record's; offsets are in the buffer the reader was given (its caller adds
  // where that buffer starts in the stream).
  uint64_t item_end = 0;
  EXPECT_EQ(ReadCbor("82 01 c1 02 03", &item_end), "0:[2 1:1 2:t(1) 3:2 ]");
  EXPECT_EQ(item_end, 4u);
}

// ---- MessagePack: the initial byte of each item; what an ext becomes, at the ext ----

TEST(ItemStartMsgpack, EveryKindOfItem) {
  const std::string hex =
      "dc 00 27 "  // array 16 of 39
      "7f e0 80 90 a1 61 c0 c2 c3 "
      "c4 01 ff c5 00 01 aa c6 00 00 00 01 bb "                                      // bin 8/16/32
      "c7 01 05 cc c8 00 01 fb dd c9 00 00 00 01 07 ee "                             // ext 8/16/32
      "d4 01 11 d5 02 11 22 "                                                        // fixext 1, 2
      "d6 ff 00 00 00 01 "                                                           // timestamp 32
      "d7 ff 00 00 00 04 00 00 00 02 "                                               // timestamp 64
      "d8 03 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f "                       // fixext 16
      "c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff "                                // timestamp 96
      "ca 3f c0 00 00 cb 3f f1 99 99 99 99 99 9a "                                   // float 32/64
      "cc ff cd 01 00 ce 00 01 00 00 cf 00 00 00 01 00 00 00 00 "                    // uint 8..64
      "d0 80 d1 ff 00 d2 ff ff ff ff d3 00 00 00 00 00 00 00 05 "                    // int 8..64
      "d9 01 62 da 00 01 63 db 00 00 00 01 64 "                                      // str 8/16/32
      "dc 00 01 01 dd 00 00 00 01 02 de 00 01 a1 6b 03 df 00 00 00 01 d4 01 11 c0 "  // 16/32
      "81 d6 ff 00 00 00 05 c3 "                                                     // {ts: true}
      "82 01 02 a1 78 04";                                                           // fixmap
  EXPECT_EQ(ReadMsgpack(hex),
            "0:[39 3:127 4:-32 5:{0 } 6:[0 ] 7:\"a\" 9:null 10:false 11:true "
            "12:h'ff' 15:h'aa' 19:h'bb' "
            "25:t(mp+5) 25:h'cc' 29:t(mp+251) 29:h'dd' 34:t(mp+7) 34:h'ee' "
            "41:t(mp+1) 41:h'11' 44:t(mp+2) 44:h'1122' "
            "48:t(1) 48:1 "
            "54:t(1001) 54:{2 54:1 54:2 54:-9 54:1 } "
            "64:t(mp+3) 64:h'000102030405060708090a0b0c0d0e0f' "
            "82:t(1) 82:-1 "
            "97:d1.5 102:d1.1 "
            "111:255 113:256 116:65536 121:4294967296 "
            "130:-128 132:-256 135:-1 140:5 "
            "149:\"b\" 152:\"c\" 156:\"d\" "
            "162:[1 165:1 ] 166:[1 171:2 ] 172:{1 175:\"k\" 177:3 } "
            "178:{1 183:t(mp+1) 183:h'11' 186:null } "
            "187:{1 188:t(1) 188:5 194:true } "
            "195:{2 196:1 197:2 198:\"x\" 200:4 } ]");
}

TEST(ItemStartMsgpack, ARecordOfASequenceCountsFromTheBufferItWasGiven) {
  uint64_t item_end = 0;
  EXPECT_EQ(ReadMsgpack("92 01 a1 61 c0", &item_end), "0:[2 1:1 2:\"a\" ]");
  EXPECT_EQ(item_end, 4u);
}

// ---- TakeDoubles (sink.h): a short array of 64-bit floats as one event ----

// Takes an offered array as "D(...)" unless an item is negative (declined: the reader
// then gives it event by event), told its start as any item.
class DoublesRecorder : public Recorder {
 public:
  bool TakeDoubles(const double* v, size_t n, bool* ok) {
    std::string items;
    for (size_t i = 0; i < n; ++i) {
      if (v[i] < 0) return false;
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, v[i]);
      if (i > 0) items += ',';
      items.append(buf, r.ptr - buf);
    }
    *ok = Item("D(", items, ")");
    return true;
  }
};
static_assert(TakesDoubles<DoublesRecorder>);

template <template <class, bool...> class Reader>
std::string ReadDoubles(std::string_view hex, uint32_t max_depth = 64) {
  Limits limits;
  limits.max_depth = max_depth;
  const MappingOptions options;
  Context ctx(limits, options);
  DoublesRecorder sink;
  if (!Reader<DoublesRecorder>(ctx, sink).Read(Hex(hex))) return "error: " + ctx.status.message;
  return sink.log();
}

// 1.5, 2.5, 3.5 and -1 as CBOR and MessagePack float64 items.
#define F15 "3f f8 00 00 00 00 00 00"
#define F25 "40 04 00 00 00 00 00 00"
#define F35 "40 0c 00 00 00 00 00 00"
#define FM1 "bf f0 00 00 00 00 00 00"

TEST(TakeDoublesCbor, ShortArraysOfFloat64AreOneEvent) {
  EXPECT_EQ(ReadDoubles<CborReader>("82 fb " F15 " fb " F25), "0:D(1.5,2.5)");
  // [[1.5, 2.5], [3.5], {"k": [1.5]}]
  EXPECT_EQ(
      ReadDoubles<CborReader>("83 82 fb " F15 " fb " F25 " 81 fb " F35 " a1 61 6b 81 fb " F15),
      "0:[3 1:D(1.5,2.5) 20:D(3.5) 30:{1 31:\"k\" 33:D(1.5) } ]");
  // Four items are offered; five are not.
  EXPECT_EQ(ReadDoubles<CborReader>("84 fb " F15 " fb " F15 " fb " F15 " fb " F15),
            "0:D(1.5,1.5,1.5,1.5)");
  EXPECT_EQ(ReadDoubles<CborReader>("85 fb " F15 " fb " F15 " fb " F15 " fb " F15 " fb " F15),
            "0:[5 1:d1.5 10:d1.5 19:d1.5 28:d1.5 37:d1.5 ]");
}

TEST(TakeDoublesCbor, OtherArraysComeEventByEvent) {
  // Declined by the sink; an item that is a half float, or an integer; an indefinite
  // length; a tag on the array; an array as a map key; an empty array.
  EXPECT_EQ(ReadDoubles<CborReader>("82 fb " F15 " fb " FM1), "0:[2 1:d1.5 10:d-1 ]");
  EXPECT_EQ(ReadDoubles<CborReader>("82 fb " F15 " f9 3e 00"), "0:[2 1:d1.5 10:d1.5 ]");
  EXPECT_EQ(ReadDoubles<CborReader>("82 fb " F15 " 01"), "0:[2 1:d1.5 10:1 ]");
  EXPECT_EQ(ReadDoubles<CborReader>("9f fb " F15 " ff"), "0:[_ 1:d1.5 ]");
  EXPECT_EQ(ReadDoubles<CborReader>("d9 d9 f7 81 fb " F15), "0:t(55799) 3:[1 4:d1.5 ]");
  EXPECT_EQ(ReadDoubles<CborReader>("a1 81 fb " F15 " 01"), "0:{1 1:[1 2:d1.5 ] 11:1 }");
  EXPECT_EQ(ReadDoubles<CborReader>("80"), "0:[0 ]");
  // Truncated: the array's items are not all there.
  EXPECT_EQ(ReadDoubles<CborReader>("82 fb " F15 " fb 40"),
            "error: item claims 8 bytes but 1 remain");
  // max_depth 1: the outer array fills it, so the inner one is not offered (and too deep).
  EXPECT_EQ(ReadDoubles<CborReader>("81 81 fb " F15, 2), "0:[1 1:D(1.5) ]");
  EXPECT_EQ(ReadDoubles<CborReader>("81 81 fb " F15, 1), "error: nesting deeper than max_depth 1");
}

TEST(TakeDoublesMsgpack, ShortArraysOfFloat64AreOneEvent) {
  EXPECT_EQ(ReadDoubles<MsgpackReader>("92 cb " F15 " cb " F25), "0:D(1.5,2.5)");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("92 92 cb " F15 " cb " F25 " 81 a1 6b 91 cb " F35),
            "0:[2 1:D(1.5,2.5) 20:{1 21:\"k\" 23:D(3.5) } ]");
  // An array16 head is offered as a fixarray is; five items are not.
  EXPECT_EQ(ReadDoubles<MsgpackReader>("dc 00 01 cb " F15), "0:D(1.5)");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("95 cb " F15 " cb " F15 " cb " F15 " cb " F15 " cb " F15),
            "0:[5 1:d1.5 10:d1.5 19:d1.5 28:d1.5 37:d1.5 ]");
  // Declined; a float32 item; an array as a map key; no room for its depth.
  EXPECT_EQ(ReadDoubles<MsgpackReader>("92 cb " FM1 " cb " F15), "0:[2 1:d-1 10:d1.5 ]");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("92 cb " F15 " ca 3f c0 00 00"), "0:[2 1:d1.5 10:d1.5 ]");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("81 91 cb " F15 " 01"), "0:{1 1:[1 2:d1.5 ] 11:1 }");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("91 91 cb " F15, 2), "0:[1 1:D(1.5) ]");
  EXPECT_EQ(ReadDoubles<MsgpackReader>("91 91 cb " F15, 1),
            "error: nesting deeper than max_depth 1");
}

// ---- TakeDecimals (sink.h): a short array of JSON numbers as one event ----

// Takes an offered array as "N(...)" (each item its digits, "/10^m" for m fraction
// digits) unless an item is negative (declined: the reader then gives it event by event),
// told its start as any item; offered only while MayTakeDecimals says so.
class DecimalsRecorder : public Recorder {
 public:
  bool MayTakeDecimals() const { return may; }
  bool TakeDecimals(const ShortDecimal* v, size_t n, bool* ok) {
    std::string items;
    for (size_t i = 0; i < n; ++i) {
      if (v[i].negative) return false;
      if (i > 0) items += ',';
      items += std::to_string(v[i].digits);
      if (v[i].fraction_digits > 0) items += "/10^" + std::to_string(v[i].fraction_digits);
    }
    *ok = Item("N(", items, ")");
    return true;
  }
  bool may = true;
};
static_assert(TakesDecimals<DecimalsRecorder>);

std::string ReadDecimals(std::string_view json, bool may = true, uint32_t max_depth = 64,
                         uint64_t max_items = Limits{}.max_items) {
  Limits limits;
  limits.max_depth = max_depth;
  limits.max_items = max_items;
  const MappingOptions options;
  Context ctx(limits, options);
  DecimalsRecorder sink;
  sink.may = may;
  std::string padded(json);
  padded.append(kInputPadding, ' ');
  const std::string_view input(padded.data(), json.size());
  if (!JsonReader<DecimalsRecorder>(ctx, sink).Read(input, kInputPadding))
    return "error: " + ctx.status.message + " at " + std::to_string(ctx.status.offset);
  return sink.log();
}

TEST(TakeDecimalsJson, ShortArraysOfNumbersAreOneEvent) {
  EXPECT_EQ(ReadDecimals("[1.5,2.25]"), "0:N(15/10^1,225/10^2)");
  EXPECT_EQ(ReadDecimals("[[1.5, 2], [3], {\"k\": [0.125]}, [ 4 , 5 ]]"),
            "0:[_ 1:N(15/10^1,2) 11:N(3) 16:{_ 17:\"k\" 22:N(125/10^3) } 32:N(4,5) ]");
  // Four items are offered; five are not.
  EXPECT_EQ(ReadDecimals("[1,2,3,4]"), "0:N(1,2,3,4)");
  EXPECT_EQ(ReadDecimals("[1,2,3,4,5]"), "0:[_ 1:1 3:2 5:3 7:4 9:5 ]");
  // 16 integer digits, 16 fraction digits, an integer part of 0, 19 integer digits.
  EXPECT_EQ(ReadDecimals("[1234567890123456.5,1.1234567890123456,0.5,9999999999999999999]"),
            "0:N(12345678901234565/10^1,11234567890123456/10^16,5/10^1,9999999999999999999)");
}

TEST(TakeDecimalsJson, OtherArraysComeEventByEvent) {
  // Declined by the sink; MayTakeDecimals false; an item with an exponent, of 20 digits,
  // or no number; an empty array.
  EXPECT_EQ(ReadDecimals("[1.5,-2]"), "0:[_ 1:d1.5 5:-2 ]");
  EXPECT_EQ(ReadDecimals("[1.5]", false), "0:[_ 1:d1.5 ]");
  EXPECT_EQ(ReadDecimals("[1.5,2e1]"), "0:[_ 1:d1.5 5:d20 ]");
  EXPECT_EQ(ReadDecimals("[1,12345678901234567890]"), "0:[_ 1:1 3:12345678901234567890 ]");
  EXPECT_EQ(ReadDecimals("[1.5,\"x\"]"), "0:[_ 1:d1.5 5:\"x\" ]");
  EXPECT_EQ(ReadDecimals("[1.5,[2]]"), "0:[_ 1:d1.5 5:N(2) ]");
  EXPECT_EQ(ReadDecimals("[]"), "0:[_ ]");
  // Malformed, too deep, more items than max_items: reported as when nothing is offered.
  for (const char* bad :
       {"[01]", "[1.]", "[-]", "[1.5 2.5]", "[1 2 3]", "[1:2]", "[1.5,2.5", "[1.5,2.5,]"}) {
    EXPECT_EQ(ReadDecimals(bad), ReadDecimals(bad, false)) << bad;
    EXPECT_EQ(ReadDecimals(bad).substr(0, 6), "error:") << bad;
  }
  EXPECT_EQ(ReadDecimals("[[1.5]]", true, 2), "0:[_ 1:N(15/10^1) ]");
  EXPECT_EQ(ReadDecimals("[[1.5]]", true, 1), ReadDecimals("[[1.5]]", false, 1));
  EXPECT_EQ(ReadDecimals("[[1.5]]", true, 1), "error: nesting deeper than max_depth 1 at 1");
  EXPECT_EQ(ReadDecimals("[1,2]", true, 64, 1), ReadDecimals("[1,2]", false, 64, 1));
  EXPECT_EQ(ReadDecimals("[1,2]", true, 64, 1), "error: container passes max_items 1 at 3");
}

// Takes an offered map as "M(name=value,...)" (a number as DecimalsRecorder writes it)
// unless a name is "no" (declined: the reader then gives it event by event), told its
// start as any item; offered only while MayTakeMembers says so.
class MembersRecorder : public Recorder {
 public:
  bool MayTakeMembers() const { return may; }
  bool TakeMembers(const ShortMember* v, size_t n, bool* ok) {
    std::string members;
    for (size_t i = 0; i < n; ++i) {
      if (v[i].key == "no") return false;
      if (i > 0) members += ',';
      members.append(v[i].key).append("=");
      switch (v[i].kind) {
        case ShortMember::kNumber:
          if (v[i].number.negative) members += '-';
          members += std::to_string(v[i].number.digits);
          if (v[i].number.fraction_digits > 0)
            members += "/10^" + std::to_string(v[i].number.fraction_digits);
          break;
        case ShortMember::kDouble: {
          char buf[64];
          auto r = std::to_chars(buf, buf + sizeof buf, v[i].real);
          members.append("d").append(buf, r.ptr - buf);
          break;
        }
        case ShortMember::kText:
          members.append("\"").append(v[i].text).append("\"");
          break;
        case ShortMember::kNull:
          members += "null";
          break;
        case ShortMember::kTrue:
          members += "true";
          break;
        case ShortMember::kFalse:
          members += "false";
          break;
        case ShortMember::kEmptyArray:
          members += "[]";
          break;
        case ShortMember::kEmptyMap:
          members += "{}";
          break;
      }
    }
    *ok = Item("M(", members, ")");
    return true;
  }
  bool may = true;
};
static_assert(TakesMembers<MembersRecorder>);

std::string ReadMembers(std::string_view json, bool may = true, Limits limits = {}) {
  const MappingOptions options;
  Context ctx(limits, options);
  MembersRecorder sink;
  sink.may = may;
  std::string padded(json);
  padded.append(kInputPadding, ' ');
  const std::string_view input(padded.data(), json.size());
  if (!JsonReader<MembersRecorder>(ctx, sink).Read(input, kInputPadding))
    return "error: " + ctx.status.message + " at " + std::to_string(ctx.status.offset);
  return sink.log();
}

// A map of n members "k0": 0, "k1": 1, ...
std::string MapOf(int n) {
  std::string map = "{";
  for (int i = 0; i < n; ++i) {
    if (i > 0) map += ',';
    map.append("\"k").append(std::to_string(i)).append("\":").append(std::to_string(i));
  }
  return map + "}";
}

TEST(TakeMembersJson, ShortMapsOfScalarsAreOneEvent) {
  EXPECT_EQ(ReadMembers(R"({"a":1,"b":"x","c":null,"d":true,"e":false,"f":[],"g":{},"h":-2.5})"),
            R"(0:M(a=1,b="x",c=null,d=true,e=false,f=[],g={},h=-25/10^1))");
  // Whitespace anywhere; maps inside an array and a map (whose own member is a map, so it
  // is not offered).
  EXPECT_EQ(ReadMembers(R"([ { "a" : 1 , "b" : [ ] } , {"m":{"c":"y"}}])"),
            R"(0:[_ 2:M(a=1,b=[]) 28:{_ 29:"m" 33:M(c="y") } ])");
  // kMaxTakenMembers members are offered; one more is not.
  std::string most = "0:M(";
  for (size_t i = 0; i < kMaxTakenMembers; ++i) {
    if (i > 0) most += ',';
    most.append("k").append(std::to_string(i)).append("=").append(std::to_string(i));
  }
  EXPECT_EQ(ReadMembers(MapOf(kMaxTakenMembers)), most + ")");
  const std::string more = ReadMembers(MapOf(kMaxTakenMembers + 1));
  EXPECT_EQ(more.substr(0, 8), R"(0:{_ 1:")");
  EXPECT_EQ(more, ReadMembers(MapOf(kMaxTakenMembers + 1), false));
}

TEST(TakeMembersJson, OtherMapsComeEventByEvent) {
  // Declined by the sink; MayTakeMembers false; an escape in a name or a string; a number
  // with an exponent or of 20 digits; a member that is a non-empty container.
  EXPECT_EQ(ReadMembers(R"({"a":1,"no":2})"), R"(0:{_ 1:"a" 5:1 7:"no" 12:2 })");
  EXPECT_EQ(ReadMembers(R"({"a":1})", false), R"(0:{_ 1:"a" 5:1 })");
  EXPECT_EQ(ReadMembers(R"({"\u0061":1})"), R"(0:{_ 1:"a" 10:1 })");
  EXPECT_EQ(ReadMembers(R"({"a":"\n"})"), "0:{_ 1:\"a\" 5:\"\n\" }");
  EXPECT_EQ(ReadMembers(R"({"a":1e1})"), R"(0:{_ 1:"a" 5:d10 })");
  EXPECT_EQ(ReadMembers(R"({"a":12345678901234567890})"), R"(0:{_ 1:"a" 5:12345678901234567890 })");
  EXPECT_EQ(ReadMembers(R"({"a":[1]})"), R"(0:{_ 1:"a" 5:[_ 6:1 ] })");
  EXPECT_EQ(ReadMembers("{}"), "0:{_ }");
  // Malformed, too deep, more members than max_items, a name or string past
  // max_string_bytes: reported as when nothing is offered.
  for (const char* bad :
       {R"({"a":1,})", R"({"a" 1})", R"({"a":1 "b":2})", R"({"a":tru})", R"({"a":nulls})",
        R"({"a":[})", R"({"a":{]})", R"({"a":1)", R"({"a":01})", R"({"a":1.})", R"({"a":-})",
        R"({"a":"x"y})", R"({"a"::1})", R"({"a":1,"b"})", R"({1:2})", R"({"a":1}})",
        R"({"a":1:"b":2})", R"({"a":1]"b":2})", R"({"a":1])"}) {
    EXPECT_EQ(ReadMembers(bad), ReadMembers(bad, false)) << bad;
    EXPECT_EQ(ReadMembers(bad).substr(0, 6), "error:") << bad;
  }
  Limits shallow;
  shallow.max_depth = 1;
  EXPECT_EQ(ReadMembers(R"({"a":[]})", true, shallow), ReadMembers(R"({"a":[]})", false, shallow));
  EXPECT_EQ(ReadMembers(R"({"a":[]})", true, shallow),
            "error: nesting deeper than max_depth 1 at 5");
  EXPECT_EQ(ReadMembers(R"([{"a":1}])", true, shallow),
            "error: nesting deeper than max_depth 1 at 1");
  shallow.max_depth = 2;
  EXPECT_EQ(ReadMembers(R"({"a":[]})", true, shallow), "0:M(a=[])");
  Limits few;
  few.max_items = 1;
  EXPECT_EQ(ReadMembers(R"({"a":1,"b":2})", true, few),
            ReadMembers(R"({"a":1,"b":2})", false, few));
  EXPECT_EQ(ReadMembers(R"({"a":1,"b":2})", true, few), "error: container passes max_items 1 at 7");
  EXPECT_EQ(ReadMembers(R"({"a":1})", true, few), "0:M(a=1)");
  Limits short_strings;
  short_strings.max_string_bytes = 2;
  for (const char* big : {R"({"abc":1})", R"({"a":"abc"})"}) {
    EXPECT_EQ(ReadMembers(big, true, short_strings), ReadMembers(big, false, short_strings));
    EXPECT_EQ(ReadMembers(big, true, short_strings).substr(0, 23), "error: string of 3 byte");
  }
  EXPECT_EQ(ReadMembers(R"({"ab":"cd"})", true, short_strings), R"(0:M(ab="cd"))");
}

template <template <class, bool...> class Reader>
std::string ReadBinaryMembers(std::string_view hex, bool may = true, Limits limits = {}) {
  const MappingOptions options;
  Context ctx(limits, options);
  MembersRecorder sink;
  sink.may = may;
  if (!Reader<MembersRecorder>(ctx, sink).Read(Hex(hex))) return "error: " + ctx.status.message;
  return sink.log();
}

TEST(TakeMembersCbor, ShortMapsOfScalarsAreOneEvent) {
  // 1, -100, 1.5 as a half and as a single float, 2.5 as a double, "xyz", true, [].
  EXPECT_EQ(
      ReadBinaryMembers<CborReader>("a8 61 61 01 61 62 38 63 61 63 f9 3e 00 61 64 fa 3f c0 "
                                    "00 00 61 65 fb " F25 " 61 66 63 78 79 7a 61 67 f5 61 68 80"),
      R"(0:M(a=1,b=-100,c=d1.5,d=d1.5,e=d2.5,f="xyz",g=true,h=[]))");
  // null, false, {}, a text in a two-byte head; inside an array, after a map that is not
  // offered (its member is a non-empty array).
  EXPECT_EQ(ReadBinaryMembers<CborReader>("82 a1 61 6d 81 01 a4 61 69 f6 61 6a f4 61 6b a0 61 6c "
                                          "78 01 41"),
            R"(0:[2 1:{1 2:"m" 4:[1 5:1 ] } 6:M(i=null,j=false,k={},l="A") ])");
  // The largest integers of fewer than 20 digits: 10^19 - 1 and -(10^19 - 1).
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a2 61 61 1b 8a c7 23 04 89 e7 ff ff 61 62 3b 8a c7 23 "
                                          "04 89 e7 ff fe"),
            "0:M(a=9999999999999999999,b=-9999999999999999999)");
}

TEST(TakeMembersCbor, OtherMapsComeEventByEvent) {
  // Declined; MayTakeMembers false; an indefinite length; a tag on the map, or on a value;
  // a value that is a byte string, undefined, a non-empty array, or an integer of 20
  // digits; a name that is no text, or has a three-byte head; a map as a map key; a
  // deterministic reader.
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a2 61 61 01 62 6e 6f 02"),
            R"(0:{2 1:"a" 3:1 4:"no" 7:2 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 01", false), R"(0:{1 1:"a" 3:1 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("bf 61 61 01 ff"), R"(0:{_ 1:"a" 3:1 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("c1 a1 61 61 01"), R"(0:t(1) 1:{1 2:"a" 4:1 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 c1 01"), R"(0:{1 1:"a" 3:t(1) 4:1 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 41 00"), R"(0:{1 1:"a" 3:h'00' })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 f7"), R"(0:{1 1:"a" 3:undefined })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 81 01"), R"(0:{1 1:"a" 3:[1 4:1 ] })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 1b 8a c7 23 04 89 e8 00 00"),
            R"(0:{1 1:"a" 3:10000000000000000000 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 3b 8a c7 23 04 89 e7 ff ff"),
            R"(0:{1 1:"a" 3:-10000000000000000000 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 01 02"), "0:{1 1:1 2:2 }");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 79 00 01 61 01"), R"(0:{1 1:"a" 5:1 })");
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 a1 61 61 01 02"), R"(0:{1 1:{1 2:"a" 4:1 } 5:2 })");
  const Limits limits;  // (the Context keeps a reference)
  const MappingOptions options;
  Context ctx(limits, options);
  MembersRecorder sink;
  ASSERT_TRUE((CborReader<MembersRecorder, true>(ctx, sink).Read(Hex("a1 61 61 01"))));
  EXPECT_EQ(sink.log(), R"(0:{1 1:"a" 3:1 })");
  // Malformed, too deep, a name or text past max_string_bytes: reported as when nothing is
  // offered.
  for (const char* bad : {"a1 61 ff 01", "a1 61 61 61 ff", "a2 61 61 01", "a1 61 61 fb 40",
                          "a1 61 61 1a 00", "a1 61 61 f8 10"}) {
    EXPECT_EQ(ReadBinaryMembers<CborReader>(bad), ReadBinaryMembers<CborReader>(bad, false)) << bad;
    EXPECT_EQ(ReadBinaryMembers<CborReader>(bad).substr(0, 6), "error:") << bad;
  }
  Limits shallow;
  shallow.max_depth = 1;
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 80", true, shallow),
            "error: nesting deeper than max_depth 1");
  shallow.max_depth = 2;
  EXPECT_EQ(ReadBinaryMembers<CborReader>("a1 61 61 80", true, shallow), "0:M(a=[])");
  Limits short_strings;
  short_strings.max_string_bytes = 2;
  for (const char* big : {"a1 63 61 62 63 01", "a1 61 61 63 61 62 63"}) {
    EXPECT_EQ(ReadBinaryMembers<CborReader>(big, true, short_strings),
              ReadBinaryMembers<CborReader>(big, false, short_strings));
    EXPECT_EQ(ReadBinaryMembers<CborReader>(big, true, short_strings).substr(0, 6), "error:");
  }
}

TEST(TakeMembersMsgpack, ShortMapsOfScalarsAreOneEvent) {
  // 1, -100 (int 8), 1.5 (float 32), 2.5 (float 64), "xyz", true, [], -32 (fixint).
  EXPECT_EQ(
      ReadBinaryMembers<MsgpackReader>("88 a1 61 01 a1 62 d0 9c a1 63 ca 3f c0 00 00 a1 64 "
                                       "cb " F25 " a1 65 a3 78 79 7a a1 66 c3 a1 67 90 a1 68 e0"),
      R"(0:M(a=1,b=-100,c=d1.5,d=d2.5,e="xyz",f=true,g=[],h=-32))");
  // nil, false, {}, a str 8; in a map 16.
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("de 00 04 a1 69 c0 a1 6a c2 a1 6b 80 a1 6c d9 01 41"),
            R"(0:M(i=null,j=false,k={},l="A"))");
  // uint 8, 16, 32, 64 and int 16, 32, 64 (the least: -2^63).
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("87 a1 61 cc ff a1 62 cd 01 00 a1 63 ce 00 01 00 00 "
                                             "a1 64 cf 00 00 00 01 00 00 00 00 a1 65 d1 ff 00 a1 "
                                             "66 d2 ff ff 00 00 a1 67 d3 80 00 00 00 00 00 00 00"),
            "0:M(a=255,b=256,c=65536,d=4294967296,e=-256,f=-65536,g=-9223372036854775808)");
}

TEST(TakeMembersMsgpack, OtherMapsComeEventByEvent) {
  // Declined; MayTakeMembers false; a value that is bin, an ext, a non-empty array, or a
  // uint 64 of 20 digits; a name that is no str, or a str 16; a map as a map key.
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("82 a1 61 01 a2 6e 6f 02"),
            R"(0:{2 1:"a" 3:1 4:"no" 7:2 })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 01", false), R"(0:{1 1:"a" 3:1 })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 c4 01 00"), R"(0:{1 1:"a" 3:h'00' })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 d4 01 00"),
            R"(0:{1 1:"a" 3:t(mp+1) 3:h'00' })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 91 01"), R"(0:{1 1:"a" 3:[1 4:1 ] })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 cf 8a c7 23 04 89 e8 00 00"),
            R"(0:{1 1:"a" 3:10000000000000000000 })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 01 02"), "0:{1 1:1 2:2 }");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 da 00 01 61 01"), R"(0:{1 1:"a" 5:1 })");
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 81 a1 61 01 02"),
            R"(0:{1 1:{1 2:"a" 4:1 } 5:2 })");
  for (const char* bad : {"81 a1 ff 01", "81 a1 61 a1 ff", "82 a1 61 01", "81 a1 61 cb 40",
                          "81 a1 61 cd 00", "81 a1 61 c1"}) {
    EXPECT_EQ(ReadBinaryMembers<MsgpackReader>(bad), ReadBinaryMembers<MsgpackReader>(bad, false))
        << bad;
    EXPECT_EQ(ReadBinaryMembers<MsgpackReader>(bad).substr(0, 6), "error:") << bad;
  }
  Limits shallow;
  shallow.max_depth = 1;
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 90", true, shallow),
            "error: nesting deeper than max_depth 1");
  shallow.max_depth = 2;
  EXPECT_EQ(ReadBinaryMembers<MsgpackReader>("81 a1 61 90", true, shallow), "0:M(a=[])");
  Limits short_strings;
  short_strings.max_string_bytes = 2;
  for (const char* big : {"81 a3 61 62 63 01", "81 a1 61 a3 61 62 63"}) {
    EXPECT_EQ(ReadBinaryMembers<MsgpackReader>(big, true, short_strings),
              ReadBinaryMembers<MsgpackReader>(big, false, short_strings));
    EXPECT_EQ(ReadBinaryMembers<MsgpackReader>(big, true, short_strings).substr(0, 6), "error:");
  }
}

}  // namespace
}  // namespace rosetta::codec::testing

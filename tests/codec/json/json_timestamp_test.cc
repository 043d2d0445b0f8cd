// codec/src/json/json_writer.h, option timestamps_as_text (docs/formats.md "Timestamps as
// text"): examples from RFC 8949, RFC 9581 and the MessagePack spec, the edges of the
// years 0000..9999, negative epochs, refusals; then a million random instants of each
// kind (CBOR tag 1 integer and float, tag 1001, MessagePack timestamp 32, 64 and 96)
// against an independent formatter: std::chrono's calendar, snprintf's digits and glibc's
// exact decimal expansion of a double, never the code under test.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

MappingOptions AsText() {
  MappingOptions o;
  o.timestamps_as_text = true;
  return o;
}

Result CborTime(std::string_view hex) { return CborToJson(hex, {}, AsText()); }
Result MsgpackTime(std::string_view hex) { return MsgpackToJson(hex, {}, AsText()); }

// ---- examples ----

TEST(JsonTimestampExamples, Rfc8949Tags0And1) {
  // RFC 8949 section 3.4 and Appendix A.
  EXPECT_OUTPUT(CborTime("c1 1a 514b67b0"), R"("2013-03-21T20:04:00Z")");
  EXPECT_OUTPUT(CborTime("c1 fb 41d452d9ec200000"), R"("2013-03-21T20:04:00.5Z")");
  // Tag 0's text passes through, with the option or without.
  const char* const kTag0 = "c0 74 323031332d30332d32315432303a30343a30305a";
  EXPECT_OUTPUT(CborTime(kTag0), R"("2013-03-21T20:04:00Z")");
  EXPECT_OUTPUT(CborToJson(kTag0), R"("2013-03-21T20:04:00Z")");
  // Half and single floats.
  EXPECT_OUTPUT(CborTime("c1 f9 3c00"), R"("1970-01-01T00:00:01Z")");
  EXPECT_OUTPUT(CborTime("c1 fa 3fc00000"), R"("1970-01-01T00:00:01.5Z")");
  EXPECT_OUTPUT(CborTime("c1 00"), R"("1970-01-01T00:00:00Z")");
}

TEST(JsonTimestampExamples, WithoutTheOptionNothingChanges) {
  EXPECT_OUTPUT(CborToJson("c1 1a 514b67b0"), "1363896240");
  EXPECT_OUTPUT(CborToJson("c1 fb 41d452d9ec200000"), "1363896240.5");
  EXPECT_OUTPUT(CborToJson("d9 03e9 a2 01 1a 514b67b0 28 1a 1dcd6500"),
                R"({"1":1363896240,"-9":500000000})");
  EXPECT_OUTPUT(MsgpackToJson("d6 ff 514b67b0"), "1363896240");
  EXPECT_OUTPUT(MsgpackToJson("d7 ff 77359400514b67b0"), R"({"1":1363896240,"-9":500000000})");
}

TEST(JsonTimestampExamples, Rfc9581ExtendedTime) {
  // Section 3.5.4, Figure 4: the uncertainty (key -7) is elective and ignored.
  EXPECT_OUTPUT(CborTime("d9 03e9 a3 01 1a 65313952 25 1a 000d534e 26 a2 01 00 25 19 03e8"),
                R"("2023-10-19T14:12:34.873294Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a3 01 1a 65313952 25 1a 000d534e 26 a2 01 00 22 01"),
                R"("2023-10-19T14:12:34.873294Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a3 01 1a 65313952 25 1a 000d534e 26 a1 01 fb 3f50624dd2f1a9fc"),
                R"("2023-10-19T14:12:34.873294Z")");
  // Section 3.7: the time zone hint (-10) and suffix information (-11) are elective.
  EXPECT_OUTPUT(CborTime("d9 03e9 a3 01 1a 32b9e05d"
                         " 29 73 416d65726963612f4c6f735f416e67656c6573"
                         " 2a a1 64 752d6361 66 686562726577"),
                R"("1996-12-20T00:39:57Z")");
  // Section 3.3: each decimal fraction key, with exactly the digits the value has.
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 22 01"), R"("1970-01-01T00:00:00.001Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 25 19 2710"), R"("1970-01-01T00:00:00.01Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 28 01"), R"("1970-01-01T00:00:00.000000001Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 2b 01"), R"("1970-01-01T00:00:00.000000000001Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 2e 1a 3b9aca00"), R"("1970-01-01T00:00:00.000001Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 31 1b 0de0b6b3a763ffff"),
                R"("1970-01-01T00:00:00.999999999999999999Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 00 28 00"), R"("1970-01-01T00:00:00Z")");
  // A fraction of a second or more carries into the seconds; the keys come in any order.
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 22 19 05dc 01 00"), R"("1970-01-01T00:00:01.5Z")");
  // Key 1 alone, as an integer or a float; the timescale key -1 at 0 (UTC).
  EXPECT_OUTPUT(CborTime("d9 03e9 a1 01 1a 514b67b0"), R"("2013-03-21T20:04:00Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a1 01 fb 41d452d9ec200000"), R"("2013-03-21T20:04:00.5Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 1a 514b67b0 20 00"), R"("2013-03-21T20:04:00Z")");
}

TEST(JsonTimestampExamples, MessagePackTimestamps) {
  // timestamp 32, 64 and 96 (MessagePack spec, "Timestamp extension type").
  EXPECT_OUTPUT(MsgpackTime("d6 ff 514b67b0"), R"("2013-03-21T20:04:00Z")");
  EXPECT_OUTPUT(MsgpackTime("d7 ff 77359400514b67b0"), R"("2013-03-21T20:04:00.5Z")");
  EXPECT_OUTPUT(MsgpackTime("d7 ff 00000004 514b67b0"), R"("2013-03-21T20:04:00.000000001Z")");
  EXPECT_OUTPUT(MsgpackTime("c7 0c ff 1dcd6500 ffffffffffffffff"), R"("1969-12-31T23:59:59.5Z")");
  EXPECT_OUTPUT(MsgpackTime("c7 0c ff 00000000 fffffff1868b8400"), R"("0000-01-01T00:00:00Z")");
  EXPECT_OUTPUT(MsgpackTime("92 d6 ff 00000000 c7 0c ff 07735940 0000003afff4417f"),
                R"(["1970-01-01T00:00:00Z","9999-12-31T23:59:59.125Z"])");
}

// ---- the years 0000..9999 ----

TEST(JsonTimestampRange, FirstAndLastInstantOfTheYears0000To9999) {
  EXPECT_OUTPUT(CborTime("c1 3b 0000000e79747bff"), R"("0000-01-01T00:00:00Z")");
  EXPECT_OUTPUT(CborTime("c1 fb c22cf2e8f8000000"), R"("0000-01-01T00:00:00Z")");
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 1b 0000003afff4417f 28 1a 3b9ac9ff"),
                R"("9999-12-31T23:59:59.999999999Z")");
  EXPECT_OUTPUT(MsgpackTime("c7 0c ff 3b9ac9ff 0000003afff4417f"),
                R"("9999-12-31T23:59:59.999999999Z")");
  EXPECT_OUTPUT(CborTime("c1 fb 424d7ffa20bfc000"), R"("9999-12-31T23:59:59.5Z")");
}

// Refused at the tagged item (where its tag starts), as a bignum is.
TEST(JsonTimestampRange, OneSecondOutsideIsUnrepresentable) {
  EXPECT_REFUSED(CborTime("c1 3b 0000000e79747c00"), "unrepresentable", 0, "");
  EXPECT_REFUSED(CborTime("82 00 c1 1b 0000003afff44180"), "unrepresentable", 2, "/1");
  EXPECT_REFUSED(CborTime("c1 fb 424d7ffa20c00000"), "unrepresentable", 0, "");
  EXPECT_REFUSED(MsgpackTime("c7 0c ff 00000000 0000003afff44180"), "unrepresentable", 0, "");
  EXPECT_REFUSED(MsgpackTime("c7 0c ff 3b9ac9ff fffffff1868b83ff"), "unrepresentable", 0, "");
  // A fraction that carries past the last second; seconds past 64 bits; a huge float.
  EXPECT_EQ(CodeName(CborTime("d9 03e9 a2 01 1b 0000003afff4417f 22 19 03e8").status.code),
            "unrepresentable");
  EXPECT_EQ(CodeName(CborTime("c1 1b ffffffffffffffff").status.code), "unrepresentable");
  EXPECT_EQ(CodeName(CborTime("c1 3b ffffffffffffffff").status.code), "unrepresentable");
  EXPECT_EQ(CodeName(CborTime("d9 03e9 a1 01 3b ffffffffffffffff").status.code), "unrepresentable");
  EXPECT_EQ(CodeName(CborTime("c1 fb 7e37e43c8800759c").status.code), "unrepresentable");  // 1e300
  EXPECT_EQ(CodeName(CborTime("c1 f9 7c00").status.code), "unrepresentable");              // inf
  EXPECT_EQ(CodeName(CborTime("c1 f9 7e00").status.code), "unrepresentable");              // NaN
  EXPECT_EQ(CodeName(CborTime("c1 f9 fc00").status.code), "unrepresentable");              // -inf
}

TEST(JsonTimestampRange, NegativeEpochsWithFractions) {
  EXPECT_OUTPUT(CborTime("c1 fb bff8000000000000"), R"("1969-12-31T23:59:58.5Z")");  // -1.5
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 21 28 1a 1dcd6500"), R"("1969-12-31T23:59:58.5Z")");
  EXPECT_OUTPUT(MsgpackTime("c7 0c ff 1dcd6500 fffffffffffffffe"), R"("1969-12-31T23:59:58.5Z")");
  // -1e-9 is a little beyond -1 ns as a double: the nearest nanosecond is -1 ns.
  EXPECT_OUTPUT(CborTime("c1 fb be112e0be826d695"), R"("1969-12-31T23:59:59.999999999Z")");
  // A 1001 fraction is added to a negative base time (RFC 9581 section 3.3).
  EXPECT_OUTPUT(CborTime("d9 03e9 a2 01 20 22 19 0064"), R"("1969-12-31T23:59:59.1Z")");
}

// The float rule: the double's exact value to the nearest nanosecond, halfway to the later.
TEST(JsonTimestampFloat, ExactValueToTheNearestNanosecondHalfwayToTheLater) {
  // 2^-10 s is 976562.5 ns: halfway, so 976563 ns; -2^-10 s goes to -976562 ns.
  EXPECT_OUTPUT(CborTime("c1 fb 3f50000000000000"), R"("1970-01-01T00:00:00.000976563Z")");
  EXPECT_OUTPUT(CborTime("c1 fb bf50000000000000"), R"("1969-12-31T23:59:59.999023438Z")");
  // 0.1 is 0.1000000000000000055...: 100000000 ns.
  EXPECT_OUTPUT(CborTime("c1 fb 3fb999999999999a"), R"("1970-01-01T00:00:00.1Z")");
  // 1.7e9 + 0.123456 is 1700000000.1234560012817383... as a double: .123456001.
  EXPECT_OUTPUT(CborTime("c1 fb 41d954fc4007e6b4"), R"("2023-11-14T22:13:20.123456001Z")");
  // The smallest subnormal, either sign: the epoch itself.
  EXPECT_OUTPUT(CborTime("c1 fb 0000000000000001"), R"("1970-01-01T00:00:00Z")");
  EXPECT_OUTPUT(CborTime("c1 fb 8000000000000001"), R"("1970-01-01T00:00:00Z")");
  EXPECT_OUTPUT(CborTime("c1 fb 8000000000000000"), R"("1970-01-01T00:00:00Z")");
}

// ---- refusals and what is left alone ----

TEST(JsonTimestampRefusals, ContentNotOfTheRfcsForms) {
  const char* const kRefused[] = {
      "c1 61 78",                                 // tag 1 on text
      "c1 80",                                    // on an array
      "c1 c2 41 01",                              // on another tag
      "c1 f6",                                    // on null
      "d9 03e9 81 01",                            // tag 1001 on an array
      "d9 03e9 01",                               // on an integer
      "d9 03e9 a1 28 01",                         // no base time (key 1)
      "d9 03e9 a1 04 82 20 01",                   // key 4 (a decimal fraction base time)
      "d9 03e9 a2 01 00 0a 61 78",                // key 10 (critical time zone)
      "d9 03e9 a2 01 00 20 01",                   // timescale 1 (TAI)
      "d9 03e9 a2 01 00 20 63 47 50 53",          // a text timescale
      "d9 03e9 a2 01 f9 3800 28 01",              // a float base time with a fraction key
      "d9 03e9 a3 01 00 22 01 28 01",             // two fraction keys
      "d9 03e9 a1 41 00 01",                      // a byte string key
      "d9 03e9 a1 01 61 78",                      // key 1 not a number
      "d9 03e9 a2 01 00 28 20",                   // a negative fraction
      "d9 03e9 a2 01 00 28 fb 3ff0000000000000",  // a float fraction
  };
  for (const char* hex : kRefused) {
    SCOPED_TRACE(hex);
    EXPECT_EQ(CodeName(CborTime(hex).status.code), "unrepresentable")
        << CborTime(hex).status.message;
  }
}

TEST(JsonTimestampRefusals, ElectiveKeysAndTheirValuesAreSkippedWhateverTheyHold) {
  // "x": [1, {2: 3}, 1001({1: 0}), 52(h'c0000201')], -2: 5, -13: null, -100: {}
  EXPECT_OUTPUT(CborTime("d9 03e9 a5 01 1a 514b67b0"
                         " 61 78 84 01 a1 02 03 d9 03e9 a1 01 00 d8 34 44 c0000201"
                         " 21 05 2c f6 38 63 a0"),
                R"("2013-03-21T20:04:00Z")");
  // An indefinite-length map and elective values of indefinite length.
  EXPECT_OUTPUT(CborTime("d9 03e9 bf 61 78 9f 9f ff ff 01 1a 514b67b0 ff"),
                R"("2013-03-21T20:04:00Z")");
}

TEST(JsonTimestampPlaces, AsMapKeysTimestampsKeepTodaysMapping) {
  // A member name stays what it was, so the duplicate-key rule into JSON is unchanged.
  EXPECT_OUTPUT(CborTime("a1 c1 05 01"), R"({"5":1})");
  EXPECT_OUTPUT(MsgpackTime("81 d6 ff 00000005 01"), R"({"5":1})");
  EXPECT_REFUSED(CborTime("a2 c1 05 01 05 02"), "duplicate_key", 4, "/5");
  EXPECT_EQ(CodeName(CborTime("a1 d9 03e9 a1 01 05 01").status.code), "unrepresentable");
  // As a value in the same map, the text.
  EXPECT_OUTPUT(CborTime("a1 c1 05 c1 05"), R"({"5":"1970-01-01T00:00:05Z"})");
}

TEST(JsonTimestampPlaces, InsideContainersPrettyAndOtherOutputs) {
  EXPECT_OUTPUT(CborTime("82 c1 00 a1 61 74 d9 03e9 a2 01 00 28 01"),
                R"(["1970-01-01T00:00:00Z",{"t":"1970-01-01T00:00:00.000000001Z"}])");
  MappingOptions pretty = AsText();
  pretty.pretty = true;
  EXPECT_OUTPUT(CborToJson("82 c1 00 a1 61 74 d9 03e9 a2 01 00 28 01", {}, pretty),
                "[\n  \"1970-01-01T00:00:00Z\",\n  {\n    \"t\": "
                "\"1970-01-01T00:00:00.000000001Z\"\n  }\n]");
  // CBOR and MessagePack outputs are not affected.
  for (const char* hex : {"82 c1 00 d9 03e9 a2 01 00 28 01", "c1 fb 3ff8000000000000"}) {
    EXPECT_EQ(CborToCbor(hex, {}, AsText()).out, CborToCbor(hex).out);
    EXPECT_EQ(CborToMsgpack(hex, {}, AsText()).out, CborToMsgpack(hex).out);
  }
  EXPECT_EQ(MsgpackToMsgpack("d7 ff 77359400514b67b0", {}, AsText()).out,
            MsgpackToMsgpack("d7 ff 77359400514b67b0").out);
}

// ---- a million instants of each kind against an independent formatter ----

constexpr int kInstants = 1000000;
constexpr int64_t kYear0 = -62167219200;          // 0000-01-01T00:00:00Z
constexpr int64_t kYear10000 = 253402300800;      // 10000-01-01T00:00:00Z
constexpr int64_t kCalendarBound = 500000000000;  // past it, std::chrono::year overflows

// "\"YYYY-MM-DDTHH:MM:SS[.fraction]Z\"" from std::chrono's calendar and snprintf, the
// fraction (fraction / 10^digits seconds, below one) with its trailing zeros dropped;
// empty when the year is outside 0000..9999.
std::string Expected(int64_t seconds, uint64_t fraction, int digits) {
  using namespace std::chrono;
  if (seconds < -kCalendarBound || seconds > kCalendarBound) return {};
  const sys_seconds tp{std::chrono::seconds{seconds}};
  const sys_days day = floor<days>(tp);
  const year_month_day ymd{day};
  const int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) return {};
  const hh_mm_ss<std::chrono::seconds> hms{tp - day};
  char buf[80];
  int n = std::snprintf(
      buf, sizeof buf, "\"%04d-%02u-%02uT%02d:%02d:%02d", year, static_cast<unsigned>(ymd.month()),
      static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
      static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  std::string text(buf, static_cast<size_t>(n));
  if (fraction != 0) {
    n = std::snprintf(buf, sizeof buf, "%0*" PRIu64, digits, fraction);
    while (n > 0 && buf[n - 1] == '0') --n;
    text += '.';
    text.append(buf, static_cast<size_t>(n));
  }
  text += "Z\"";
  return text;
}

// The instant of a double to the nearest nanosecond, halfway to the later one, from
// glibc's decimal expansion of |d| (exact: a double of magnitude 1 or more has at most 52
// fraction digits, one below 1 at most 1074). False when the instant is surely outside
// the years (or not a number at all).
bool ExpectedInstant(double d, int64_t* seconds, uint64_t* nanos) {
  if (!std::isfinite(d) || std::fabs(d) >= 1e15) return false;
  static char buf[1200];
  std::snprintf(buf, sizeof buf, "%.*f", std::fabs(d) < 1 ? 1100 : 60, std::fabs(d));
  const char* dot = std::strchr(buf, '.');
  uint64_t whole = std::strtoull(buf, nullptr, 10);
  uint64_t ns = 0;
  for (int i = 1; i <= 9; ++i) ns = ns * 10 + static_cast<uint64_t>(dot[i] - '0');
  // The digits after the ninth against one half: 5 then zeros is exactly half.
  const char* rest = dot + 10;
  int vs_half = rest[0] > '5' ? 1 : rest[0] < '5' ? -1 : 0;
  if (vs_half == 0) {
    for (const char* p = rest + 1; *p; ++p) {
      if (*p != '0') {
        vs_half = 1;
        break;
      }
    }
  }
  if (vs_half > 0 || (vs_half == 0 && d > 0)) ++ns;  // halfway: later, so up for d > 0
  if (ns == 1000000000) {
    ++whole;
    ns = 0;
  }
  auto s = static_cast<int64_t>(whole);
  if (d < 0) {
    s = -s;
    if (ns != 0) {
      --s;
      ns = 1000000000 - ns;
    }
  }
  *seconds = s;
  *nanos = ns;
  return true;
}

class Instants {
 public:
  explicit Instants(uint64_t seed) : rng_(seed) {}
  uint64_t Next() { return rng_(); }
  uint64_t Pick(uint64_t n) { return rng_() % n; }
  // Seconds: mostly within the years, some at their edges, some far outside.
  int64_t Seconds() {
    switch (Pick(10)) {
      case 0:
        return (Pick(2) ? kYear0 : kYear10000) + static_cast<int64_t>(Pick(2001)) - 1000;
      case 1:
        return static_cast<int64_t>(Next());
      case 2:
        return static_cast<int64_t>(Pick(4000000000)) - 2000000000;  // around 1970
      default:
        return kYear0 - 1000000 + static_cast<int64_t>(Pick(kYear10000 - kYear0 + 2000000));
    }
  }
  // A fraction below 10^digits with any number of trailing zeros (a tenth of them 0).
  uint64_t Fraction(int digits) {
    const int kept = static_cast<int>(Pick(static_cast<uint64_t>(digits) + 1));
    uint64_t unit = 1;
    for (int i = kept; i < digits; ++i) unit *= 10;
    uint64_t range = 1;
    for (int i = 0; i < kept; ++i) range *= 10;
    return Pick(range) * unit;
  }

 private:
  std::mt19937_64 rng_;
};

// An input starting with these bytes (push_back: GCC 12 warns, wrongly, on assign).
void Begin(std::string& in, std::initializer_list<int> bytes) {
  in.clear();
  for (int b : bytes) in.push_back(static_cast<char>(b));
}
void PutHead(std::string& out, int major, uint64_t v) {
  if (v < 24) {
    out.push_back(static_cast<char>(major << 5 | static_cast<int>(v)));
    return;
  }
  const int bytes = v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffff ? 4 : 8;
  out.push_back(static_cast<char>(major << 5 | (bytes == 1   ? 24
                                                : bytes == 2 ? 25
                                                : bytes == 4 ? 26
                                                             : 27)));
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void PutInt(std::string& out, int64_t v) {
  if (v >= 0)
    PutHead(out, 0, static_cast<uint64_t>(v));
  else
    PutHead(out, 1, ~static_cast<uint64_t>(v));
}
void PutBig(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Transcodes each input with the option and compares with what the independent formatter
// expects (empty: unrepresentable).
class Checker {
 public:
  explicit Checker(Format from) : from_(from) { request_.options = AsText(); }

  void Check(const std::string& input, const std::string& expected) {
    request_.from = from_;
    request_.to = Format::kJson;
    request_.input = input;
    const Status status = Transcode(request_, out_);
    const bool ok = status.ok();
    const bool matched = expected.empty() ? status.code == ErrorCode::kUnrepresentable
                                          : ok && out_.view() == expected;
    if (ok) ++written;
    if (status.code == ErrorCode::kUnrepresentable) ++unrepresentable;
    if (!expected.empty()) ++expected_written;
    if (!matched && ++mismatched <= 10) {
      ADD_FAILURE() << ToHex(input) << ": expected "
                    << (expected.empty() ? "unrepresentable" : expected) << ", got "
                    << (ok ? std::string(out_.view())
                           : std::string(CodeName(status.code)) + ": " + status.message);
    }
  }

  int written = 0, unrepresentable = 0, expected_written = 0, mismatched = 0;

 private:
  Format from_;
  TranscodeRequest request_;
  OutputBuffer out_;
};

void ExpectCounts(const Checker& c, int min_written, int min_refused) {
  EXPECT_EQ(c.mismatched, 0);
  EXPECT_EQ(c.written + c.unrepresentable, kInstants);
  EXPECT_EQ(c.written, c.expected_written);
  EXPECT_GE(c.written, min_written);
  EXPECT_GE(c.unrepresentable, min_refused);
}

TEST(JsonTimestampMillion, CborTag1Integer) {
  Instants rng(1);
  Checker c(Format::kCbor);
  std::string in;
  for (int i = 0; i < kInstants; ++i) {
    Begin(in, {0xc1});
    std::string expected;
    if (rng.Pick(50) == 0) {  // beyond 64-bit seconds: 2^63 .. 2^64 - 1, or below -2^63
      PutHead(in, rng.Pick(2) ? 0 : 1, (uint64_t{1} << 63) | rng.Next());
    } else {
      const int64_t s = rng.Seconds();
      PutInt(in, s);
      expected = Expected(s, 0, 0);
    }
    c.Check(in, expected);
  }
  ExpectCounts(c, 750000, 100000);
}

TEST(JsonTimestampMillion, CborTag1Float) {
  Instants rng(2);
  Checker c(Format::kCbor);
  std::string in;
  int halfway = 0;
  for (int i = 0; i < kInstants; ++i) {
    double d;
    switch (rng.Pick(20)) {
      case 0:  // any bit pattern: NaN, infinities, subnormals, huge values
        d = std::bit_cast<double>(rng.Next());
        break;
      case 1: {  // a whole second plus m / 2^k
        const int k = 1 + static_cast<int>(rng.Pick(20));
        const uint64_t m = rng.Pick(uint64_t{1} << k);
        d = static_cast<double>(static_cast<int64_t>(rng.Pick(4000000)) - 2000000) +
            std::ldexp(static_cast<double>(m), -k);
        halfway += k == 10 && m % 2 == 1;  // m / 1024 s: a whole nanosecond and a half
        break;
      }
      case 2:  // small magnitudes, many fraction bits
        d = std::ldexp(static_cast<double>(rng.Next() >> 11), -static_cast<int>(rng.Pick(1100)));
        if (rng.Pick(2)) d = -d;
        break;
      default:  // an instant within (and around) the years, with a random fraction
        d = static_cast<double>(rng.Seconds()) +
            static_cast<double>(rng.Next() >> 11) / 9007199254740992.0;
    }
    Begin(in, {0xc1, 0xfb});
    PutBig(in, std::bit_cast<uint64_t>(d), 8);
    int64_t s;
    uint64_t ns;
    c.Check(in, ExpectedInstant(d, &s, &ns) ? Expected(s, ns, 9) : std::string());
  }
  ExpectCounts(c, 750000, 100000);
  EXPECT_GT(halfway, 500);
}

TEST(JsonTimestampMillion, CborTag1001) {
  Instants rng(3);
  Checker c(Format::kCbor);
  std::string in;
  for (int i = 0; i < kInstants; ++i) {
    const int64_t s = rng.Seconds();
    const int digits = 3 * static_cast<int>(rng.Pick(7));  // 0: no fraction key
    // Now and then a fraction of a second or more (carried into the seconds).
    const uint64_t fraction = digits && rng.Pick(20) == 0 ? rng.Next() : rng.Fraction(digits);
    const bool fraction_first = rng.Pick(2);
    const bool elective = rng.Pick(4) == 0;  // a time zone hint, ignored
    Begin(in, {0xd9, 0x03, 0xe9});
    PutHead(in, 5, 1 + (digits ? 1 : 0) + (elective ? 1 : 0));
    auto put_fraction = [&] {
      if (!digits) return;
      PutInt(in, -digits);
      PutHead(in, 0, fraction);
    };
    if (elective) in += "\x29\x63UTC";
    if (fraction_first) put_fraction();
    in += '\x01';
    PutInt(in, s);
    if (!fraction_first) put_fraction();
    std::string expected;
    if (digits) {
      uint64_t unit = 1;
      for (int k = 0; k < digits; ++k) unit *= 10;
      const __int128 total = static_cast<__int128>(s) + fraction / unit;
      if (total >= -kCalendarBound && total <= kCalendarBound)
        expected = Expected(static_cast<int64_t>(total), fraction % unit, digits);
    } else {
      expected = Expected(s, 0, 0);
    }
    c.Check(in, expected);
  }
  ExpectCounts(c, 700000, 100000);
}

TEST(JsonTimestampMillion, MsgpackTimestamp32) {
  Instants rng(4);
  Checker c(Format::kMsgpack);
  std::string in;
  for (int i = 0; i < kInstants; ++i) {
    const uint64_t s = rng.Next() & 0xffffffff;
    Begin(in, {0xd6, 0xff});
    PutBig(in, s, 4);
    c.Check(in, Expected(static_cast<int64_t>(s), 0, 0));
  }
  ExpectCounts(c, kInstants, 0);
}

TEST(JsonTimestampMillion, MsgpackTimestamp64) {
  Instants rng(5);
  Checker c(Format::kMsgpack);
  std::string in;
  for (int i = 0; i < kInstants; ++i) {
    const uint64_t s = rng.Next() & ((uint64_t{1} << 34) - 1);
    const uint64_t ns = rng.Fraction(9);
    Begin(in, {0xd7, 0xff});
    PutBig(in, ns << 34 | s, 8);
    c.Check(in, Expected(static_cast<int64_t>(s), ns, 9));
  }
  ExpectCounts(c, kInstants, 0);
}

TEST(JsonTimestampMillion, MsgpackTimestamp96) {
  Instants rng(6);
  Checker c(Format::kMsgpack);
  std::string in;
  for (int i = 0; i < kInstants; ++i) {
    const int64_t s = rng.Seconds();
    const uint64_t ns = rng.Fraction(9);
    Begin(in, {0xc7, 0x0c, 0xff});
    PutBig(in, ns, 4);
    PutBig(in, static_cast<uint64_t>(s), 8);
    c.Check(in, Expected(s, ns, 9));
  }
  ExpectCounts(c, 750000, 100000);
}

}  // namespace
}  // namespace rosetta::codec::testing

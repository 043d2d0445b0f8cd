// Duplicate keys are judged as the output will hold them (docs/formats.md, "Duplicate
// keys"): for every pair of keys from a list of awkward ones, in every (input, output)
// pair, the reader refuses the map {a: 0, b: 0} as a duplicate exactly when the output
// it writes with duplicates allowed is refused as a duplicate by the output format's own
// validation. A key the reader does not compare must not become one the output's reader
// does (CI's fuzz_transcode found 1(tiny double) twice: two equal ts32 keys), and a key it
// compares must be a real duplicate in the output.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

// CBOR keys (hex): integers in several widths, text and bytes that look alike, every
// timestamp form (tag 1 on integers and floats, tag 1001 maps, CBOR's tag for ext -1),
// ext tags, bignums (fitting 64 bits, with leading zeros, beyond), floats in every width,
// NaNs, signed zeros, simple values, tags on tags, containers.
const std::vector<std::string> kCborKeys = {
    "05",
    "18 05",
    "24",
    "3b ff ff ff ff ff ff ff ff",
    "1b ff ff ff ff ff ff ff ff",
    "00",
    "20",
    "61 35",
    "62 30 35",
    "62 2d 35",
    "61 30",
    "41 05",
    "41 35",
    "40",
    "60",
    "c1 05",
    "c1 24",
    "c1 00",
    "c1 fb 40 14 00 00 00 00 00 00",
    "c1 f9 45 00",
    "c1 fb 40 16 00 00 00 00 00 00",
    "c1 fb 3f ff ff ff ff f9 20 c8",
    "c1 fb 01 02 00 03 c2 04 05 d9",
    "c1 fb 01 02 00 d9 d9 d9 d9 d9",
    "c1 fb c0 14 00 00 00 00 00 00",
    "c1 fb 7f f0 00 00 00 00 00 00",
    "c1 f6",
    "c1 f5",
    "c1 61 35",
    "d9 03 e9 a1 01 05",
    "d9 03 e9 a2 01 05 28 00",
    "d9 03 e9 bf 01 05 ff",
    "d9 03 e9 a2 01 05 28 01",
    "d9 03 e9 a2 28 01 01 05",
    "d9 03 e9 a1 01 24",
    "d9 03 e9 a1 02 05",
    "d9 03 e9 05",
    "da 6d 70 00 ff 44 00 00 00 05",
    "da 6d 70 00 ff 48 00 00 00 00 00 00 00 05",
    "da 6d 70 00 ff 48 00 00 00 04 00 00 00 05",
    "da 6d 70 00 ff 43 00 00 05",
    "da 6d 70 00 01 41 05",
    "da 6d 70 00 02 41 05",
    "da 6d 70 00 01 61 05",
    "c2 41 05",
    "c2 42 00 05",
    "c3 41 05",
    "c2 49 01 00 00 00 00 00 00 00 00",
    "c2 49 01 00 00 00 00 00 00 00 01",
    "c2 49 01 00 00 00 00 00 00 00 02",
    "c3 49 01 00 00 00 00 00 00 00 01",
    "fa 5f 80 00 00",
    "fa df 80 00 00",
    "f9 45 00",
    "fa 40 a0 00 00",
    "fb 40 14 00 00 00 00 00 00",
    "f9 7e 00",
    "fb 7f f8 00 00 00 00 00 01",
    "f9 00 00",
    "f9 80 00",
    "f4",
    "f5",
    "f6",
    "f7",
    "e0",
    "f8 20",
    "c6 05",
    "c6 f9 45 00",
    "c6 c1 05",
    "c1 c6 05",
    "c6 f6",
    "c6 f7",
    "80",
    "a0",
    "81 05",
};

// MessagePack keys (hex): integers in every width and sign form, str and bin alike, every
// timestamp form (32, 64, 96 bits, with and without nanoseconds), ext types, floats,
// NaNs, signed zeros, nil and booleans, containers.
const std::vector<std::string> kMsgpackKeys = {
    "05",
    "cc 05",
    "cd 00 05",
    "d0 05",
    "d3 00 00 00 00 00 00 00 05",
    "fb",
    "d0 fb",
    "00",
    "a1 35",
    "a2 30 35",
    "a1 30",
    "c4 01 05",
    "c4 01 35",
    "c4 00",
    "a0",
    "d6 ff 00 00 00 05",
    "d7 ff 00 00 00 00 00 00 00 05",
    "c7 0c ff 00 00 00 00 00 00 00 00 00 00 00 05",
    "d7 ff 00 00 00 04 00 00 00 05",
    "c7 0c ff 00 00 00 01 00 00 00 00 00 00 00 05",
    "c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff fb",
    "d6 ff 00 00 00 00",
    "d4 01 05",
    "d4 02 05",
    "c7 01 01 05",
    "d5 01 00 05",
    "ca 40 a0 00 00",
    "cb 40 14 00 00 00 00 00 00",
    "ca 7f c0 00 00",
    "ca 7f 80 00 01",
    "ca 00 00 00 00",
    "ca 80 00 00 00",
    "c0",
    "c2",
    "c3",
    "90",
    "80",
    "91 05",
};

// JSON member names: escapes, integers as text, look-alikes.
const std::vector<std::string> kJsonKeys = {
    "\"5\"",
    "\"\\u0035\"",
    "\"05\"",
    "\"-5\"",
    "\"-0\"",
    "\"0\"",
    "\"\"",
    "\"a\"",
    "\"\\u0061\"",
    "\"\\/\"",
    "\"/\"",
    "\"18446744073709551615\"",
    "\"18446744073709551616\"",
    "\"-18446744073709551616\"",
};

std::string Map(Format from, const std::string& a, const std::string& b) {
  if (from == Format::kJson) return "{" + a + ":0," + b + ":0}";
  return Hex((from == Format::kCbor ? "a2 " : "82 ") + a + " 00 " + b + " 00");
}

struct Tally {
  int duplicates = 0;  // refused as duplicates, and duplicates in the output
  int distinct = 0;    // accepted, and no duplicates in the output
  int refused = 0;     // a key the output has no form for
};

void Judge(Format from, Format to, const std::string& a, const std::string& b,
           const MappingOptions& options, Tally* tally) {
  SCOPED_TRACE(std::string(FormatName(from)) + " -> " + std::string(FormatName(to)) + ": {" + a +
               ", " + b + "}" + (options.bignum_as_double ? " bignum_as_double" : ""));
  const std::string map = Map(from, a, b);
  MappingOptions lenient = options;
  lenient.allow_duplicate_keys = true;
  const Result strict = RunTranscode(from, to, map, {}, options);
  const Result loose = RunTranscode(from, to, map, {}, lenient);
  if (!loose.status.ok()) {
    EXPECT_NE(CodeName(loose.status.code), "duplicate_key");
    EXPECT_FALSE(strict.status.ok());
    ++tally->refused;
    return;
  }
  const Result judged = Check(to, to == Format::kJson ? loose.out : Hex(loose.out));
  const bool in_duplicate = !strict.status.ok() && CodeName(strict.status.code) == "duplicate_key";
  const bool out_duplicate = !judged.status.ok() && CodeName(judged.status.code) == "duplicate_key";
  EXPECT_EQ(in_duplicate, out_duplicate) << "reader: " << strict.status.ToString() << "; output "
                                         << loose.out << " judged: " << judged.status.ToString();
  EXPECT_TRUE(judged.status.ok() || out_duplicate) << judged.status.ToString();
  if (in_duplicate) {
    ++tally->duplicates;
  } else {
    EXPECT_TRUE(strict.status.ok()) << strict.status.ToString();
    EXPECT_EQ(strict.out, loose.out);
    ++tally->distinct;
  }
}

Tally JudgeAllPairs(Format from, const std::vector<std::string>& keys) {
  Tally tally;
  MappingOptions as_double;
  as_double.bignum_as_double = true;
  for (Format to : {Format::kCbor, Format::kMsgpack, Format::kJson}) {
    for (const MappingOptions& options : {MappingOptions{}, as_double}) {
      for (const std::string& a : keys) {
        for (const std::string& b : keys) Judge(from, to, a, b, options, &tally);
      }
    }
  }
  return tally;
}

// Every pair is judged; both outcomes occur often, so the property is exercised both ways.
TEST(KeyIdentity, CborKeysAreDuplicatesExactlyWhenTheOutputsAre) {
  const Tally t = JudgeAllPairs(Format::kCbor, kCborKeys);
  const int n = static_cast<int>(kCborKeys.size());
  EXPECT_EQ(t.duplicates + t.distinct + t.refused, 3 * 2 * n * n);
  EXPECT_GE(t.duplicates, 2 * n);  // at least each comparable key with itself, into two formats
  EXPECT_GE(t.distinct, n * n);
}

TEST(KeyIdentity, MsgpackKeysAreDuplicatesExactlyWhenTheOutputsAre) {
  const Tally t = JudgeAllPairs(Format::kMsgpack, kMsgpackKeys);
  const int n = static_cast<int>(kMsgpackKeys.size());
  EXPECT_EQ(t.duplicates + t.distinct + t.refused, 3 * 2 * n * n);
  EXPECT_GE(t.duplicates, 2 * n);
  EXPECT_GE(t.distinct, n * n);
}

TEST(KeyIdentity, JsonMemberNamesAreDuplicatesExactlyWhenTheOutputsAre) {
  const Tally t = JudgeAllPairs(Format::kJson, kJsonKeys);
  const int n = static_cast<int>(kJsonKeys.size());
  EXPECT_EQ(t.refused, 0);  // every member name has a form in every format
  EXPECT_GE(t.duplicates, 3 * 2 * n);
  EXPECT_GE(t.distinct, n * n);
}

}  // namespace
}  // namespace rosetta::codec::testing

// Inputs the fuzz targets found (tests/fuzz), kept as regression tests, each with the
// property that failed.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

// fuzz_transcode / fuzz_roundtrip: an empty indefinite-length string reached memcpy with a
// null source (undefined behaviour under UBSan).
TEST(FuzzRegression, EmptyIndefiniteStringsTranscode) {
  EXPECT_EQ(CborToJson("9f 5f ff 7f ff ff").out, "[\"\",\"\"]");
  EXPECT_EQ(CborToCbor("9f 5f ff 7f ff ff").out, "824060");
}

// fuzz_msgpack_reader: ext keys of different types with equal data were duplicates once
// they became tagged CBOR keys. They are distinct keys.
TEST(FuzzRegression, ExtKeysOfDifferentTypesAreDistinct) {
  Result r = MsgpackToCbor("82 d4 01 41 00 d4 02 41 00");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(Check(Format::kCbor, Hex(r.out)).status.ok());
}

// fuzz_cbor_reader: tag-2 keys with integer content are integers into MessagePack, where
// the tag is dropped: {2(1): 0, 2(2(1)): 0} would be {1: 0, 1: 0}.
TEST(FuzzRegression, TaggedKeysThatCollideOnceTheTagIsDroppedAreDuplicates) {
  EXPECT_EQ(CodeName(CborToMsgpack("a2 c2 01 00 c2 c2 01 00").status.code), "duplicate_key");
  EXPECT_EQ(CodeName(CborToJson("a2 c2 01 00 c2 c2 01 00").status.code), "duplicate_key");
  // Into CBOR (and in validation) the tags are part of the keys: distinct.
  EXPECT_TRUE(CborToCbor("a2 c2 01 00 c2 c2 01 00").status.ok());
  EXPECT_TRUE(Check(Format::kCbor, Hex("a2 c2 01 00 c2 c2 01 00")).status.ok());
}

// fuzz_cbor_reader (CI, session 3): a bignum key written with leading zero bytes
// (2(h'000000000000000000'), 9 bytes) is the integer 0 into MessagePack, as the key 0 is:
// the key check must read the magnitude without its leading zeros, as the writer does.
TEST(FuzzRegression, BignumKeyWithLeadingZerosIsTheIntegerItBecomes) {
  const char* map = "a2 c2 49 00 00 00 00 00 00 00 00 00 00 00 00";
  EXPECT_REFUSED(CborToMsgpack(map), "duplicate_key", 13, "/0");
  EXPECT_TRUE(CborToCbor(map).status.ok());  // into CBOR the tag stays: distinct keys
  // Nine bytes whose value needs all nine are no integer: distinct from 0.
  EXPECT_EQ(CodeName(CborToMsgpack("a2 c2 49 01 00 00 00 00 00 00 00 00 00 00 00").status.code), "unrepresentable");
}

// fuzz_msgpack_reader: a timestamp key of 0 seconds and the integer key 0 both become the
// member "0" in JSON; into JSON they are duplicates, into CBOR (tag 1 kept) they are not.
TEST(FuzzRegression, TimestampKeyAndIntegerKeyCollideInJson) {
  const char* map = "82 d7 ff 00 00 00 00 00 00 00 00 00 00 00";
  EXPECT_EQ(CodeName(MsgpackToJson(map).status.code), "duplicate_key");
  EXPECT_TRUE(MsgpackToCbor(map).status.ok());
}

// fuzz_roundtrip: MessagePack -> MessagePack kept a float32 NaN's payload while
// MessagePack -> CBOR -> MessagePack gave the canonical NaN. Every NaN is now canonical.
TEST(FuzzRegression, EveryNanIsTheCanonicalQuietNan) {
  EXPECT_EQ(MsgpackToMsgpack("ca 7f 80 00 01").out, "ca7fc00000");
  EXPECT_EQ(MsgpackToMsgpack("ca ff c0 12 34").out, "ca7fc00000");
}

}  // namespace
}  // namespace rosetta::codec::testing

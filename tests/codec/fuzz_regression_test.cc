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

// fuzz_roundtrip (CI, session 3): a MessagePack map with the same timestamp key twice was
// accepted into MessagePack and CBOR (ext keys were not compared) while CBOR -> MessagePack
// refused the CBOR it gave. A timestamp or ext key is now the tagged item it is read as, in
// both readers: the same key twice is a duplicate into every format, and a timestamp stays
// distinct from the integer of its seconds (and an ext from a bin of its data) where the
// output keeps them apart.
TEST(FuzzRegression, TimestampAndExtKeysAreJudgedAlikeByBothReaders) {
  // ts32(5) twice, and ts32(5) with the ts64 form of 5 s 0 ns (the same timestamp).
  for (const char* map : {"82 d6 ff 00 00 00 05 00 d6 ff 00 00 00 05 00",
                          "82 d6 ff 00 00 00 05 00 d7 ff 00 00 00 00 00 00 00 05 00"}) {
    SCOPED_TRACE(map);
    EXPECT_REFUSED(MsgpackToMsgpack(map), "duplicate_key", 8, "/5");
    EXPECT_REFUSED(MsgpackToCbor(map), "duplicate_key", 8, "/5");
    EXPECT_REFUSED(MsgpackToJson(map), "duplicate_key", 8, "/5");
    EXPECT_REFUSED(Check(Format::kMsgpack, Hex(map)), "duplicate_key", 8, "/5");
  }
  // The same in CBOR: {1(5): 0, 1(5): 0}.
  const char* cbor = "a2 c1 05 00 c1 05 00";
  EXPECT_REFUSED(CborToCbor(cbor), "duplicate_key", 5, "/5");
  EXPECT_REFUSED(CborToMsgpack(cbor), "duplicate_key", 5, "/5");
  EXPECT_REFUSED(CborToJson(cbor), "duplicate_key", 5, "/5");
  EXPECT_REFUSED(Check(Format::kCbor, Hex(cbor)), "duplicate_key", 5, "/5");
  // A timestamp and the integer of its seconds: distinct keys, except into JSON.
  EXPECT_EQ(MsgpackToMsgpack("82 d6 ff 00 00 00 05 00 05 00").out, "82d6ff00000005000500");
  EXPECT_EQ(MsgpackToCbor("82 d6 ff 00 00 00 05 00 05 00").out, "a2c105000500");
  EXPECT_EQ(CborToMsgpack("a2 c1 05 00 05 00").out, "82d6ff00000005000500");
  EXPECT_EQ(CodeName(CborToJson("a2 c1 05 00 05 00").status.code), "duplicate_key");
  // The same ext twice is a duplicate; an ext and a bin of the same data are not.
  const char* ext = "82 d4 01 41 00 d4 01 41 00";
  EXPECT_REFUSED(MsgpackToMsgpack(ext), "duplicate_key", 5, "/A");
  EXPECT_REFUSED(MsgpackToCbor(ext), "duplicate_key", 5, "/A");
  EXPECT_REFUSED(Check(Format::kMsgpack, Hex(ext)), "duplicate_key", 5, "/A");
  EXPECT_EQ(MsgpackToMsgpack("82 d4 01 41 00 c4 01 41 00").out, "82d4014100c4014100");
  // The crash input, less its first byte (which picked MessagePack): the first key of a
  // 3-pair map is itself a map {2: ts(A), ts(B): ts(A), ts(B): ...}, ts(B) at bytes 9 and
  // 21 (B = 0x31328302 = 825393922 s): refused at the second, into either format.
  const char* crash = "83 83 02 d6 ff 30 36 31 02 d6 ff 31 32 83 02 d6 ff 30 36 31 02 d6 ff 31 32 83 02 d6 ff 30 "
                      "36 31 02 d6 ff 31 32 33 d4 83 02 d6 ff 30 36 31 02 d6 ff 31 32 33 d4 5e 37 00 33 d4 5e 37 00";
  EXPECT_REFUSED(MsgpackToMsgpack(crash), "duplicate_key", 21, "/825393922");
  EXPECT_REFUSED(MsgpackToCbor(crash), "duplicate_key", 21, "/825393922");
}

}  // namespace
}  // namespace rosetta::codec::testing

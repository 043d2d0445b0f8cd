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
  EXPECT_EQ(CodeName(CborToMsgpack("a2 c2 49 01 00 00 00 00 00 00 00 00 00 00 00").status.code),
            "unrepresentable");
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
  const char* crash =
      "83 83 02 d6 ff 30 36 31 02 d6 ff 31 32 83 02 d6 ff 30 36 31 02 d6 ff 31 32 83 02 d6 ff 30 "
      "36 31 02 d6 ff 31 32 33 d4 83 02 d6 ff 30 36 31 02 d6 ff 31 32 33 d4 5e 37 00 33 d4 5e 37 "
      "00";
  EXPECT_REFUSED(MsgpackToMsgpack(crash), "duplicate_key", 21, "/825393922");
  EXPECT_REFUSED(MsgpackToCbor(crash), "duplicate_key", 21, "/825393922");
}

// fuzz_transcode (CI, session 5): CBOR keys that were not compared on the way in became
// MessagePack keys that are: two float epoch times under 2^-1000 s are both the timestamp
// 0 s (no nanoseconds), and a ts32 key of 0 s twice is a duplicate to the MessagePack
// reader. Every key that becomes a timestamp of whole seconds into MessagePack (tag 1 on
// an integer or a float, a tag-1001 map, ext -1 data) is now that timestamp's key; one
// with nanoseconds stays uncompared on both sides. Whatever is accepted into MessagePack
// is valid MessagePack.
TEST(FuzzRegression, KeysThatBecomeWholeSecondTimestampsAreComparedAsThem) {
  // The crash input, less its first byte (which picked CBOR -> MessagePack): an
  // indefinite map {1: .., 1(double 0x0102000003c20405d9): .., 1(double
  // 0x010200d9d9d9d9d9): .., 2(4): 5}, the second float key at byte 23.
  const char* crash =
      "bf 01 d9 f9 2e d9 d9 d9 d6 13 c1 fb 01 02 00 03 c2 04 05 d9 d6 13 c1 fb 01 02 00 d9 d9 d9 "
      "d9 d9 80 80 03 c2 04 05 ff";
  EXPECT_REFUSED(CborToMsgpack(crash), "duplicate_key", 23, "/0");
  // Into CBOR a tagged float is not compared: the keys stay as they are.
  EXPECT_TRUE(CborToCbor(crash).status.ok());

  // {1(5.0): 0, 1(5): 0}: one timestamp of 5 s into MessagePack, two keys into CBOR.
  EXPECT_REFUSED(CborToMsgpack("a2 c1 fb 40 14 00 00 00 00 00 00 00 c1 05 00"), "duplicate_key", 13,
                 "/5");
  EXPECT_TRUE(CborToCbor("a2 c1 fb 40 14 00 00 00 00 00 00 00 c1 05 00").status.ok());
  // 1(1.9999999999) rounds to 2 s and no nanoseconds: the same key as 1(2).
  EXPECT_REFUSED(CborToMsgpack("a2 c1 fb 3f ff ff ff ff f9 20 c8 00 c1 02 00"), "duplicate_key", 13,
                 "/2");
  // With nanoseconds, {1(5.5): 0, 1(5.5): 0}: not compared by either reader.
  {
    Result r =
        CborToMsgpack("a2 c1 fb 40 16 00 00 00 00 00 00 00 c1 fb 40 16 00 00 00 00 00 00 00");
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.out,
              "82d7ff773594000000000500d7ff7735940000000005"
              "00");
    EXPECT_TRUE(Check(Format::kMsgpack, Hex(r.out)).status.ok());
  }

  // Tag 1001 {1: 5} and {1: 5, -9: 0} are the timestamp 5 s: the same key as 1(5).
  EXPECT_REFUSED(CborToMsgpack("a2 d9 03 e9 a1 01 05 00 c1 05 00"), "duplicate_key", 9, "/5");
  EXPECT_REFUSED(CborToMsgpack("a2 c1 05 00 d9 03 e9 a2 01 05 28 00 00"), "duplicate_key", 7, "/5");
  EXPECT_REFUSED(CborToMsgpack("a2 d9 03 e9 bf 01 05 ff 00 d9 03 e9 a1 01 05 00"), "duplicate_key",
                 12, "/5");
  // With nanoseconds, or past the map (1001 {1: 5, -9: 1} twice): not compared.
  {
    Result r = CborToMsgpack("a2 d9 03 e9 a2 01 05 28 01 00 d9 03 e9 a2 01 05 28 01 00");
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.out,
              "82d7ff000000040000000500d7ff00000004000000050"
              "0");
    EXPECT_TRUE(Check(Format::kMsgpack, Hex(r.out)).status.ok());
  }
  // Into CBOR and JSON a tag-1001 map is a container key: not compared, and refused by
  // the JSON writer (a member name must be text).
  EXPECT_TRUE(CborToCbor("a2 d9 03 e9 a1 01 05 00 c1 05 00").status.ok());
  EXPECT_EQ(CodeName(CborToJson("a2 d9 03 e9 a1 01 05 00 c1 05 00").status.code),
            "unrepresentable");

  // CBOR's tag for ext -1 on bytes: written into MessagePack only when the bytes are a
  // timestamp, and then judged as one.
  EXPECT_EQ(CodeName(CborToMsgpack("da 6d 70 00 ff 43 01 02 03").status.code), "unrepresentable");
  EXPECT_EQ(CodeName(CborToMsgpack("da 6d 70 00 ff 48 ff ff ff ff 00 00 00 05").status.code),
            "unrepresentable");
  EXPECT_EQ(CborToMsgpack("da 6d 70 00 ff 44 00 00 00 05").out, "d6ff00000005");
  EXPECT_REFUSED(CborToMsgpack("a2 da 6d 70 00 ff 44 00 00 00 05 00 c1 05 00"), "duplicate_key", 13,
                 "/5");
  EXPECT_TRUE(CborToCbor("a2 da 6d 70 00 ff 44 00 00 00 05 00 c1 05 00").status.ok());
}

// Found by review of the key identities (session 5): with bignum_as_double a bignum past
// 64 bits (or an integer below -2^63) becomes a double into MessagePack, and those that
// round to one double are one float key there, as is a float key of that value.
TEST(FuzzRegression, BignumsThatBecomeOneDoubleAreOneKey) {
  MappingOptions as_double;
  as_double.bignum_as_double = true;
  // 2^64 + 1 and 2^64 + 2: both the double 2^64.
  const char* map = "a2 c2 49 01 00 00 00 00 00 00 00 01 00 c2 49 01 00 00 00 00 00 00 00 02 00";
  EXPECT_EQ(CodeName(CborToMsgpack(map, {}, as_double).status.code), "duplicate_key");
  EXPECT_EQ(CodeName(CborToMsgpack("a2 c2 49 01 00 00 00 00 00 00 00 01 00 fa 5f 80 00 00 00", {},
                                   as_double)
                         .status.code),
            "duplicate_key");
  // 2^64 and 2^65: distinct doubles, distinct keys; the output is valid MessagePack.
  Result r = CborToMsgpack(
      "a2 c2 49 01 00 00 00 00 00 00 00 00 00 c2 49 02 00 00 00 00 00 00 00 00 00", {}, as_double);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.out,
            "82ca5f80000000ca600000000"
            "0");
  EXPECT_TRUE(Check(Format::kMsgpack, Hex(r.out)).status.ok());
  // Into CBOR the bignums stay: distinct.
  EXPECT_TRUE(CborToCbor(map, {}, as_double).status.ok());
  // An integer below -2^63 is a double there too: -2^64 and the float -2^64 are one key
  // (found by KeyIdentity.CborKeysAreDuplicatesExactlyWhenTheOutputsAre).
  EXPECT_REFUSED(CborToMsgpack("a2 3b ff ff ff ff ff ff ff ff 00 fa df 80 00 00 00", {}, as_double),
                 "duplicate_key", 11, "/-18446744073709551616");
  EXPECT_TRUE(
      CborToCbor("a2 3b ff ff ff ff ff ff ff ff 00 fa df 80 00 00 00", {}, as_double).status.ok());
}

}  // namespace
}  // namespace rosetta::codec::testing

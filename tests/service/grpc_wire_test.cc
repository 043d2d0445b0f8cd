// The gRPC protocol's own pieces (service/grpc_wire.h), against the specification's
// examples and against libprotobuf and zlib as the references.
#include "service/grpc_wire.h"

#include <zlib.h>

#include <gtest/gtest.h>

#include "rosetta/v1/transcoder.pb.h"

namespace rosetta::service::grpc {
namespace {

using std::chrono::nanoseconds;

TEST(GrpcWire, TimeoutUnits) {
  nanoseconds t;
  ASSERT_TRUE(ParseTimeout("1H", &t));
  EXPECT_EQ(t, std::chrono::hours(1));
  ASSERT_TRUE(ParseTimeout("2M", &t));
  EXPECT_EQ(t, std::chrono::minutes(2));
  ASSERT_TRUE(ParseTimeout("3S", &t));
  EXPECT_EQ(t, std::chrono::seconds(3));
  ASSERT_TRUE(ParseTimeout("300m", &t));
  EXPECT_EQ(t, std::chrono::milliseconds(300));
  ASSERT_TRUE(ParseTimeout("99999999u", &t));
  EXPECT_EQ(t, std::chrono::microseconds(99999999));
  ASSERT_TRUE(ParseTimeout("5n", &t));
  EXPECT_EQ(t, nanoseconds(5));
  // PROTOCOL-HTTP2.md: TimeoutValue is at most 8 digits; a unit is required.
  for (const char* bad : {"", "m", "123456789S", "12", "1x", "-1S", "1.5S"}) {
    EXPECT_FALSE(ParseTimeout(bad, &t)) << bad;
  }
}

TEST(GrpcWire, PercentEncodesOutsidePrintableAsciiAndPercent) {
  EXPECT_EQ(PercentEncode("plain text: ok!"), "plain text: ok!");
  EXPECT_EQ(PercentEncode("100%"), "100%25");
  EXPECT_EQ(PercentEncode("caf\xc3\xa9"), "caf%C3%A9");
  EXPECT_EQ(PercentEncode(std::string("a\nb\0c", 5)), "a%0Ab%00c");
  EXPECT_EQ(PercentEncode("\x7f~"), "%7F~");
}

TEST(GrpcWire, Base64WithoutPadding) {
  // RFC 4648 section 10, with the padding a -bin header leaves out.
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg");
  EXPECT_EQ(Base64("fo"), "Zm8");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64("\xff\xfe"), "//4");
}

TEST(GrpcWire, ReadsWhatLibprotobufWrites) {
  rosetta::v1::TranscodeRequest r;
  r.set_input_format(rosetta::v1::FORMAT_CBOR);
  r.set_output_format(rosetta::v1::FORMAT_MSGPACK);
  r.set_payload(std::string(300, 'x'));
  r.set_message_type("a.B");
  r.mutable_limits()->set_max_depth(7);
  r.set_schema("s");
  r.mutable_options()->set_pretty(true);
  const std::string wire = r.SerializeAsString();
  WireFields f;
  ASSERT_TRUE(ReadWireFields(wire, &f));
  EXPECT_EQ(f.varint[1], 2u);
  EXPECT_EQ(f.varint[2], 3u);
  EXPECT_EQ(f.bytes[3], r.payload());
  EXPECT_EQ(f.bytes[4], "a.B");
  EXPECT_EQ(f.bytes[5], r.limits().SerializeAsString());
  EXPECT_EQ(f.bytes[6], "s");
  EXPECT_EQ(f.bytes[7], r.options().SerializeAsString());
  for (int i = 1; i <= 7; ++i) EXPECT_EQ(f.seen[i], 1) << i;
  // The payload is a view into the message, not a copy.
  EXPECT_GE(f.bytes[3].data(), wire.data());
  EXPECT_LE(f.bytes[3].data() + f.bytes[3].size(), wire.data() + wire.size());

  // Last one wins for a repeated scalar, as in protobuf; unknown fields are skipped.
  WireFields g;
  const std::string twice("\x08\x01\x08\x03\x50\x05\x1a\x01y", 9);  // g's views point into it
  ASSERT_TRUE(ReadWireFields(twice, &g));
  EXPECT_EQ(g.varint[1], 3u);
  EXPECT_EQ(g.seen[1], 2);
  EXPECT_EQ(g.bytes[3], "y");
  // Truncated, a length past the end, a group, field number 0: not a message.
  for (std::string bad : {std::string("\x1a\x05xy", 4), std::string("\x08", 1),
                          std::string("\x0b", 1), std::string("\x00\x01", 2),
                          std::string("\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 11)}) {
    WireFields h;
    EXPECT_FALSE(ReadWireFields(bad, &h));
  }
  // The same field as two wire types: not what any of our messages can hold.
  WireFields k;
  EXPECT_FALSE(ReadWireFields(std::string("\x08\x01\x0a\x00", 4), &k));
}

TEST(GrpcWire, VarintSizeMatchesWhatIsAppended) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 16383ull, 16384ull, ~0ull}) {
    std::string out;
    AppendVarint(&out, v);
    EXPECT_EQ(out.size(), VarintSize(v)) << v;
  }
}

std::string Gzip(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(GrpcWire, GunzipBoundedByTheLimitNotByTheCompressedSize) {
  const std::string text(1 << 20, 'a');  // compresses about 1000 to 1
  const std::string gz = Gzip(text);
  ASSERT_LT(gz.size(), 4096u);
  std::string out;
  bool too_large = true;
  ASSERT_TRUE(Gunzip(gz, 1 << 20, &out, &too_large));
  EXPECT_FALSE(too_large);
  EXPECT_EQ(out, text);
  // One byte less allowed: refused as too large, having produced no more than the limit.
  EXPECT_FALSE(Gunzip(gz, (1 << 20) - 1, &out, &too_large));
  EXPECT_TRUE(too_large);
  EXPECT_LE(out.size(), (1u << 20) - 1);
  // Not gzip, or cut short: refused, not too large.
  EXPECT_FALSE(Gunzip("not gzip at all", 1 << 20, &out, &too_large));
  EXPECT_FALSE(too_large);
  EXPECT_FALSE(Gunzip(gz.substr(0, gz.size() / 2), 1 << 20, &out, &too_large));
  EXPECT_FALSE(too_large);
}

}  // namespace
}  // namespace rosetta::service::grpc

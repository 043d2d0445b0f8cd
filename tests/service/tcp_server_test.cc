// The TCP frame protocol (DESIGN.md "TCP protocol", service/tcp_server.cc): framing at
// every byte, pipelining, per-connection limits, and the guards against hostile or
// careless peers (oversized claims, slow senders, idle and surplus connections, clients
// that never read, bad frames).
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>

#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "heap/heap_counter.h"
#include "rosetta/codec/status.h"
#include "service_test_support.h"

namespace rosetta::service::testing {
namespace {

uint8_t StatusOf(codec::ErrorCode code) { return static_cast<uint8_t>(code); }

// [n] in CBOR: array(1), then n as the shortest unsigned (RFC 8949 section 3.1).
std::string CborArrayOfOne(int n) {
  std::string out = Hex("81");
  if (n >= 256) {
    out += Hex("19");
    out.push_back(static_cast<char>(n >> 8));
  } else if (n >= 24) {
    out += Hex("18");
  }
  out.push_back(static_cast<char>(n));
  return out;
}

std::string JsonArrayOfOne(int n) { return Cat({"[", std::to_string(n), "]"}); }

std::string DeepArray(int depth) {
  return Cat({std::string(depth, '['), "1", std::string(depth, ']')});
}

class TcpServerTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    ServiceConfig c = TestConfig();
    Configure(c);
    ASSERT_TRUE(StartServer(c));
  }
  virtual void Configure(ServiceConfig&) {}

  TcpClient Connect() { return TcpClient(server().tcp_address()); }
  double Rejected(const char* reason) {
    return MetricSum(Scrape(server()), "rosetta_rejected_total",
                     {"transport=\"tcp\"", std::string("reason=\"") + reason + "\""});
  }
  // Rejected(reason) == n, polled: the metric moves on a server thread.
  ::testing::AssertionResult RejectedBecomes(const char* reason, double n) {
    double last = -1;
    if (WaitUntil([&] { return (last = Rejected(reason)) == n; }))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "rosetta_rejected_total{reason=\"" << reason
                                         << "\"} is " << last << ", expected " << n;
  }
};

TEST_F(TcpServerTest, TranscodeValidateAndPing) {
  TcpClient c = Connect();
  ASSERT_TRUE(c.connected());
  auto r = c.Call(Frame(kTranscode, 7, kJson, kCbor, R"({"a":[1,2,3]})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 7, Hex("a1616183010203")}));

  r = c.Call(Frame(kValidate, 8, kCbor, 0, Hex("a1616183010203")));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 8, ""}));  // validate: status 0, no data

  r = c.Call(Frame(kValidate, 9, kJson, 0, "[1,}"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kSyntax));
  EXPECT_EQ(r->id, 9u);
  EXPECT_TRUE(r->data.starts_with("syntax at byte 3: ")) << r->data;

  // The message type travels between the header and the payload.
  r = c.Call(Frame(kTranscode, 11, kJson, 4, R"({"a":1})", "no.such.Message"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kUnknownMessageType));
  EXPECT_EQ(r->id, 11u);
  EXPECT_TRUE(r->data.starts_with("unknown_message_type at byte ")) << r->data;

  // Ping echoes its payload, whatever the bytes, and ignores the formats.
  for (std::string payload :
       {std::string("hi"), std::string(), std::string("\0\xff\x01 binary", 10)}) {
    r = c.Call(Frame(kPing, 10, 0, 0, payload));
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, (TcpResponse{1, 0, 10, payload}));
  }
}

// Beast's parsegrind (STYLE.md 8): the same three pipelined frames, fed one byte at a
// time and in every two-piece split, give the same three responses.
TEST_F(TcpServerTest, FramesSplitAtEveryByte) {
  const std::string stream = Frame(kTranscode, 1, kJson, kCbor, R"({"a":[1,2,3]})") +
                             Frame(kTranscode, 2, kJson, kCbor, "[1,}") +
                             Frame(kPing, 3, 0, 0, "ping!");
  auto read3 = [](TcpClient& c) {
    std::vector<TcpResponse> out;
    for (int i = 0; i < 3; ++i) {
      auto r = c.Read();
      if (!r) break;
      out.push_back(*r);
    }
    return out;
  };
  TcpClient whole = Connect();
  ASSERT_TRUE(whole.Send(stream));
  const std::vector<TcpResponse> expected = read3(whole);
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(expected[0], (TcpResponse{1, 0, 1, Hex("a1616183010203")}));
  EXPECT_EQ(expected[1].id, 2u);
  EXPECT_EQ(expected[1].status, StatusOf(codec::ErrorCode::kSyntax));
  EXPECT_EQ(expected[2], (TcpResponse{1, 0, 3, "ping!"}));

  // The short pauses only make it likely that the server reads each piece on its own;
  // the responses must be the same however the bytes are grouped.
  TcpClient bytewise = Connect();
  for (char b : stream) {
    ASSERT_TRUE(bytewise.Send(std::string_view(&b, 1)));
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_EQ(read3(bytewise), expected) << "one byte at a time";

  for (size_t split = 1; split < stream.size(); ++split) {
    TcpClient c = Connect();
    ASSERT_TRUE(c.Send(std::string_view(stream).substr(0, split)));
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    ASSERT_TRUE(c.Send(std::string_view(stream).substr(split)));
    EXPECT_EQ(read3(c), expected) << "split at byte " << split;
  }
}

// Many requests written at once: the responses come back in request order, each with its
// request's id.
TEST_F(TcpServerTest, PipelinedResponsesComeInRequestOrder) {
  constexpr int kCount = 400;
  std::string batch;
  std::vector<TcpResponse> expected;
  for (int i = 0; i < kCount; ++i) {
    const uint32_t id = 0x9e3779b9u * static_cast<uint32_t>(i + 1);  // ids in no order
    switch (i % 4) {
      case 0:  // [i] -> array(1) with i as the shortest CBOR unsigned
        batch += Frame(kTranscode, id, kJson, kCbor, JsonArrayOfOne(i));
        expected.push_back({1, 0, id, CborArrayOfOne(i)});
        break;
      case 1:
        batch += Frame(kPing, id, 0, 0, std::string("p").append(std::to_string(i)));
        expected.push_back({1, 0, id, std::string("p").append(std::to_string(i))});
        break;
      case 2:
        batch += Frame(kValidate, id, kJson, 0, Cat({"{\"k\":", std::to_string(i), "}"}));
        expected.push_back({1, 0, id, ""});
        break;
      case 3:
        batch += Frame(kTranscode, id, kJson, kMsgpack, "[1,2");
        expected.push_back({1, StatusOf(codec::ErrorCode::kTruncated), id, ""});
        break;
    }
  }
  TcpClient c = Connect();
  auto sent = std::async(std::launch::async, [&] { return c.Send(batch); });
  for (int i = 0; i < kCount; ++i) {
    auto r = c.Read();
    ASSERT_TRUE(r) << "response " << i;
    ASSERT_EQ(r->id, expected[i].id) << "response " << i << " out of order";
    EXPECT_EQ(r->status, expected[i].status) << i;
    if (expected[i].status == 0) {
      EXPECT_EQ(r->data, expected[i].data) << i;
    } else {
      EXPECT_TRUE(r->data.starts_with("truncated at byte ")) << r->data;
    }
  }
  EXPECT_TRUE(sent.get());
}

// A client that sends its requests and then shuts down its sending side (nc -N, a batch
// job) still gets every answer before the server closes.
TEST_F(TcpServerTest, HalfClosedClientGetsEveryAnswer) {
  TcpClient c = Connect();
  std::string batch;
  for (uint32_t id = 1; id <= 20; ++id)
    batch += Frame(kTranscode, id, kJson, kCbor, JsonArrayOfOne(static_cast<int>(id)));
  ASSERT_TRUE(c.Send(batch));
  ASSERT_EQ(::shutdown(c.fd(), SHUT_WR), 0);
  for (uint32_t id = 1; id <= 20; ++id) {
    auto r = c.Read();
    ASSERT_TRUE(r) << "answer " << id << " lost";
    EXPECT_EQ(*r, (TcpResponse{1, 0, id, CborArrayOfOne(static_cast<int>(id))}));
  }
  Ending end = c.WaitClosed();
  EXPECT_TRUE(end.closed);
  EXPECT_FALSE(end.reset);
  EXPECT_TRUE(end.extra.empty());
}

class TcpLimitsTest : public TcpServerTest {
  void Configure(ServiceConfig& c) override { c.limits.max_depth = 8; }
};

// Op 4 lowers this connection's limits; a higher value never raises them, and other
// connections keep the server's.
TEST_F(TcpLimitsTest, SetLimitsLowersOnlyThisConnection) {
  TcpClient a = Connect(), b = Connect();
  ASSERT_TRUE(a.connected() && b.connected());
  auto r = a.Call(Frame(kTranscode, 1, kJson, kCbor, DeepArray(3)));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0);

  r = a.Call(Frame(kSetLimits, 2, 0, 0, R"({"max_depth": 2})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 2, ""}));
  r = a.Call(Frame(kTranscode, 3, kJson, kCbor, DeepArray(3)));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDepthExceeded));
  EXPECT_EQ(r->id, 3u);
  EXPECT_TRUE(r->data.starts_with("depth_exceeded at byte ")) << r->data;

  // Asking for more does not give it back.
  r = a.Call(Frame(kSetLimits, 4, 0, 0, R"({"max_depth": 100})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0);
  r = a.Call(Frame(kTranscode, 5, kJson, kCbor, DeepArray(3)));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDepthExceeded));

  // The other connection still has the server's limits.
  r = b.Call(Frame(kTranscode, 6, kJson, kCbor, DeepArray(3)));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0) << r->data;

  // Nor can a fresh connection climb above the server's max_depth of 8.
  r = b.Call(Frame(kSetLimits, 7, 0, 0, R"({"max_depth": 1000})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0);
  r = b.Call(Frame(kTranscode, 8, kJson, kCbor, DeepArray(9)));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDepthExceeded));
  EXPECT_NE(r->data.find("max_depth 8"), std::string::npos) << r->data;

  // Sizes too: max_input_bytes 10 refuses an 11-byte payload on this connection.
  r = b.Call(Frame(kSetLimits, 9, 0, 0, R"({"max_input_bytes": 10})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0);
  r = b.Call(Frame(kTranscode, 10, kJson, kCbor, R"("123456789")"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kInputTooLarge));
}

// Op 5: every mapping option by its table name, for this connection only, from then on.
TEST_F(TcpServerTest, SetOptionsAppliesToThisConnectionOnly) {
  TcpClient a = Connect(), b = Connect();
  ASSERT_TRUE(a.connected() && b.connected());
  const std::string dup = R"({"a":1,"a":2})";
  auto r = a.Call(Frame(kTranscode, 1, kJson, kCbor, dup));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDuplicateKey)) << r->data;

  r = a.Call(
      Frame(kSetOptions, 2, 0, 0, R"({"allow_duplicate_keys": true, "base64_standard": true})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 2, ""}));
  r = a.Call(Frame(kTranscode, 3, kJson, kCbor, dup));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 3, Hex("a2 61 61 01 61 61 02")}));
  // base64_standard: h'41ff' is "Qf8=" (base64url without it: "Qf8").
  r = a.Call(Frame(kTranscode, 4, kCbor, kJson, Hex("42 41 ff")));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 4, R"("Qf8=")"}));
  // nonfinite_as_null: NaN into JSON.
  r = a.Call(Frame(kTranscode, 5, kCbor, kJson, Hex("f9 7e 00")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kUnrepresentable)) << r->data;
  r = a.Call(
      Frame(kSetOptions, 6, 0, 0, R"({"nonfinite_as_null": true, "allow_duplicate_keys": false})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 0) << r->data;
  r = a.Call(Frame(kTranscode, 7, kCbor, kJson, Hex("f9 7e 00")));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 7, "null"}));
  r = a.Call(Frame(kTranscode, 8, kJson, kCbor, dup));  // turned off again
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDuplicateKey)) << r->data;

  // The other connection kept the defaults.
  r = b.Call(Frame(kTranscode, 9, kCbor, kJson, Hex("42 41 ff")));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 9, R"("Qf8")"}));

  // Refusals change nothing: not an object, an unknown name, a non-boolean. (An option the
  // contract names but the build lacks would be refused `unsupported` too, but every option
  // is available now: format_assertion, the last one, is accepted below.)
  struct Bad {
    const char* payload;
    codec::ErrorCode code;
    const char* text;
  };
  for (const Bad& bad : {Bad{"[1]", codec::ErrorCode::kSchemaMismatch, "must be a JSON object"},
                         Bad{R"({"allow_duplicate_key": true})", codec::ErrorCode::kSchemaMismatch,
                             "unknown option"},
                         Bad{R"({"allow_duplicate_keys": true, "allow_duplicate_key": true})",
                             codec::ErrorCode::kSchemaMismatch, "unknown option"},
                         Bad{R"({"allow_duplicate_keys": 1})", codec::ErrorCode::kSchemaMismatch,
                             "true or false"}}) {
    SCOPED_TRACE(bad.payload);
    r = b.Call(Frame(kSetOptions, 10, 0, 0, bad.payload));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, StatusOf(bad.code));
    EXPECT_TRUE(r->data.starts_with(std::string(codec::CodeName(bad.code)) + " at byte 0: "))
        << r->data;
    EXPECT_NE(r->data.find(bad.text), std::string::npos) << r->data;
    r = b.Call(Frame(kTranscode, 11, kJson, kCbor, dup));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kDuplicateKey)) << r->data;
  }
  // format_assertion is accepted like any other option (its effect: schema_test).
  r = b.Call(Frame(kSetOptions, 12, 0, 0, R"({"format_assertion": true})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 12, ""}));
  r = b.Call(Frame(kTranscode, 13, kJson, kCbor, "1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 13, "\x01"}));
}

// The type field names a JSON Schema for non-protobuf payloads; none is loaded.
TEST_F(TcpServerTest, TypeFieldNamesASchemaForOtherFormats) {
  TcpClient c = Connect();
  ASSERT_TRUE(c.connected());
  auto r = c.Call(Frame(kValidate, 1, kJson, 0, R"({"a":1})", "order"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kUnknownSchema)) << r->data;
  EXPECT_EQ(r->data, R"(unknown_schema at byte 0: no schema named "order" is loaded)");
}

// A connection stays on one I/O thread, whose output buffer is warm after a large
// response: max_output_bytes must hold all the same.
TEST_F(TcpLimitsTest, OutputLimitHoldsOnAWarmThread) {
  TcpClient c = Connect();
  std::string big = "[";
  for (int i = 0; i < 2000; ++i) big += std::to_string(i) + ",";
  big.back() = ']';
  auto r = c.Call(Frame(kTranscode, 1, kJson, kJson, big));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->data, big);
  r = c.Call(Frame(kSetLimits, 2, 0, 0, R"({"max_output_bytes": 64})"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 0);
  std::string over = "[";
  for (int i = 1; i <= 30; ++i) over += std::to_string(i) + ",";
  over.back() = ']';  // 82 bytes, in and out
  r = c.Call(Frame(kTranscode, 3, kJson, kJson, over));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kOutputTooLarge)) << r->data;
  EXPECT_TRUE(r->data.starts_with("output_too_large at byte ")) << r->data;
  r = c.Call(Frame(kTranscode, 4, kJson, kJson, "[1,2,3]"));  // 7 bytes: fits
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 4, "[1,2,3]"}));
}

class TcpOneThreadTest : public TcpServerTest {
  void Configure(ServiceConfig& c) override { c.io_threads = 1; }
};

// Requests on one thread share its output buffer: an output_too_large must not colour the
// next request's error (a budget refusal stays budget_exceeded).
TEST_F(TcpOneThreadTest, EachRequestGetsItsOwnErrorOnASharedThread) {
  const std::string big =
      Cat({"\"", std::string(2 << 20, 'x'), "\""});  // 2 MiB out, past the kept 1 MiB
  TcpClient a = Connect(), b = Connect();
  auto r = a.Call(Frame(kSetLimits, 1, 0, 0, R"({"max_output_bytes": 1500000})"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 0);
  r = a.Call(Frame(kTranscode, 2, kJson, kJson, big));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kOutputTooLarge)) << r->data;

  r = b.Call(Frame(kSetLimits, 3, 0, 0, R"({"max_alloc_bytes": 1048576})"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 0);
  r = b.Call(Frame(kTranscode, 4, kJson, kJson, big));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kBudgetExceeded)) << r->data;
  r = b.Call(Frame(kTranscode, 5, kJson, kJson, "[1]"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 5, "[1]"}));
}

TEST_F(TcpLimitsTest, BadSetLimitsIsAnErrorAndTheConnectionGoesOn) {
  TcpClient c = Connect();
  for (const char* payload : {"not json", "[1]", R"({"max_depth": -1})", R"({"max_depth": "2"})",
                              R"({"no_such_limit": 1})"}) {
    SCOPED_TRACE(payload);
    auto r = c.Call(Frame(kSetLimits, 1, 0, 0, payload));
    ASSERT_TRUE(r);
    EXPECT_NE(r->status, 0);
    EXPECT_EQ(r->id, 1u);
    r = c.Call(Frame(kTranscode, 2, kJson, kCbor, DeepArray(8)));  // limits unchanged
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 0) << r->data;
  }
}

class TcpOversizedTest : public TcpServerTest {
 protected:
  void Configure(ServiceConfig& c) override { c.limits.max_input_bytes = 1 << 20; }
  uint64_t MaxFrame() const { return 10 + 0xffff + (1 << 20); }  // header + message type + payload
};

// A prefix claiming more than the connection accepts: exactly one error frame (request id
// 0, input_too_large), then an orderly close, and nothing allocated for the claim.
TEST_F(TcpOversizedTest, OversizedPrefixGetsOneErrorThenClose) {
  // Warm up everything a first connection allocates (threads' buffers, metric slots).
  TcpClient warm = Connect();
  ASSERT_TRUE(warm.Call(Frame(kPing, 1, 0, 0, "x")));
  warm.Close();
  const uint64_t rss_before = ResidentBytes();
  for (uint64_t claim : {uint64_t{0xFFFFFFFF}, uint64_t{0x80000000}, MaxFrame() + 1}) {
    SCOPED_TRACE(claim);
    TcpClient c = Connect();
    ASSERT_TRUE(c.connected());
    std::string prefix;
    PutBe32(prefix, static_cast<uint32_t>(claim));
    heap::Watch heap;
    const auto start = Clock::now();
    ASSERT_TRUE(c.Send(prefix + "\x01\x01"));
    auto r = c.Read();
    const double refused_ms = MillisSince(start);
    ASSERT_TRUE(r) << "no answer to an oversized prefix";
    EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kInputTooLarge));
    EXPECT_EQ(r->id, 0u);
    EXPECT_TRUE(r->data.starts_with("input_too_large")) << r->data;
    Ending end = c.WaitClosed();
    EXPECT_TRUE(end.closed) << "connection left open";
    EXPECT_FALSE(end.reset) << "reset instead of an orderly close";
    EXPECT_EQ(end.extra.size(), 0u) << "more than one response";
    const heap::Use claims = heap.Stop();
    if (heap::CountingActive()) {
      EXPECT_LT(claims.largest, 64u << 10) << "the server allocated for the claim";
      EXPECT_LT(claims.bytes, 1u << 20);
    }
    std::printf(
        "[ figure ] %llu-byte claim refused in %.3f ms; the process asked the heap for %llu bytes "
        "(largest %llu)\n",
        static_cast<unsigned long long>(claim), refused_ms,
        static_cast<unsigned long long>(claims.bytes),
        static_cast<unsigned long long>(claims.largest));
  }
  EXPECT_LT(ResidentBytes() - rss_before, uint64_t{16} << 20);
  EXPECT_TRUE(RejectedBecomes("frame_too_large", 3));
}

// The client keeps sending after its oversized prefix (the claimed body): a plain close
// would answer with a reset that can destroy the error response; the server must shut
// down its side and discard, so the answer still arrives and the close is orderly.
TEST_F(TcpOversizedTest, AnswerSurvivesInputStillArriving) {
  TcpClient c = Connect();
  std::string prefix;
  PutBe32(prefix, 0xFFFFFFFF);
  ASSERT_TRUE(c.Send(prefix + std::string(256 << 10, 'x')));
  auto r = c.Read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, StatusOf(codec::ErrorCode::kInputTooLarge));
  EXPECT_EQ(r->id, 0u);
  Ending end = c.WaitClosed();
  EXPECT_TRUE(end.closed);
  EXPECT_FALSE(end.reset);
  EXPECT_TRUE(end.extra.empty());
}

// Frames before the oversized one are answered first, in order.
TEST_F(TcpOversizedTest, EarlierFramesAnsweredBeforeTheRefusal) {
  TcpClient c = Connect();
  std::string prefix;
  PutBe32(prefix, 0xFFFFFFFF);
  ASSERT_TRUE(c.Send(Frame(kPing, 5, 0, 0, "a") + Frame(kPing, 6, 0, 0, "b") + prefix));
  auto a = c.Read(), b = c.Read(), refusal = c.Read();
  ASSERT_TRUE(a && b && refusal);
  EXPECT_EQ(*a, (TcpResponse{1, 0, 5, "a"}));
  EXPECT_EQ(*b, (TcpResponse{1, 0, 6, "b"}));
  EXPECT_EQ(refusal->id, 0u);
  EXPECT_EQ(refusal->status, StatusOf(codec::ErrorCode::kInputTooLarge));
  EXPECT_TRUE(c.WaitClosed().closed);
}

class TcpFrameTimeoutTest : public TcpServerTest {
 protected:
  void Configure(ServiceConfig& c) override {
    c.limits.max_input_bytes = 256 << 20;
    c.tcp_frame_timeout_ms = 300;
    c.tcp_idle_timeout_ms = 10000;
  }
};

// A slow sender: a started frame must be complete within tcp_frame_timeout_ms, however
// steadily its bytes trickle in.
TEST_F(TcpFrameTimeoutTest, SlowSenderClosedAtFrameDeadline) {
  TcpClient c = Connect();
  ASSERT_TRUE(c.Call(Frame(kPing, 1, 0, 0, "")));  // a finished frame resets nothing bad
  const std::string frame =
      Frame(kTranscode, 2, kJson, kCbor, Cat({"[", std::string(1000, '1'), "]"}));
  const auto start = Clock::now();
  size_t sent = 0;
  Ending end;
  while (sent < frame.size() && !end.closed) {
    if (!c.Send(std::string_view(frame).substr(sent, 1))) break;  // the server has gone
    ++sent;
    end = c.WaitClosed(milliseconds(50));  // one byte every 50 ms: progress, but slow
  }
  if (!end.closed) end = c.WaitClosed();
  const double closed_after = MillisSince(start);
  EXPECT_TRUE(end.closed);
  EXPECT_LT(sent, frame.size()) << "the whole frame got through";
  EXPECT_GE(closed_after, 250);
  EXPECT_LT(closed_after, 5000) << "not closed at the frame deadline";
  EXPECT_TRUE(RejectedBecomes("frame_timeout", 1));
  EXPECT_EQ(Rejected("idle_timeout"), 0);
}

// A claim inside the connection's limit costs only the bytes that arrived: 200 MiB
// announced, 1 KiB sent, then silence until the frame deadline.
TEST_F(TcpFrameTimeoutTest, ClaimWithinLimitAllocatesOnlyWhatArrives) {
  TcpClient c = Connect();
  ASSERT_TRUE(c.Call(Frame(kPing, 1, 0, 0, "")));
  std::string partial;
  PutBe32(partial, 200u << 20);
  partial += Frame(kTranscode, 2, kJson, kCbor, "").substr(4);
  partial += "[";
  partial += std::string(1023, '1');
  heap::Watch heap;
  const uint64_t rss_before = ResidentBytes();
  ASSERT_TRUE(c.Send(partial));
  Ending end = c.WaitClosed();  // the frame deadline: by then the server has read it all
  ASSERT_TRUE(end.closed);
  const heap::Use claims = heap.Stop();
  if (heap::CountingActive()) {
    EXPECT_LT(claims.largest, 1u << 20) << "the server allocated for the claim";
    EXPECT_LT(claims.bytes, 2u << 20);
  }
  EXPECT_LT(ResidentBytes() - rss_before, uint64_t{16} << 20);
  EXPECT_TRUE(RejectedBecomes("frame_timeout", 1));
}

class TcpIdleTest : public TcpServerTest {
 protected:
  void Configure(ServiceConfig& c) override {
    c.tcp_idle_timeout_ms = 500;
    c.tcp_frame_timeout_ms = 5000;
  }
};

TEST_F(TcpIdleTest, IdleConnectionClosedAfterIdleTimeout) {
  TcpClient idle = Connect(), busy = Connect();
  ASSERT_TRUE(busy.Call(Frame(kPing, 1, 0, 0, "")));
  const auto start = Clock::now();
  // busy keeps making progress (a ping every 50 ms) and stays open past the idle timeout.
  Ending idle_end;
  double idle_closed_at = 0;
  while (MillisSince(start) < 1500) {
    auto r = busy.Call(Frame(kPing, 2, 0, 0, "alive"));
    ASSERT_TRUE(r) << "an active connection was closed after " << MillisSince(start) << " ms";
    EXPECT_EQ(r->data, "alive");
    if (!idle_end.closed) {
      idle_end = idle.WaitClosed(milliseconds(50));
      if (idle_end.closed) idle_closed_at = MillisSince(start);
    } else {
      std::this_thread::sleep_for(milliseconds(50));  // pacing the pings, not waiting for anything
    }
  }
  ASSERT_TRUE(idle_end.closed) << "idle connection still open after 1500 ms";
  EXPECT_GE(idle_closed_at, 450);
  EXPECT_LT(idle_closed_at, 1500);
  EXPECT_TRUE(RejectedBecomes("idle_timeout", 1));
  EXPECT_EQ(Rejected("frame_timeout"), 0);
}

class TcpConnectionCapTest : public TcpServerTest {
 protected:
  void Configure(ServiceConfig& c) override { c.tcp_max_connections = 3; }
};

TEST_F(TcpConnectionCapTest, ConnectionOverCapClosedAtOnce) {
  std::vector<TcpClient> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(Connect());
    ASSERT_TRUE(open.back().Call(Frame(kPing, static_cast<uint32_t>(i), 0, 0, "ok")));
  }
  TcpClient extra = Connect();
  ASSERT_TRUE(extra.connected());  // the kernel accepts; the server closes it at once
  const auto start = Clock::now();
  Ending end = extra.WaitClosed(milliseconds(5000));
  EXPECT_TRUE(end.closed);
  EXPECT_LT(MillisSince(start), 3000);  // at once: no request, no timeout involved
  EXPECT_TRUE(RejectedBecomes("connection_cap", 1));
  for (TcpClient& c : open) EXPECT_TRUE(c.Call(Frame(kPing, 9, 0, 0, "still here")));

  // A freed slot is usable again.
  open.pop_back();
  ASSERT_TRUE(WaitUntil([&] {
    return MetricSum(Scrape(server()), "rosetta_connections_active", {"transport=\"tcp\""}) == 2;
  }));
  TcpClient again = Connect();
  auto r = again.Call(Frame(kPing, 10, 0, 0, "again"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "again");
}

class TcpBackpressureTest : public TcpServerTest {
 protected:
  void Configure(ServiceConfig& c) override {
    c.tcp_max_pending_bytes = 64 << 10;
    c.tcp_frame_timeout_ms = 20000;
    c.tcp_idle_timeout_ms = 20000;
  }
};

// A client that sends and never reads: once its unsent responses pass
// tcp_max_pending_bytes the server stops reading it, so the server's memory stays bounded
// however much the client would like answered, and other connections are still served.
TEST_F(TcpBackpressureTest, ClientThatNeverReadsCannotGrowTheServer) {
  // CBOR array(50000) of false -> "[false,false,...]": each 50 KB request owes 300 KB.
  constexpr size_t kItems = 50000;
  const std::string cbor = Hex("99c350") + std::string(kItems, '\xf4');  // array(50000) of false
  constexpr size_t kResponseBytes = 1 + kItems * 6;  // "[" + "false," ... "false]"
  std::vector<std::string> frames;
  for (uint32_t id = 1; id <= 2000; ++id)
    frames.push_back(Frame(kTranscode, id, kCbor, kJson, cbor));

  TcpClient hog = Connect();
  ASSERT_TRUE(hog.connected());
  {  // the server's answer to one request, to know it right
    auto r = hog.Call(Frame(kTranscode, 0, kCbor, kJson, cbor));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 0) << r->data;
    ASSERT_EQ(r->data.size(), kResponseBytes);
  }
  const uint64_t heap_before = HeapInUse(), rss_before = ResidentBytes();
  ::fcntl(hog.fd(), F_SETFL, ::fcntl(hog.fd(), F_GETFL) | O_NONBLOCK);
  size_t frames_sent = 0, partial = 0;
  while (frames_sent < frames.size()) {
    const std::string& f = frames[frames_sent];
    ssize_t n = ::send(hog.fd(), f.data() + partial, f.size() - partial, MSG_NOSIGNAL);
    if (n > 0) {
      partial += static_cast<size_t>(n);
      if (partial == f.size()) {
        ++frames_sent;
        partial = 0;
      }
      continue;
    }
    ASSERT_TRUE(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) << std::strerror(errno);
    pollfd p{hog.fd(), POLLOUT, 0};
    if (::poll(&p, 1, 1000) == 0) break;  // the server has stopped reading us
  }
  const uint64_t owed = frames_sent * kResponseBytes;
  std::printf("[ figure ] never-reading client: %zu requests sent, %llu MiB of responses owed\n",
              frames_sent, static_cast<unsigned long long>(owed >> 20));
  ASSERT_LT(frames_sent, frames.size()) << "the server read everything: no backpressure";
  // What a server that honours tcp_max_pending_bytes holds for this connection: 64 KiB of
  // responses plus the one being written (300 KB), a frame and the read-ahead (~256 KiB),
  // and the thread's output buffer (~300 KB). One that does not: everything owed, less
  // what the kernel's socket buffers take (a few MiB).
  constexpr uint64_t kBound = 4 << 20;
  EXPECT_GT(owed, 3 * kBound) << "the test could not push enough to tell";

  // Another connection is served while the hog is stalled.
  TcpClient other = Connect();
  auto r = other.Call(Frame(kTranscode, 1, kJson, kCbor, "[true]"), milliseconds(2000));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 1, Hex("81f5")}));

  // Memory stays bounded; give a server without backpressure time to show itself.
  uint64_t heap_grew = 0, rss_grew = 0;
  WaitUntil(
      [&] {
        heap_grew = std::max<uint64_t>(heap_grew, HeapInUse() - std::min(HeapInUse(), heap_before));
        rss_grew =
            std::max<uint64_t>(rss_grew, ResidentBytes() - std::min(ResidentBytes(), rss_before));
        return heap_grew > kBound;
      },
      milliseconds(500));
  std::printf("[ figure ] while stalled: heap +%llu KiB, RSS +%llu KiB\n",
              static_cast<unsigned long long>(heap_grew >> 10),
              static_cast<unsigned long long>(rss_grew >> 10));
  EXPECT_LT(heap_grew, kBound);
#if !defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer freed memory stays resident in its quarantine: RSS says nothing
  // there, and the heap figure above is the measure.
  EXPECT_LT(rss_grew, kBound);
#endif

  // Reading again resumes the connection: every owed response, in order.
  ::fcntl(hog.fd(), F_SETFL, ::fcntl(hog.fd(), F_GETFL) & ~O_NONBLOCK);
  for (size_t i = 0; i < frames_sent; ++i) {
    auto resp = hog.Read();
    ASSERT_TRUE(resp) << "response " << i;
    ASSERT_EQ(resp->id, i + 1);
    ASSERT_EQ(resp->status, 0);
    ASSERT_EQ(resp->data.size(), kResponseBytes);
  }
  if (partial > 0) {
    ASSERT_TRUE(hog.Send(std::string_view(frames[frames_sent]).substr(partial)));
    auto last = hog.Read();
    ASSERT_TRUE(last);
    EXPECT_EQ(last->id, frames_sent + 1);
  }
}

// What an open, idle connection costs the server once it has answered a request: a
// gateway holds thousands.
TEST_F(TcpServerTest, IdleConnectionsCostLittleMemory) {
  constexpr int kConnections = 500;
  ASSERT_TRUE(Connect().Call(Frame(kPing, 1, 0, 0, "warm")));
  std::vector<TcpClient> clients;
  clients.reserve(kConnections);
  const uint64_t heap_before = HeapInUse(), rss_before = ResidentBytes();
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(Connect());
    ASSERT_TRUE(clients.back().Call(Frame(kPing, static_cast<uint32_t>(i), 0, 0, "x"))) << i;
  }
  const double heap_each = static_cast<double>(HeapInUse() - heap_before) / kConnections;
  const double rss_each =
      static_cast<double>(ResidentBytes() - std::min(ResidentBytes(), rss_before)) / kConnections;
  std::printf(
      "[ figure ] idle connection after one request: %.0f bytes of heap, %.0f bytes of RSS (user "
      "space)\n",
      heap_each, rss_each);
  EXPECT_LT(heap_each, 16 << 10);
  EXPECT_DOUBLE_EQ(MetricSum(Scrape(server()), "rosetta_connections_active", {"transport=\"tcp\""}),
                   kConnections);
}

// The status byte is the codec's error code number (docs/tcp-protocol.md "Status codes"):
// clients match on these numbers, so they may never move.
TEST(TcpStatusCodes, NumbersMatchTheProtocolTable) {
  using codec::ErrorCode;
  const std::pair<ErrorCode, int> table[] = {
      {ErrorCode::kTruncated, 1},           {ErrorCode::kSyntax, 2},
      {ErrorCode::kInvalidUtf8, 3},         {ErrorCode::kDepthExceeded, 4},
      {ErrorCode::kInputTooLarge, 5},       {ErrorCode::kOutputTooLarge, 6},
      {ErrorCode::kStringTooLarge, 7},      {ErrorCode::kTooManyItems, 8},
      {ErrorCode::kBudgetExceeded, 9},      {ErrorCode::kDuplicateKey, 10},
      {ErrorCode::kUnrepresentable, 11},    {ErrorCode::kSchemaMismatch, 12},
      {ErrorCode::kUnknownMessageType, 13}, {ErrorCode::kTrailingData, 14},
      {ErrorCode::kUnsupported, 15},        {ErrorCode::kSchemaViolation, 16},
      {ErrorCode::kUnknownSchema, 17},      {ErrorCode::kNotDeterministic, 18},
      {ErrorCode::kOverloaded, 19},
  };
  for (auto [code, number] : table) EXPECT_EQ(StatusOf(code), number) << codec::CodeName(code);
}

double ProcessCpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int HighestOpenFd() {
  int highest = 0;
  DIR* d = opendir("/proc/self/fd");
  while (dirent* e = d ? readdir(d) : nullptr) {
    if (e->d_name[0] != '.') highest = std::max(highest, std::atoi(e->d_name));
  }
  if (d) closedir(d);
  return highest;
}

// The process out of file descriptors while a client waits in the listen backlog: the
// server must not spin on accept (a core at 100% for as long as the shortage lasts) and
// must not leave the client hanging: its reserve descriptor accepts and closes it (counted
// as out_of_descriptors). Once descriptors are free again, a new client is served.
TEST_F(TcpServerTest, RunningOutOfDescriptorsDoesNotSpin) {
  // The warm client stays open to the end: were it dropped here, the server would close its
  // side whenever it next read, which could be after the table below is full, freeing a
  // descriptor for the accept that must find none.
  TcpClient warm = Connect();
  ASSERT_TRUE(warm.Call(Frame(kPing, 1, 0, 0, "warm")));
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  std::vector<int> filler;
  struct Restore {
    rlimit limit;
    std::vector<int>& fds;
    ~Restore() {
      for (int fd : fds) ::close(fd);
      setrlimit(RLIMIT_NOFILE, &limit);
    }
  } restore{old, filler};
  rlimit low = old;
  low.rlim_cur = static_cast<rlim_t>(HighestOpenFd() + 64);  // a table small enough to fill
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  for (int fd; (fd = ::dup(STDERR_FILENO)) >= 0;) filler.push_back(fd);
  ASSERT_EQ(errno, EMFILE);
  ::close(filler.back());  // one descriptor free: the client's; none for the server's accept
  filler.pop_back();
  TcpClient waiting = Connect();
  ASSERT_TRUE(waiting.connected()) << std::strerror(waiting.connect_errno());

  const double cpu_before = ProcessCpuMs();
  const auto start = Clock::now();
  std::this_thread::sleep_for(milliseconds(300));  // the span over which CPU use is measured
  const double cpu_ms = ProcessCpuMs() - cpu_before, wall_ms = MillisSince(start);
  std::printf("[ figure ] out of descriptors: %.0f ms of CPU over %.0f ms\n", cpu_ms, wall_ms);
  EXPECT_LT(cpu_ms, wall_ms / 3) << "the accept loop spins while descriptors are short";

  for (int i = 0; i < 8 && !filler.empty(); ++i) {  // descriptors free again
    ::close(filler.back());
    filler.pop_back();
  }
  EXPECT_FALSE(waiting.Call(Frame(kPing, 2, 0, 0, "shed"), milliseconds(3000)))
      << "a client that arrived while descriptors were out is closed, not served later";
  auto r = Connect().Call(Frame(kPing, 3, 0, 0, "served"), milliseconds(3000));
  ASSERT_TRUE(r) << "the listener did not come back once descriptors were free";
  EXPECT_EQ(r->data, "served");
}

// Frames the server cannot read as requests get an error response each, and the
// connection goes on: every bad frame below is followed by a ping that must be answered.
TEST_F(TcpServerTest, BadFramesGetAnErrorAndTheConnectionGoesOn) {
  struct Case {
    const char* what;
    std::string frame;
    uint32_t id;       // expected response id
    uint8_t status;    // expected status
    const char* code;  // expected start of the data
  };
  std::string type_too_long = Frame(kTranscode, 23, kJson, kCbor, "");
  type_too_long[12] = 0x7f;  // type_len 0x7f00 in a 10-byte body
  const std::vector<Case> cases = {
      {"short frame", Framed("\x01\x03\x00"), 0, StatusOf(codec::ErrorCode::kSyntax), "syntax"},
      {"empty frame", Framed(""), 0, StatusOf(codec::ErrorCode::kSyntax), "syntax"},
      {"bad version", Frame(kPing, 21, 0, 0, "x", "", 2), 21,
       StatusOf(codec::ErrorCode::kUnsupported), "unsupported"},
      {"unknown op 9", Frame(9, 22, kJson, kCbor, "1"), 22,
       StatusOf(codec::ErrorCode::kUnsupported), "unsupported"},
      {"op 0", Frame(0, 24, kJson, kCbor, "1"), 24, StatusOf(codec::ErrorCode::kUnsupported),
       "unsupported"},
      {"type past the frame", type_too_long, 23, StatusOf(codec::ErrorCode::kSyntax), "syntax"},
      {"unknown format", Frame(kTranscode, 25, 9, kCbor, "1"), 25,
       StatusOf(codec::ErrorCode::kUnsupported), "unsupported"},
  };
  TcpClient c = Connect();
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    ASSERT_TRUE(c.Send(k.frame + Frame(kPing, 99, 0, 0, "after")));
    auto bad = c.Read(), ping = c.Read();
    ASSERT_TRUE(bad && ping) << "connection closed";
    EXPECT_EQ(bad->id, k.id);
    EXPECT_EQ(bad->status, k.status);
    EXPECT_TRUE(bad->data.starts_with(k.code)) << bad->data;
    EXPECT_EQ(*ping, (TcpResponse{1, 0, 99, "after"}));
  }
  EXPECT_TRUE(RejectedBecomes("bad_frame", 6));  // all but the unknown format, which is a request
}

}  // namespace
}  // namespace rosetta::service::testing

// rosetta.v1.Transcoder over gRPC (DESIGN.md "gRPC"): every RPC, the status mapping with
// the Error in trailing metadata, per-request limits, and health checking.
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "grpc/health/v1/health.grpc.pb.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "service_test_support.h"

namespace rosetta::service::testing {
namespace {

namespace v1 = rosetta::v1;
using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

class GrpcServerTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    ASSERT_TRUE(StartServer(Config()));
    stub_ = TranscoderStub(server().grpc_address());
  }
  virtual ServiceConfig Config() { return TestConfig(); }

  struct Outcome {
    grpc::Status status;
    v1::TranscodeResponse response;
    std::optional<v1::Error> error;  // from the trailers
  };
  Outcome Transcode(const v1::TranscodeRequest& request) {
    grpc::ClientContext context;
    SetDeadline(context);
    Outcome o;
    o.status = stub_->Transcode(&context, request, &o.response);
    o.error = TrailingError(context);
    return o;
  }

  std::unique_ptr<v1::Transcoder::Stub> stub_;
};

TEST_F(GrpcServerTest, TranscodesBetweenFormats) {
  Outcome o = Transcode(Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"a":[1,2,3]})"));
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(ToHex(o.response.payload()), "a1616183010203");  // RFC 8949: map(1) "a" array(3) 1 2 3
  EXPECT_FALSE(o.error.has_value());

  o = Transcode(Req(v1::FORMAT_CBOR, v1::FORMAT_JSON, Hex("a1616183010203")));
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), R"({"a":[1,2,3]})");

  o = Transcode(Req(v1::FORMAT_JSON, v1::FORMAT_MSGPACK, R"({"a":[1,2,3]})"));
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(ToHex(o.response.payload()), "81a16193010203");  // fixmap(1) fixstr "a" fixarray(3)
}

// Malformed input: INVALID_ARGUMENT, "CODE at byte OFFSET: MESSAGE", and the Error itself in
// the trailers with the location of the bad value.
TEST_F(GrpcServerTest, MalformedIsInvalidArgumentWithErrorInTrailers) {
  Outcome o = Transcode(Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"a":[1,2,}")"));
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(o.error.has_value()) << "no rosetta-error-bin trailer";
  EXPECT_EQ(o.error->code(), "syntax");
  EXPECT_EQ(o.error->offset(), 10u);  // the '}' where the third element should be
  EXPECT_EQ(o.error->path(), "/a/2");
  EXPECT_FALSE(o.error->message().empty());
  EXPECT_EQ(o.status.error_message(), "syntax at byte 10: " + o.error->message());
  EXPECT_TRUE(o.response.payload().empty());
}

TEST_F(GrpcServerTest, UnrepresentableIsInvalidArgument) {
  // Beyond 64 bits: CBOR carries it as a bignum, MessagePack has no form for it.
  Outcome o = Transcode(Req(v1::FORMAT_JSON, v1::FORMAT_MSGPACK, "18446744073709551616000"));
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->code(), "unrepresentable");
  EXPECT_TRUE(o.status.error_message().starts_with("unrepresentable at byte "))
      << o.status.error_message();
}

// The schema class of errors: a protobuf message type the server has no descriptor for.
TEST_F(GrpcServerTest, UnknownMessageTypeIsInvalidArgument) {
  v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_PROTOBUF, R"({"a":1})");
  r.set_message_type("no.such.Message");
  Outcome o = Transcode(r);
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << o.status.error_message();
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->code(), "unknown_message_type");
}

TEST_F(GrpcServerTest, UnknownFormatIsInvalidArgument) {
  Outcome o = Transcode(Req(v1::FORMAT_UNSPECIFIED, v1::FORMAT_CBOR, "1"));
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->code(), "unsupported");
}

// Every limit of DESIGN.md "Limits" maps to RESOURCE_EXHAUSTED with its own code.
TEST_F(GrpcServerTest, EveryLimitIsResourceExhausted) {
  struct Case {
    const char* code;
    v1::Format in, out;
    std::string payload;
    v1::Limits limits;
  };
  auto limits = [](auto set) {
    v1::Limits l;
    set(l);
    return l;
  };
  // 2 MiB byte string -> 2.7 MiB of base64 text: output growth past what a thread keeps
  // (1 MiB), under gRPC's default 4 MiB client receive limit.
  std::string big_bytes = Hex("5a00200000") + std::string(2 << 20, '\x07');
  const std::vector<Case> cases = {
      {"input_too_large", v1::FORMAT_JSON, v1::FORMAT_CBOR, "[1,2,3,4]",
       limits([](v1::Limits& l) { l.set_max_input_bytes(3); })},
      {"output_too_large", v1::FORMAT_JSON, v1::FORMAT_JSON, "[1,2,3,4]",
       limits([](v1::Limits& l) { l.set_max_output_bytes(3); })},
      {"depth_exceeded", v1::FORMAT_JSON, v1::FORMAT_CBOR, "[[[1]]]",
       limits([](v1::Limits& l) { l.set_max_depth(2); })},
      {"string_too_large", v1::FORMAT_JSON, v1::FORMAT_CBOR, R"("aaaaaaaaaa")",
       limits([](v1::Limits& l) { l.set_max_string_bytes(4); })},
      {"too_many_items", v1::FORMAT_JSON, v1::FORMAT_CBOR, "[1,2,3,4]",
       limits([](v1::Limits& l) { l.set_max_items(2); })},
      {"budget_exceeded", v1::FORMAT_CBOR, v1::FORMAT_JSON, big_bytes,
       limits([](v1::Limits& l) { l.set_max_alloc_bytes(1 << 20); })},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    v1::TranscodeRequest r = Req(c.in, c.out, c.payload);
    *r.mutable_limits() = c.limits;
    Outcome o = Transcode(r);
    EXPECT_EQ(o.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << o.status.error_message();
    ASSERT_TRUE(o.error.has_value());
    EXPECT_EQ(o.error->code(), c.code);
    EXPECT_TRUE(o.status.error_message().starts_with(std::string(c.code) + " at byte "))
        << o.status.error_message();
    // Without the request's limit the same payload goes through.
    r.clear_limits();
    EXPECT_TRUE(Transcode(r).status.ok());
  }
}

TEST_F(GrpcServerTest, OptionsReachTheCodec) {
  v1::TranscodeRequest r = Req(v1::FORMAT_CBOR, v1::FORMAT_JSON, Hex("42 41 ff"));
  Outcome o = Transcode(r);
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), R"("Qf8")");
  r.mutable_options()->set_base64_standard(true);
  o = Transcode(r);
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), R"("Qf8=")");

  r = Req(v1::FORMAT_JSON, v1::FORMAT_MSGPACK, R"({"a":1,"a":2})");
  o = Transcode(r);
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->code(), "duplicate_key");
  r.mutable_options()->set_allow_duplicate_keys(true);
  o = Transcode(r);
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), Hex("82 a1 61 01 a1 61 02"));

  // Validate too: the option decides the verdict.
  v1::ValidateRequest v;
  v.set_format(v1::FORMAT_JSON);
  v.set_payload(R"({"a":1,"a":2})");
  for (bool allow : {false, true}) {
    v.mutable_options()->set_allow_duplicate_keys(allow);
    v1::ValidateResponse resp;
    grpc::ClientContext context;
    SetDeadline(context);
    ASSERT_TRUE(stub_->Validate(&context, v, &resp).ok());
    EXPECT_EQ(resp.valid(), allow);
  }

  // format_assertion, the last option of the contract this build lacked, is accepted (what
  // it changes, `format` asserted against a schema, is in schema_test). Every row of
  // kOptionTable is available now, so the refusal of an unavailable option (`unsupported`,
  // codec::UnavailableOption) can no longer be reached through a real option: it is not
  // tested here rather than faked.
  for (const codec::OptionInfo& info : codec::kOptionTable)
    EXPECT_TRUE(info.available) << info.name;
  r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, "1");
  r.mutable_options()->set_format_assertion(true);
  o = Transcode(r);
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), "\x01");

  // deterministic: the map's keys in bytewise order of their encodings.
  r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"b":1,"a":2})");
  r.mutable_options()->set_deterministic(true);
  o = Transcode(r);
  ASSERT_TRUE(o.status.ok()) << o.status.error_message();
  EXPECT_EQ(o.response.payload(), std::string("\xa2\x61\x61\x02\x61\x62\x01", 7));
}

TEST_F(GrpcServerTest, UnloadedSchemaIsUnknownSchema) {
  v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, "1");
  r.set_schema("order");
  Outcome o = Transcode(r);
  EXPECT_EQ(o.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->code(), "unknown_schema");
  EXPECT_EQ(o.status.error_message(),
            R"(unknown_schema at byte 0: no schema named "order" is loaded)");
}

// The proto's Limits and Options against the codec's tables: every row has its field
// (same name, same type) and every field its row, so a new limit or option cannot reach
// one front-end and miss another.
TEST(ProtoTables, LimitsAndOptionsMatchTheCodecTables) {
  const google::protobuf::Descriptor* limits = v1::Limits::descriptor();
  ASSERT_EQ(static_cast<size_t>(limits->field_count()), codec::kLimitTable.size());
  for (const codec::LimitInfo& info : codec::kLimitTable) {
    const google::protobuf::FieldDescriptor* f = limits->FindFieldByName(std::string(info.name));
    ASSERT_NE(f, nullptr) << info.name;
    codec::Limits l;
    info.set(l, ~uint64_t{0});
    // The proto field is as wide as the codec's.
    EXPECT_EQ(f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT32,
              info.get(l) == 0xffffffffu)
        << info.name;
  }
  const google::protobuf::Descriptor* options = v1::Options::descriptor();
  ASSERT_EQ(static_cast<size_t>(options->field_count()), codec::kOptionTable.size());
  for (size_t i = 0; i < codec::kOptionTable.size(); ++i) {
    const google::protobuf::FieldDescriptor* f = options->field(static_cast<int>(i));
    EXPECT_EQ(f->name(), codec::kOptionTable[i].name);  // same order as the field numbers
    EXPECT_EQ(f->number(), static_cast<int>(i) + 1);
    EXPECT_EQ(f->cpp_type(), google::protobuf::FieldDescriptor::CPPTYPE_BOOL);
  }
}

TEST_F(GrpcServerTest, ValidateAnswersBadPayloadInTheResponse) {
  struct Case {
    v1::Format format;
    std::string payload;
    const char* code;  // "" for a valid payload
    uint64_t offset;
    const char* path;
  };
  const std::vector<Case> cases = {
      {v1::FORMAT_JSON, R"({"a":[1,2,3]})", "", 0, ""},
      {v1::FORMAT_JSON, R"({"a":[1,2,}")", "syntax", 10, "/a/2"},
      {v1::FORMAT_MSGPACK, Hex("a2c328"), "invalid_utf8", 0,
       ""},  // fixstr(2) holding a bad UTF-8 sequence
      {v1::FORMAT_CBOR, Hex("a1616183010203"), "", 0, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.payload);
    v1::ValidateRequest r;
    r.set_format(c.format);
    r.set_payload(c.payload);
    v1::ValidateResponse resp;
    grpc::ClientContext context;
    SetDeadline(context);
    grpc::Status s = stub_->Validate(&context, r, &resp);
    ASSERT_TRUE(s.ok()) << "Validate itself failed: " << s.error_message();
    EXPECT_EQ(resp.valid(), std::string(c.code).empty());
    EXPECT_EQ(resp.error().code(), c.code);
    if (*c.code) {
      EXPECT_EQ(resp.error().offset(), c.offset);
      EXPECT_EQ(resp.error().path(), c.path);
      EXPECT_FALSE(resp.error().message().empty());
    }
  }
  // A limit is a verdict too, not a failed RPC.
  v1::ValidateRequest r;
  r.set_format(v1::FORMAT_JSON);
  r.set_payload("[[[1]]]");
  r.mutable_limits()->set_max_depth(2);
  v1::ValidateResponse resp;
  grpc::ClientContext context;
  SetDeadline(context);
  ASSERT_TRUE(stub_->Validate(&context, r, &resp).ok());
  EXPECT_FALSE(resp.valid());
  EXPECT_EQ(resp.error().code(), "depth_exceeded");
}

// One bad message in the middle of a stream: its response carries the error, the stream
// goes on and the later responses are right. Each request waits for its response, so a
// response can only belong to the request just sent.
TEST_F(GrpcServerTest, StreamGoesOnAfterBadMessage) {
  struct Step {
    std::string payload;
    const char* cbor_hex;  // expected output, or nullptr
    const char* code;      // expected error code, or nullptr
  };
  const std::vector<Step> steps = {
      {"1", "01", nullptr},
      {R"({"a":[1,2,}")", nullptr, "syntax"},
      {R"("x")", "6178", nullptr},
      {"[[[[1]]]]", nullptr, "depth_exceeded"},  // this message's own limit
      {"[1,2]", "820102", nullptr},
      {"18446744073709551616", "c249010000000000000000", nullptr},  // 2^64: tag 2 bignum
  };
  grpc::ClientContext context;
  SetDeadline(context);
  auto stream = stub_->TranscodeStream(&context);
  for (const Step& step : steps) {
    SCOPED_TRACE(step.payload);
    v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, step.payload);
    if (step.payload == "[[[[1]]]]") r.mutable_limits()->set_max_depth(3);
    ASSERT_TRUE(stream->Write(r));
    v1::TranscodeResponse resp;
    ASSERT_TRUE(stream->Read(&resp));
    if (step.code) {
      EXPECT_EQ(resp.error().code(), step.code);
      EXPECT_TRUE(resp.payload().empty());
    } else {
      EXPECT_FALSE(resp.has_error()) << resp.error().code() << ": " << resp.error().message();
      EXPECT_EQ(ToHex(resp.payload()), step.cbor_hex);
    }
  }
  // The error's location travels on the stream too.
  ASSERT_TRUE(stream->Write(Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"a":[1,2,}")")));
  v1::TranscodeResponse resp;
  ASSERT_TRUE(stream->Read(&resp));
  EXPECT_EQ(resp.error().offset(), 10u);
  EXPECT_EQ(resp.error().path(), "/a/2");
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_FALSE(stream->Read(&resp));
  grpc::Status s = stream->Finish();
  EXPECT_TRUE(s.ok()) << s.error_message();
}

// Many requests written before any is read: responses come back one per request, in order.
TEST_F(GrpcServerTest, StreamAnswersPipelinedRequestsInOrder) {
  grpc::ClientContext context;
  SetDeadline(context);
  auto stream = stub_->TranscodeStream(&context);
  constexpr int kCount = 50;
  auto writer = std::async(std::launch::async, [&] {
    for (int i = 0; i < kCount; ++i) {
      std::string payload = "[";
      if (i % 7 != 3) payload.append(std::to_string(i)).append("]");
      if (!stream->Write(Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, payload))) {
        return false;
      }
    }
    return stream->WritesDone();
  });
  for (int i = 0; i < kCount; ++i) {
    v1::TranscodeResponse resp;
    ASSERT_TRUE(stream->Read(&resp)) << i;
    if (i % 7 == 3) {
      EXPECT_EQ(resp.error().code(), "truncated") << i;
    } else {
      std::string expected = Hex(i < 24 ? "81" : "8118");
      expected.push_back(static_cast<char>(i));
      EXPECT_EQ(ToHex(resp.payload()), ToHex(expected)) << i;
    }
  }
  EXPECT_TRUE(writer.get());
  EXPECT_TRUE(stream->Finish().ok());
}

class GrpcServerLimitsTest : public GrpcServerTest {
 protected:
  ServiceConfig Config() override {
    ServiceConfig c = TestConfig();
    c.limits.max_depth = 4;
    c.limits.max_input_bytes = 1000;
    return c;
  }
};

// A request's Limits can lower the server's, never raise them.
TEST_F(GrpcServerLimitsTest, RequestLimitsLowerButNeverRaise) {
  auto with_depth = [](std::string payload, uint32_t depth) {
    v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, std::move(payload));
    if (depth) r.mutable_limits()->set_max_depth(depth);
    return r;
  };
  EXPECT_TRUE(
      Transcode(with_depth("[[[[1]]]]", 0)).status.ok());      // depth 4: the server's own limit
  Outcome raised = Transcode(with_depth("[[[[[1]]]]]", 100));  // depth 5, asking for 100
  EXPECT_EQ(raised.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(raised.error.has_value());
  EXPECT_EQ(raised.error->code(), "depth_exceeded");
  EXPECT_NE(raised.status.error_message().find("max_depth 4"), std::string::npos)
      << raised.status.error_message();
  Outcome lowered = Transcode(with_depth("[[[1]]]", 2));
  EXPECT_EQ(lowered.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(lowered.error.has_value());
  EXPECT_EQ(lowered.error->code(), "depth_exceeded");
  EXPECT_TRUE(Transcode(with_depth("[[[1]]]", 100)).status.ok());

  // The same for sizes: 2000 bytes against the server's 1000, the request asking for 1 MB.
  v1::TranscodeRequest big =
      Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, Cat({"\"", std::string(1998, 'x'), "\""}));
  big.mutable_limits()->set_max_input_bytes(1 << 20);
  Outcome too_big = Transcode(big);
  EXPECT_EQ(too_big.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(too_big.error.has_value());
  EXPECT_EQ(too_big.error->code(), "input_too_large");
}

class GrpcHealthTest : public GrpcServerTest {
 protected:
  ServiceConfig Config() override {
    ServiceConfig c = TestConfig();
    c.drain_timeout_ms = 10000;  // far beyond the test: open watches must not hold the drain
    return c;
  }
  HealthCheckResponse::ServingStatus Check(const std::string& service, grpc::Status* status) {
    auto health = Health::NewStub(
        grpc::CreateChannel(server().grpc_address(), grpc::InsecureChannelCredentials()));
    HealthCheckRequest req;
    req.set_service(service);
    HealthCheckResponse resp;
    grpc::ClientContext context;
    SetDeadline(context);
    *status = health->Check(&context, req, &resp);
    return resp.status();
  }
};

TEST_F(GrpcHealthTest, ServingForServerAndTranscoder) {
  for (const char* service : {"", "rosetta.v1.Transcoder"}) {
    SCOPED_TRACE(service);
    grpc::Status s;
    EXPECT_EQ(Check(service, &s), HealthCheckResponse::SERVING);
    EXPECT_TRUE(s.ok()) << s.error_message();
  }
  grpc::Status s;
  Check("no.such.Service", &s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
}

// Drain: health turns NOT_SERVING. Load balancers and gRPC clients watch it
// (grpc.health.v1 Watch), so a watch opened before the drain must see the change.
TEST_F(GrpcHealthTest, NotServingOnceDrainStarts) {
  auto health = Health::NewStub(
      grpc::CreateChannel(server().grpc_address(), grpc::InsecureChannelCredentials()));
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<HealthCheckResponse>>> watches;
  for (const char* service : {"", "rosetta.v1.Transcoder"}) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    SetDeadline(*contexts.back());
    HealthCheckRequest req;
    req.set_service(service);
    watches.push_back(health->Watch(contexts.back().get(), req));
    HealthCheckResponse resp;
    ASSERT_TRUE(watches.back()->Read(&resp));
    EXPECT_EQ(resp.status(), HealthCheckResponse::SERVING) << service;
  }
  const auto start = Clock::now();
  auto drained = std::async(std::launch::async, [&] { server().Drain(); });
  for (auto& watch : watches) {
    HealthCheckResponse resp;
    ASSERT_TRUE(watch->Read(&resp));
    EXPECT_EQ(resp.status(), HealthCheckResponse::NOT_SERVING);
  }
  for (auto& watch : watches) {
    HealthCheckResponse resp;
    while (watch->Read(&resp)) {
    }
    watch->Finish();
  }
  drained.get();
  // The drain ends the watches (docs/service.md "Drain"): they do not hold it to its
  // timeout. 5 s: far below the 10 s timeout, far above a loaded machine's noise.
  EXPECT_LT(MillisSince(start), 5000);
}

}  // namespace
}  // namespace rosetta::service::testing

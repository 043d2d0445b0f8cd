// JSON Schema in rosettad (docs/schema.md "rosettad: schema_dir, reload, metrics"): the
// schemas of --schema-dir named by gRPC `schema`, the TCP type field and HTTP ?schema=,
// every violation in a validate answer (gRPC, HTTP), unknown_schema on each front-end, the
// metrics, a reload all or nothing, and a broken directory stopping start-up.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "service_test_support.h"

namespace rosetta::service::testing {
namespace {

namespace v1 = rosetta::v1;

// The order schema, its minimum for "id" a parameter so that a reload can change verdicts.
std::string OrderSchema(int minimum) {
  return R"({"$id": "https://example.com/schemas/order", "type": "object", "required": ["id"],
    "properties": {"id": {"type": "integer", "minimum": )" +
         std::to_string(minimum) + R"(},
                   "tags": {"type": "array", "items": {"type": "string"}},
                   "email": {"type": "string", "format": "email"}}})";
}
constexpr const char* kBroken = R"({"properties": {"x": {"pattern": "(a)\\1"}}})";

// A directory of schemas under the test's temporary directory, removed at the end.
class SchemaDir {
 public:
  SchemaDir() {
    static int counter = 0;
    path_ = ::testing::TempDir() + "rosetta_schemas_" + std::to_string(::getpid()) + "_" +
            std::to_string(counter++);
    std::filesystem::create_directories(path_);
  }
  ~SchemaDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Written to a temporary name and renamed, as the kubelet swaps a ConfigMap's files.
  void Write(const std::string& name, const std::string& text) const {
    const std::string tmp = path_ + "/." + name + ".tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, path_ + "/" + name);
  }
  void Remove(const std::string& name) const { std::filesystem::remove(path_ + "/" + name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct HttpAnswer {
  int status = 0;
  std::string content_type, body;
};

// One POST on its own connection (Connection: close), read whole.
HttpAnswer HttpPost(const std::string& address, const std::string& target,
                    const std::string& body) {
  TcpClient c(address);
  HttpAnswer a;
  if (!c.connected()) return a;
  c.Send(Cat({"POST ", target, " HTTP/1.1\r\nHost: rosetta\r\nContent-Type: application/json\r\n",
              "Connection: close\r\nContent-Length: ", std::to_string(body.size()), "\r\n\r\n",
              body}));
  const std::string raw = c.WaitClosed().extra;
  if (!raw.starts_with("HTTP/1.1 ") || raw.size() < 12) return a;
  a.status = std::stoi(raw.substr(9, 3));
  const size_t end = raw.find("\r\n\r\n");
  const size_t ct = raw.find("Content-Type: ");
  if (ct != std::string::npos && ct < end)
    a.content_type = raw.substr(ct + 14, raw.find("\r\n", ct) - ct - 14);
  if (end != std::string::npos) a.body = raw.substr(end + 4);
  return a;
}

size_t Count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class SchemaTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    dir_.Write("order.json", OrderSchema(1));
    dir_.Write("README", "not a schema: only *.json is read");
    ServiceConfig config = TestConfig();
    config.schema_dir = dir_.path();
    Adjust(config);
    ASSERT_TRUE(StartServer(config));
    stub_ = TranscoderStub(server().grpc_address());
  }
  virtual void Adjust(ServiceConfig&) {}

  v1::ValidateResponse Validate(const std::string& payload, const std::string& schema,
                                v1::Format format = v1::FORMAT_JSON,
                                bool format_assertion = false) {
    v1::ValidateRequest r;
    r.set_format(format);
    r.set_payload(payload);
    r.set_schema(schema);
    if (format_assertion) r.mutable_options()->set_format_assertion(true);
    grpc::ClientContext context;
    SetDeadline(context);
    v1::ValidateResponse response;
    grpc::Status s = stub_->Validate(&context, r, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();  // Validate answers a bad payload in the response
    return response;
  }

  SchemaDir dir_;
  std::unique_ptr<v1::Transcoder::Stub> stub_;
};

TEST_F(SchemaTest, GrpcValidateListsEveryViolation) {
  v1::ValidateResponse good = Validate(R"({"id": 3, "tags": ["a"]})", "order");
  EXPECT_TRUE(good.valid());
  EXPECT_FALSE(good.has_error());
  EXPECT_EQ(good.violations_size(), 0);

  // Three violations, in input order; `error` is the first.
  v1::ValidateResponse bad = Validate(R"({"tags": [1, "b", 2]})", "order");
  EXPECT_FALSE(bad.valid());
  EXPECT_EQ(bad.error().code(), "schema_violation");
  EXPECT_EQ(bad.error().message(), R"(/required: missing required property "id")");
  ASSERT_EQ(bad.violations_size(), 3);
  EXPECT_EQ(bad.violations(0).SerializeAsString(), bad.error().SerializeAsString());
  EXPECT_EQ(bad.violations(1).code(), "schema_violation");
  EXPECT_EQ(bad.violations(1).path(), "/tags/0");
  EXPECT_EQ(bad.violations(1).offset(), 10u);
  EXPECT_EQ(bad.violations(1).message(), "/properties/tags/items/type: 1 is not of type string");
  EXPECT_EQ(bad.violations(2).path(), "/tags/2");
  EXPECT_EQ(bad.violations(2).offset(), 18u);

  // The same schema for CBOR, and by its $id.
  EXPECT_TRUE(Validate(Hex("a1 62 69 64 0a"), "order", v1::FORMAT_CBOR).valid());  // {"id": 10}
  v1::ValidateResponse cbor = Validate(Hex("a1 62 69 64 00"), "https://example.com/schemas/order",
                                       v1::FORMAT_CBOR);  // {"id": 0}
  EXPECT_FALSE(cbor.valid());
  ASSERT_EQ(cbor.violations_size(), 1);
  EXPECT_EQ(cbor.violations(0).path(), "/id");
  EXPECT_EQ(cbor.violations(0).message(), "/properties/id/minimum: 0 is below the minimum 1");

  // A payload malformed before any violation is answered with its error and no violations.
  v1::ValidateResponse malformed = Validate(R"({"id": 3, "tags": ["a",})", "order");
  EXPECT_FALSE(malformed.valid());
  EXPECT_EQ(malformed.error().code(), "syntax");
  EXPECT_EQ(malformed.violations_size(), 0);
}

// format_assertion, accepted since JSON Schema came: `format` is an annotation without it.
TEST_F(SchemaTest, FormatAssertionOptionAssertsFormat) {
  const std::string payload = R"({"id": 1, "email": "not an address"})";
  EXPECT_TRUE(Validate(payload, "order").valid());
  v1::ValidateResponse asserted = Validate(payload, "order", v1::FORMAT_JSON, true);
  EXPECT_FALSE(asserted.valid());
  ASSERT_EQ(asserted.violations_size(), 1);
  EXPECT_EQ(asserted.violations(0).path(), "/email");
  EXPECT_TRUE(asserted.violations(0).message().starts_with("/properties/email/format: "))
      << asserted.violations(0).message();
}

TEST_F(SchemaTest, GrpcTranscodeRefusesAnInvalidPayload) {
  v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"id": 1})");
  r.set_schema("order");
  grpc::ClientContext ok_context;
  SetDeadline(ok_context);
  v1::TranscodeResponse response;
  grpc::Status s = stub_->Transcode(&ok_context, r, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(ToHex(response.payload()),
            "a1626964"
            "01");

  r.set_payload(R"({"id": 0})");
  grpc::ClientContext context;
  SetDeadline(context);
  s = stub_->Transcode(&context, r, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(),
            "schema_violation at byte 7: /properties/id/minimum: 0 is below the minimum 1");
  std::optional<v1::Error> e = TrailingError(context);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), "schema_violation");
  EXPECT_EQ(e->path(), "/id");
}

TEST_F(SchemaTest, UnknownSchemaOnEveryFrontEnd) {
  // gRPC Validate and Transcode.
  v1::ValidateResponse v = Validate(R"({"id": 3})", "orders");
  EXPECT_FALSE(v.valid());
  EXPECT_EQ(v.error().code(), "unknown_schema");
  EXPECT_EQ(v.error().message(), R"(no schema named "orders" is loaded)");
  EXPECT_EQ(v.violations_size(), 0);
  v1::TranscodeRequest r = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, R"({"id": 3})");
  r.set_schema("README");  // a file of the directory, but not *.json
  grpc::ClientContext context;
  SetDeadline(context);
  v1::TranscodeResponse response;
  grpc::Status s = stub_->Transcode(&context, r, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), R"(unknown_schema at byte 0: no schema named "README" is loaded)");

  // TCP: the type field.
  TcpClient c(server().tcp_address());
  ASSERT_TRUE(c.connected());
  auto t = c.Call(Frame(kValidate, 1, kJson, 0, R"({"id": 3})", "orders"));
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, (TcpResponse{1, static_cast<uint8_t>(codec::ErrorCode::kUnknownSchema), 1,
                             R"(unknown_schema at byte 0: no schema named "orders" is loaded)"}));

  // HTTP: 422 (docs/http.md: the endpoint exists; the request names what is not loaded).
  for (const char* target : {"/v1/validate?schema=orders", "/v1/transcode?schema=orders"}) {
    SCOPED_TRACE(target);
    HttpAnswer h = HttpPost(server().http_address(), target, R"({"id": 3})");
    EXPECT_EQ(h.status, 422);
    EXPECT_EQ(h.content_type, "application/problem+json");
    EXPECT_NE(h.body.find(R"("title":"unknown_schema")"), std::string::npos) << h.body;
  }

  // Refused before any work: counted as unknown_schema, no schema's violation.
  const std::string m = Scrape(server());
  EXPECT_EQ(MetricSum(m, "rosetta_requests_total", {"outcome=\"unknown_schema\""}), 5);
  EXPECT_EQ(MetricSum(m, "rosetta_schema_violations_total"), 0);
}

TEST_F(SchemaTest, TcpTypeFieldNamesTheSchema) {
  TcpClient c(server().tcp_address());
  ASSERT_TRUE(c.connected());
  auto r = c.Call(Frame(kValidate, 1, kJson, 0, R"({"id": 3, "tags": ["a"]})", "order"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 1, ""}));
  // A validate answers the first violation only: the answer's data is one line.
  r = c.Call(Frame(kValidate, 2, kJson, 0, R"({"id": 0, "tags": [1]})", "order"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, static_cast<uint8_t>(codec::ErrorCode::kSchemaViolation), 2,
                             "schema_violation at byte 7: /properties/id/minimum: 0 is below the "
                             "minimum 1"}));
  r = c.Call(Frame(kTranscode, 3, kMsgpack, kJson, Hex("81 a2 69 64 05"), "order"));  // {"id":5}
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (TcpResponse{1, 0, 3, R"({"id":5})"}));
  r = c.Call(Frame(kTranscode, 4, kMsgpack, kJson, Hex("81 a2 69 64 a1 35"), "order"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, static_cast<uint8_t>(codec::ErrorCode::kSchemaViolation)) << r->data;
  EXPECT_EQ(r->data,
            R"(schema_violation at byte 4: /properties/id/type: "5" is not of type integer)");
}

TEST_F(SchemaTest, HttpSchemaParameter) {
  const std::string& at = server().http_address();
  HttpAnswer h = HttpPost(at, "/v1/validate?schema=order", R"({"id": 3})");
  EXPECT_EQ(h.status, 204) << h.body;
  // Validate: 422, the first violation as the problem, every one in "violations".
  h = HttpPost(at, "/v1/validate?schema=order", R"({"tags": [1, "b", 2]})");
  EXPECT_EQ(h.status, 422);
  EXPECT_EQ(h.content_type, "application/problem+json");
  EXPECT_TRUE(h.body.starts_with(
      R"({"type":"urn:rosetta:error:schema_violation","title":"schema_violation","status":422,)"
      R"("detail":"/required: missing required property \"id\"","offset":0,"path":"",)"
      R"("violations":[{"title":"schema_violation","detail":"/required: missing required )"
      R"(property \"id\"","offset":0,"path":""},)"))
      << h.body;
  EXPECT_EQ(Count(h.body, R"({"title":"schema_violation")"), 3u) << h.body;
  EXPECT_NE(h.body.find(R"("offset":18,"path":"/tags/2"})"), std::string::npos) << h.body;
  // By $id, percent-encoded in the query.
  h = HttpPost(at, "/v1/validate?schema=https%3A%2F%2Fexample.com%2Fschemas%2Forder", "{}");
  EXPECT_EQ(h.status, 422);
  EXPECT_NE(h.body.find("missing required property"), std::string::npos) << h.body;
  // Transcode: the output for a valid payload, the first violation (no list) otherwise.
  h = HttpPost(at, "/v1/transcode?schema=order", R"({"id": 3})");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, R"({"id":3})");
  h = HttpPost(at, "/v1/transcode?schema=order", R"({"tags": [1]})");
  EXPECT_EQ(h.status, 422);
  EXPECT_NE(h.body.find(R"("title":"schema_violation")"), std::string::npos) << h.body;
  EXPECT_EQ(h.body.find("violations"), std::string::npos) << h.body;
}

TEST_F(SchemaTest, ViolationsCountedBySchema) {
  std::string m = Scrape(server());
  EXPECT_EQ(MetricSum(m, "rosetta_schema_reloads_total", {"outcome=\"ok\""}), 1);  // start-up
  EXPECT_EQ(MetricSum(m, "rosetta_schema_reloads_total", {"outcome=\"error\""}), 0);
  EXPECT_TRUE(m.find("rosetta_schema_violations_total{schema=\"order\"} 0") != std::string::npos)
      << "a loaded schema's series exists from its load";
  Validate(R"({"tags": [1, "b", 2]})", "order");                  // one request, 3 violations
  Validate(R"({"id": 0})", "https://example.com/schemas/order");  // by $id: counted as order
  Validate(R"({"id": 2})", "order");                              // valid
  HttpPost(server().http_address(), "/v1/transcode?schema=order", "{}");
  m = Scrape(server());
  EXPECT_EQ(MetricSum(m, "rosetta_schema_violations_total", {"schema=\"order\""}), 3);
  EXPECT_EQ(MetricSum(m, "rosetta_requests_total", {"outcome=\"schema_violation\""}), 3);
}

class SchemaLimitTest : public SchemaTest {
  void Adjust(ServiceConfig& config) override { config.max_violations = 2; }
};

TEST_F(SchemaLimitTest, MaxViolationsBoundsTheList) {
  v1::ValidateResponse bad = Validate(R"({"id": 1, "tags": [1, 2, 3, 4, 5]})", "order");
  EXPECT_FALSE(bad.valid());
  ASSERT_EQ(bad.violations_size(), 2);
  EXPECT_EQ(bad.violations(0).path(), "/tags/0");
  EXPECT_EQ(bad.violations(1).path(), "/tags/1");
  EXPECT_EQ(bad.error().path(), "/tags/0");
  // The first ones met while reading: a `required` is met where its object ends (though
  // reported at the object's start), so past the limit it is not listed.
  bad = Validate(R"({"tags": [1, 2, 3]})", "order");
  ASSERT_EQ(bad.violations_size(), 2);
  EXPECT_EQ(bad.violations(0).path(), "/tags/0");
  EXPECT_EQ(bad.violations(1).path(), "/tags/1");
}

// Server::ReloadSchemas is what SIGHUP runs (the signal itself: tests/e2e/schema_reload_test.py).
TEST_F(SchemaTest, ReloadIsAllOrNothing) {
  const std::string payload = R"({"id": 3})";
  EXPECT_TRUE(Validate(payload, "order").valid());
  dir_.Write("order.json", OrderSchema(5));
  dir_.Write("customer.json", R"({"type": "object"})");
  std::string error;
  ASSERT_TRUE(server().ReloadSchemas(&error)) << error;
  EXPECT_EQ(server().schema_count(), 2u);
  EXPECT_EQ(Validate(payload, "order").violations_size(), 1);
  EXPECT_TRUE(Validate(payload, "customer").valid());

  // One broken file: nothing of the new directory is taken, the old set serves on.
  dir_.Write("order.json", OrderSchema(1));
  dir_.Write("broken.json", kBroken);
  EXPECT_FALSE(server().ReloadSchemas(&error));
  EXPECT_NE(error.find("broken.json"), std::string::npos) << error;
  EXPECT_NE(error.find("/properties/x/pattern"), std::string::npos) << error;
  EXPECT_EQ(Validate(payload, "order").violations_size(), 1) << "the old minimum 5 still holds";
  EXPECT_TRUE(Validate(payload, "customer").valid());

  // Fixed: taken whole; a schema removed from the directory is gone.
  dir_.Remove("broken.json");
  dir_.Remove("customer.json");
  ASSERT_TRUE(server().ReloadSchemas(&error)) << error;
  EXPECT_TRUE(Validate(payload, "order").valid());
  EXPECT_EQ(Validate(payload, "customer").error().code(), "unknown_schema");

  const std::string m = Scrape(server());
  EXPECT_EQ(MetricSum(m, "rosetta_schema_reloads_total", {"outcome=\"ok\""}), 3);
  EXPECT_EQ(MetricSum(m, "rosetta_schema_reloads_total", {"outcome=\"error\""}), 1);
}

// Requests keep answering while sets are swapped under them: each answer is the verdict of
// one set or the other, never a failure of a set freed in flight (ASan builds check that).
TEST_F(SchemaTest, ReloadsUnderTrafficAnswerWithOneSetOrTheOther) {
  std::atomic<bool> stop{false};
  std::atomic<int> valid{0}, refused{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back([&] {
      TcpClient c(server().tcp_address());
      // Many items: the request takes a while, so swaps land inside requests.
      std::string payload = R"({"id": 3, "tags": [)";
      for (int k = 0; k < 2000; ++k) payload += "\"t\",";
      payload.back() = ']';
      payload += '}';
      const std::string frame = Frame(kValidate, 1, kJson, 0, payload, "order");
      const std::string minimum_5 =
          "schema_violation at byte 7: /properties/id/minimum: 3 is below the minimum 5";
      while (!stop) {
        auto r = c.Call(frame);
        ++(!r ? wrong : r->status == 0 ? valid : r->data == minimum_5 ? refused : wrong);
      }
    });
  }
  std::string error;
  for (int i = 0; i < 40; ++i) {
    dir_.Write("order.json", OrderSchema(i % 2 ? 1 : 5));
    if (!server().ReloadSchemas(&error)) {
      ADD_FAILURE() << error;
      break;
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  stop = true;
  for (std::thread& t : clients) t.join();
  EXPECT_GT(valid.load(), 0);
  EXPECT_GT(refused.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

TEST(SchemaStartTest, BrokenSchemaDirStopsStartUp) {
  SchemaDir dir;
  dir.Write("order.json", OrderSchema(1));
  dir.Write("broken.json", kBroken);
  ServiceConfig config = TestConfig();
  config.schema_dir = dir.path();
  Server server(config);
  std::string error;
  EXPECT_FALSE(server.Start(&error));
  EXPECT_EQ(error, "--schema-dir: " + dir.path() +
                       "/broken.json: /properties/x/pattern: backreference \\1 at 3 has no "
                       "linear-time meaning");
  EXPECT_TRUE(server.metrics_address().empty()) << "nothing bound";

  // The binary: exit 2, one line on stderr naming the file and the location.
  const std::string command = std::string(ROSETTA_BINARY_DIR) +
                              "/service/rosettad --grpc-listen 127.0.0.1:0 --tcp-listen "
                              "127.0.0.1:0 --http-listen 127.0.0.1:0 --metrics-listen "
                              "127.0.0.1:0 --schema-dir " +
                              dir.path() + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_EQ(out, "rosettad: --schema-dir: " + dir.path() +
                     "/broken.json: /properties/x/pattern: backreference \\1 at 3 has no "
                     "linear-time meaning\n");
}

}  // namespace
}  // namespace rosetta::service::testing

// rosettad as one object (service/server.cc): bound addresses, the listening line, and
// Drain (DESIGN.md "Server": SIGTERM finishes in-flight requests, refuses new ones).
#include <future>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "service_test_support.h"

namespace rosetta::service::testing {
namespace {

namespace v1 = rosetta::v1;

class ServerTest : public ServiceTest {};

// "Promptly": far below the 10 s drain timeout these tests configure, far above the
// scheduling noise of a loaded 2-core CI machine.
constexpr double kPromptMs = 5000;

TEST_F(ServerTest, ListeningLineNamesEveryBoundPort) {
  ASSERT_TRUE(StartServer());
  const std::regex line(
      R"(rosettad listening grpc=127\.0\.0\.1:(\d+) tcp=127\.0\.0\.1:(\d+) http=127\.0\.0\.1:(\d+) metrics=127\.0\.0\.1:(\d+))");
  std::smatch m;
  const std::string text = server().ListeningLine();
  ASSERT_TRUE(std::regex_match(text, m, line)) << text;
  for (int i = 1; i <= 4; ++i) EXPECT_NE(std::stoi(m[i]), 0) << text;
  EXPECT_EQ("127.0.0.1:" + m[1].str(), server().grpc_address());
  EXPECT_EQ("127.0.0.1:" + m[2].str(), server().tcp_address());
  EXPECT_EQ("127.0.0.1:" + m[3].str(), server().http_address());
  EXPECT_EQ("127.0.0.1:" + m[4].str(), server().metrics_address());
  // Each address answers its own protocol.
  TcpClient tcp(server().tcp_address());
  EXPECT_TRUE(tcp.Call(Frame(kPing, 1, 0, 0, "x")));
  EXPECT_TRUE(HasMetric(Scrape(server()), "rosetta_connections_total"));
}

TEST_F(ServerTest, StartFailsWhenAPortIsTaken) {
  ASSERT_TRUE(StartServer());
  ServiceConfig c = TestConfig();
  c.tcp_listen = server().tcp_address();  // already bound by the first server
  Server second(c);
  std::string error;
  EXPECT_FALSE(second.Start(&error));
  EXPECT_NE(error.find("--tcp-listen"), std::string::npos) << error;
}

// A TCP frame is half sent when the drain starts: new connections are refused at once,
// the frame is answered when its last bytes arrive, and only then does Drain return.
TEST_F(ServerTest, DrainFinishesTcpFrameInFlight) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;  // far beyond the test: Drain must return because the work is done
  ASSERT_TRUE(StartServer(c));
  TcpClient client(server().tcp_address());
  const std::string frame = Frame(kTranscode, 42, kJson, kCbor, R"({"a":[1,2,3]})");
  const size_t half = frame.size() / 2;
  // The ping and the first half travel in one write; the ping's answer shows the server
  // has read both, so the connection is busy when the drain begins.
  ASSERT_TRUE(client.Send(Frame(kPing, 1, 0, 0, "") + frame.substr(0, half)));
  ASSERT_TRUE(client.Read());

  std::future<void> drained = std::async(std::launch::async, [&] { server().Drain(); });
  const auto drain_start = Clock::now();
  // New connections are refused once the listener closes (polled: Drain runs on its thread).
  EXPECT_TRUE(WaitUntil(
      [&] {
        TcpClient late(server().tcp_address());
        return !late.connected() && late.connect_errno() == ECONNREFUSED;
      },
      milliseconds(3000)))
      << "new TCP connections still accepted during the drain";
  EXPECT_EQ(drained.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
      << "Drain returned with a request in flight";

  ASSERT_TRUE(client.Send(frame.substr(half)));
  auto r = client.Read();
  ASSERT_TRUE(r) << "the in-flight request was dropped";
  EXPECT_EQ(*r, (TcpResponse{1, 0, 42, Hex("a1616183010203")}));
  const auto answered = Clock::now();
  ASSERT_EQ(drained.wait_for(std::chrono::seconds(8)), std::future_status::ready);
  EXPECT_LT(MillisSince(answered), kPromptMs) << "Drain waited on after its last request was done";
  EXPECT_GT(MillisSince(drain_start), 100);
  EXPECT_TRUE(client.WaitClosed(milliseconds(2000)).closed) << "drained connection left open";
}

// An idle connection does not hold the drain.
TEST_F(ServerTest, DrainClosesIdleConnectionsAtOnce) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;
  ASSERT_TRUE(StartServer(c));
  TcpClient idle(server().tcp_address());
  ASSERT_TRUE(idle.Call(Frame(kPing, 1, 0, 0, "")));
  const auto start = Clock::now();
  server().Drain();
  EXPECT_LT(MillisSince(start), kPromptMs);
  EXPECT_TRUE(idle.WaitClosed(milliseconds(3000)).closed);
}

// A gRPC stream waiting for its next message when the drain starts is ended (status OK)
// rather than holding the drain to its timeout; new calls are refused.
TEST_F(ServerTest, DrainEndsIdleGrpcStreamAndRefusesNewCalls) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;  // far beyond the test: Drain must return because nothing is left
  ASSERT_TRUE(StartServer(c));
  auto stub = TranscoderStub(server().grpc_address());
  grpc::ClientContext context;
  SetDeadline(context, milliseconds(20000));
  auto stream = stub->TranscodeStream(&context);
  const v1::TranscodeRequest req = Req(v1::FORMAT_JSON, v1::FORMAT_CBOR, "[1]");
  v1::TranscodeResponse resp;
  ASSERT_TRUE(stream->Write(req));
  ASSERT_TRUE(stream->Read(&resp));
  EXPECT_EQ(ToHex(resp.payload()), "8101");

  const auto start = Clock::now();
  std::future<void> drained = std::async(std::launch::async, [&] { server().Drain(); });
  EXPECT_FALSE(stream->Read(&resp)) << "the idle stream was not ended";
  const grpc::Status ended = stream->Finish();
  EXPECT_TRUE(ended.ok()) << ended.error_code() << " " << ended.error_message();
  // New RPCs fail once the server shuts down (polled: Drain runs on its own thread).
  EXPECT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext late;
        SetDeadline(late, milliseconds(500));
        v1::TranscodeResponse out;
        return !stub->Transcode(&late, req, &out).ok();
      },
      milliseconds(3000)));
  ASSERT_EQ(drained.wait_for(std::chrono::seconds(8)), std::future_status::ready);
  EXPECT_LT(MillisSince(start), kPromptMs) << "an idle stream held the drain";
}

// The drain timeout bounds a drain that a client holds up.
TEST_F(ServerTest, DrainGivesUpAfterItsTimeout) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 300;
  ASSERT_TRUE(StartServer(c));
  TcpClient stuck(server().tcp_address());
  ASSERT_TRUE(
      stuck.Send(Frame(kPing, 1, 0, 0, "") + Frame(kPing, 2, 0, 0, "never finished").substr(0, 8)));
  ASSERT_TRUE(stuck.Read());
  const auto start = Clock::now();
  server().Drain();
  const double ms = MillisSince(start);
  EXPECT_GE(ms, 250);
  EXPECT_LT(ms, kPromptMs);
  EXPECT_TRUE(stuck.WaitClosed(milliseconds(3000)).closed);
}

}  // namespace
}  // namespace rosetta::service::testing

// rosettad as one object (service/server.cc): bound addresses, the listening line, and
// Drain (DESIGN.md "Server": SIGTERM finishes in-flight requests, refuses new ones).
#include <future>
#include <regex>
#include <string>
#include <thread>

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

// The going-away answer of a TCP drain (docs/tcp-protocol.md "Drain").
constexpr uint8_t kGoingAway = 20;

// The drain answers every frame received whole, then one going-away answer names the last
// request answered, then the server's side ends; a frame half sent does not hold it (the
// client sends it again elsewhere). New connections are refused at once.
TEST_F(ServerTest, DrainAnswersWhatCameThenGoesAway) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;  // far beyond the test: Drain must return because the work is done
  ASSERT_TRUE(StartServer(c));
  TcpClient client(server().tcp_address());
  const std::string frame = Frame(kTranscode, 42, kJson, kCbor, R"({"a":[1,2,3]})");
  const size_t half = frame.size() / 2;
  // The ping and the first half travel in one write; the ping's answer shows the server
  // has read both, so a frame is half received when the drain begins.
  ASSERT_TRUE(client.Send(Frame(kPing, 1, 0, 0, "") + frame.substr(0, half)));
  ASSERT_TRUE(client.Read());

  const auto drain_start = Clock::now();
  std::future<void> drained = std::async(std::launch::async, [&] { server().Drain(); });
  auto away = client.Read();
  ASSERT_TRUE(away) << "no going-away answer";
  EXPECT_EQ(away->status, kGoingAway);
  EXPECT_EQ(away->id, 1u) << "the ping was the last request answered";
  EXPECT_TRUE(away->data.starts_with("going_away at byte 0: ")) << away->data;
  const auto end = client.WaitClosed(milliseconds(3000));
  EXPECT_TRUE(end.closed && !end.reset) << "the server's side did not end cleanly";
  EXPECT_TRUE(end.extra.empty()) << "bytes after the going-away answer";
  // New connections are refused once the listener closes (polled: Drain runs on its thread).
  EXPECT_TRUE(WaitUntil(
      [&] {
        TcpClient late(server().tcp_address());
        return !late.connected() && late.connect_errno() == ECONNREFUSED;
      },
      milliseconds(3000)))
      << "new TCP connections still accepted during the drain";
  client.Close();
  ASSERT_EQ(drained.wait_for(std::chrono::seconds(8)), std::future_status::ready);
  EXPECT_LT(MillisSince(drain_start), kPromptMs) << "the half-sent frame held the drain";
}

// Frames the server has received but not yet answered when the drain starts are answered
// before the going-away answer: a batch written in one go, the drain started as soon as
// the first answer is back.
TEST_F(ServerTest, DrainAnswersFramesAlreadyReceived) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;
  ASSERT_TRUE(StartServer(c));
  TcpClient client(server().tcp_address());
  std::string batch;
  constexpr uint32_t kFrames = 600;
  for (uint32_t id = 1; id <= kFrames; ++id)
    batch += Frame(kTranscode, id, kJson, kCbor, R"({"a":[1,2,3],"b":"some text to transcode"})");
  ASSERT_TRUE(client.Send(batch));
  ASSERT_TRUE(client.Read());
  std::future<void> drained = std::async(std::launch::async, [&] { server().Drain(); });
  uint32_t last = 1;
  for (;;) {
    auto r = client.Read();
    ASSERT_TRUE(r) << "the connection ended without a going-away answer after " << last;
    if (r->status == kGoingAway) {
      EXPECT_EQ(r->id, last) << "going-away names another request than the last answered";
      break;
    }
    ASSERT_EQ(r->status, 0) << *r;
    ASSERT_EQ(r->id, last + 1) << "an answer out of order";
    last = r->id;
  }
  // Everything was in the server's socket before the drain (one write of ~35 KB, within
  // the loopback's receive window), so everything is answered.
  EXPECT_EQ(last, kFrames);
  EXPECT_TRUE(client.WaitClosed(milliseconds(3000)).closed);
  client.Close();
  ASSERT_EQ(drained.wait_for(std::chrono::seconds(8)), std::future_status::ready);
}

// An idle connection is told at once (going-away with the last request answered) and
// does not hold the drain.
TEST_F(ServerTest, DrainTellsIdleConnectionsAtOnce) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 10000;
  ASSERT_TRUE(StartServer(c));
  TcpClient idle(server().tcp_address());
  ASSERT_TRUE(idle.Call(Frame(kPing, 7, 0, 0, "")));
  TcpClient unused(server().tcp_address());
  ASSERT_TRUE(WaitUntil([&] {
    return MetricSum(Scrape(server()), "rosetta_connections_active", {"transport=\"tcp\""}) == 2;
  }));
  const auto start = Clock::now();
  server().Drain();
  EXPECT_LT(MillisSince(start), kPromptMs);
  auto away = idle.Read();
  ASSERT_TRUE(away);
  EXPECT_EQ(*away, (TcpResponse{1, kGoingAway, 7, away->data}));
  EXPECT_TRUE(idle.WaitClosed(milliseconds(3000)).closed);
  auto none = unused.Read();
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, kGoingAway);
  EXPECT_EQ(none->id, 0u) << "nothing was answered on this connection";
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

// The drain timeout bounds a drain that a client holds up: one that sends and never reads
// its answers, so that they cannot be written.
TEST_F(ServerTest, DrainGivesUpAfterItsTimeout) {
  ServiceConfig c = TestConfig();
  c.drain_timeout_ms = 300;
  ASSERT_TRUE(StartServer(c));
  TcpClient stuck(server().tcp_address());
  const std::string echo = Frame(kPing, 1, 0, 0, std::string(1 << 20, 'x'));
  std::string batch;
  for (int i = 0; i < 24; ++i) batch += echo;      // 24 MiB of answers: more than socket buffers
  std::thread sender([&] { stuck.Send(batch); });  // blocks once the server stops reading
  ASSERT_TRUE(WaitUntil(
      [&] { return MetricSum(Scrape(server()), "rosetta_requests_total", {"op=\"ping\""}) >= 4; },
      milliseconds(10000)));
  const auto start = Clock::now();
  server().Drain();
  const double ms = MillisSince(start);
  EXPECT_GE(ms, 250);
  EXPECT_LT(ms, kPromptMs);
  ::shutdown(stuck.fd(), SHUT_RDWR);  // ends the sender's blocked send
  sender.join();
}

}  // namespace
}  // namespace rosetta::service::testing

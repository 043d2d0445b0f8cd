// rosetta-echo: the baseline for the service benchmarks. The rosetta.v1.Transcoder service
// with gRPC's callback API, as rosettad serves it, but Transcode answers the request's
// payload unchanged and Validate says valid: what is left is gRPC's own cost, so
// rosettad's overhead is the measured difference (rosetta-load drives both).
//   rosetta-echo [--listen HOST:PORT]     port 0: any free port
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "rosetta/v1/transcoder.grpc.pb.h"

namespace {

class EchoService final : public rosetta::v1::Transcoder::CallbackService {
  grpc::ServerUnaryReactor* Transcode(grpc::CallbackServerContext* context,
                                      const rosetta::v1::TranscodeRequest* req,
                                      rosetta::v1::TranscodeResponse* resp) override {
    resp->set_payload(req->payload());
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* Validate(grpc::CallbackServerContext* context,
                                     const rosetta::v1::ValidateRequest*,
                                     rosetta::v1::ValidateResponse* resp) override {
    resp->set_valid(true);
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerBidiReactor<rosetta::v1::TranscodeRequest, rosetta::v1::TranscodeResponse>*
  TranscodeStream(grpc::CallbackServerContext*) override {
    class Echo : public grpc::ServerBidiReactor<rosetta::v1::TranscodeRequest,
                                                rosetta::v1::TranscodeResponse> {
     public:
      Echo() { StartRead(&request_); }
      void OnReadDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::OK);
        response_.set_payload(request_.payload());
        StartWrite(&response_);
      }
      void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::CANCELLED);
        StartRead(&request_);
      }
      void OnDone() override { delete this; }

     private:
      rosetta::v1::TranscodeRequest request_;
      rosetta::v1::TranscodeResponse response_;
    };
    return new Echo;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:50061";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::puts(
          "usage: rosetta-echo [--listen HOST:PORT]   (default 127.0.0.1:50061; port 0: any free "
          "port)");
      return 0;
    } else {
      std::fprintf(
          stderr, "rosetta-echo: unknown argument '%s'\nusage: rosetta-echo [--listen HOST:PORT]\n",
          argv[i]);
      return 2;
    }
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // As rosettad: health checking on, messages up to 2 GiB both ways.
  grpc::EnableDefaultHealthCheckService(true);
  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(INT32_MAX);
  builder.SetMaxSendMessageSize(INT32_MAX);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port <= 0) {
    std::fprintf(stderr, "rosetta-echo: cannot listen on %s\n", listen.c_str());
    return 2;
  }
  std::printf("rosetta-echo listening grpc=%s:%d\n", listen.substr(0, listen.rfind(':')).c_str(),
              port);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  return 0;
}

// rosettad: the transcoding and validation service (DESIGN.md "Server").
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include "service/config.h"
#include "service/server.h"

extern char** environ;

int main(int argc, char** argv) {
  using rosetta::service::ConfigResult;
  ConfigResult loaded = rosetta::service::LoadConfig(argc, argv, environ);
  if (loaded.kind == ConfigResult::kHelp) {
    std::fputs(rosetta::service::ConfigHelp().c_str(), stdout);
    return 0;
  }
  if (loaded.kind == ConfigResult::kError) {
    std::fprintf(stderr, "rosettad: %s\n", loaded.error.c_str());
    return 2;
  }
  // Signals are taken by sigwait below, never by a handler on a random thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A gateway holds thousands of connections: take the whole file-descriptor allowance.
  if (rlimit fds; getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur < fds.rlim_max) {
    fds.rlim_cur = fds.rlim_max;
    setrlimit(RLIMIT_NOFILE, &fds);
  }

  rosetta::service::Server server(loaded.config);
  std::string error;
  if (!server.Start(&error)) {
    std::fprintf(stderr, "rosettad: %s\n", error.c_str());
    return 2;
  }
  if (server.schemas()) {
    std::fprintf(stderr, "rosettad: JSON Schemas loaded from %s (%zu)\n",
                 server.config().schema_dir.c_str(), server.schema_count());
  }
  std::printf("%s\n", server.ListeningLine().c_str());
  std::fflush(stdout);
  int sig = 0;
  // SIGHUP reloads the TLS certificate and key and the JSON Schemas of --schema-dir, each on
  // its own (one failing keeps its old state and does not stop the other); SIGTERM and
  // SIGINT drain and end.
  while (sigwait(&signals, &sig) == 0 && sig == SIGHUP) {
    if (!server.tls() && !server.schemas()) {
      std::fprintf(stderr, "rosettad: SIGHUP: nothing to reload (no TLS, no --schema-dir)\n");
    }
    if (server.tls()) {
      if (server.ReloadTls(&error)) {
        std::fprintf(stderr, "rosettad: SIGHUP: TLS reloaded\n");
      } else {
        std::fprintf(stderr,
                     "rosettad: SIGHUP: TLS reload failed, keeping the previous certificate: %s\n",
                     error.c_str());
      }
    }
    if (server.schemas()) {
      if (server.ReloadSchemas(&error)) {
        std::fprintf(stderr, "rosettad: SIGHUP: JSON Schemas reloaded from %s (%zu loaded)\n",
                     server.config().schema_dir.c_str(), server.schema_count());
      } else {
        std::fprintf(stderr,
                     "rosettad: SIGHUP: schema reload failed, keeping the previous schemas: %s\n",
                     error.c_str());
      }
    }
  }
  std::fprintf(stderr, "rosettad: %s: draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  server.Drain();
  return 0;
}

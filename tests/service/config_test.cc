// rosettad's settings (service/config.cc, DESIGN.md "Server"): flags > environment >
// JSON file > defaults, errors that name the setting, and a --help that lists them all.
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "service/config.h"

namespace rosetta::service {
namespace {

// LoadConfig on a made-up command line and environment (never the test's own).
ConfigResult Load(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "rosettad");
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  return LoadConfig(static_cast<int>(args.size()), argv.data(), envp.data());
}

// A JSON config file in the test's temporary directory, removed at the end of the test.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& json) {
    static int counter = 0;
    path_ = ::testing::TempDir();
    path_.append("rosettad_config_").append(std::to_string(::getpid())).append("_");
    path_.append(std::to_string(counter++)).append(".json");
    std::ofstream(path_) << json;
  }
  ~ConfigFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ServiceConfigTest, DefaultsMatchTheContract) {
  ConfigResult r = Load({});
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.grpc_listen, "127.0.0.1:50051");
  EXPECT_EQ(r.config.tcp_listen, "127.0.0.1:50052");
  EXPECT_EQ(r.config.metrics_listen, "127.0.0.1:9464");
  EXPECT_EQ(r.config.http_listen, "127.0.0.1:8080");  // DESIGN.md "Second wave", HTTP front-end
  EXPECT_EQ(r.config.limits.max_depth, 128u);         // DESIGN.md "Limits"
  EXPECT_EQ(r.config.limits, ServiceConfig::DefaultLimits());
  EXPECT_EQ(r.config.schema_dir, "");  // no JSON Schemas unless asked
  EXPECT_EQ(r.config.max_violations, 16u);
}

// Each layer overrides the ones below it, setting by setting.
TEST(ServiceConfigTest, FlagsOverEnvironmentOverFileOverDefaults) {
  ConfigFile file(
      R"({"max_depth": 50, "tcp_max_connections": 10, "io_threads": 3, "tcp_listen": "127.0.0.1:7001"})");
  const std::vector<std::string> env = {"ROSETTA_MAX_DEPTH=60", "ROSETTA_TCP_MAX_CONNECTIONS=20",
                                        "ROSETTA_TCP_LISTEN=127.0.0.1:7002", "PATH=/usr/bin",
                                        "ROSETTA_UNRELATED_X=1"};
  ConfigResult r =
      Load({"--config", file.path(), "--max-depth=70", "--tcp-listen", "127.0.0.1:7003"}, env);
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.limits.max_depth, 70u);           // flag > env > file
  EXPECT_EQ(r.config.tcp_listen, "127.0.0.1:7003");    // flag > env > file
  EXPECT_EQ(r.config.tcp_max_connections, 20u);        // env > file
  EXPECT_EQ(r.config.io_threads, 3u);                  // file > default
  EXPECT_EQ(r.config.grpc_listen, "127.0.0.1:50051");  // default
  EXPECT_EQ(r.config.limits.max_items, ServiceConfig::DefaultLimits().max_items);

  r = Load({"--config", file.path()}, env);  // no flags: the environment wins
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.limits.max_depth, 60u);
  EXPECT_EQ(r.config.tcp_listen, "127.0.0.1:7002");

  r = Load({"--config", file.path()});  // the file alone
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.limits.max_depth, 50u);
  EXPECT_EQ(r.config.tcp_max_connections, 10u);

  // The file can come from the environment too; a --config flag beats it.
  ConfigFile other(R"({"max_depth": 40})");
  r = Load({}, {"ROSETTA_CONFIG=" + file.path()});
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.limits.max_depth, 50u);
  r = Load({"--config=" + other.path()}, {"ROSETTA_CONFIG=" + file.path()});
  ASSERT_EQ(r.kind, ConfigResult::kRun) << r.error;
  EXPECT_EQ(r.config.limits.max_depth, 40u);
}

TEST(ServiceConfigTest, BadValueNamesTheSetting) {
  struct Case {
    std::vector<std::string> args, env;
    std::string file;  // JSON; used as --config when not empty
    std::string named;
  };
  const std::vector<Case> cases = {
      {{"--max-depth", "abc"}, {}, "", "--max-depth"},
      {{"--max-depth=12x"}, {}, "", "--max-depth"},
      {{"--tcp-max-connections=-1"}, {}, "", "--tcp-max-connections"},
      {{"--max-input-bytes=0"}, {}, "", "--max-input-bytes"},
      {{"--grpc-listen=nowhere"}, {}, "", "--grpc-listen"},
      {{"--metrics-listen=127.0.0.1:70000"}, {}, "", "--metrics-listen"},
      {{"--max-depth=1000000"}, {}, "", "max-depth"},
      {{"--tcp-idle-timeout-ms"}, {}, "", "--tcp-idle-timeout-ms"},  // no value
      {{"--no-such-setting=1"}, {}, "", "no-such-setting"},
      {{}, {"ROSETTA_TCP_IDLE_TIMEOUT_MS=soon"}, "", "ROSETTA_TCP_IDLE_TIMEOUT_MS"},
      {{}, {"ROSETTA_TCP_LISTEN=:"}, "", "ROSETTA_TCP_LISTEN"},
      {{}, {}, R"({"tcp_max_pending_bytes": "lots"})", "tcp_max_pending_bytes"},
      {{}, {}, R"({"drain_timeout_ms": -5})", "drain_timeout_ms"},
      {{}, {}, R"({"no_such_setting": 1})", "no_such_setting"},
      {{}, {}, R"([1, 2])", "--config"},
      {{"--max-violations=0"}, {}, "", "--max-violations"},
      {{"--max-violations=10001"}, {}, "", "--max-violations"},  // over its cap
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    std::unique_ptr<ConfigFile> file;
    if (!c.file.empty()) {
      file = std::make_unique<ConfigFile>(c.file);
      args.push_back("--config=" + file->path());
    }
    SCOPED_TRACE(c.named);
    ConfigResult r = Load(args, c.env);
    EXPECT_EQ(r.kind, ConfigResult::kError);
    EXPECT_NE(r.error.find(c.named), std::string::npos) << r.error;
  }
  ConfigResult missing = Load({"--config", "/nonexistent/rosettad.json"});
  EXPECT_EQ(missing.kind, ConfigResult::kError);
  EXPECT_NE(missing.error.find("--config"), std::string::npos) << missing.error;
  ConfigResult stray = Load({"extra-argument"});
  EXPECT_EQ(stray.kind, ConfigResult::kError);
}

TEST(ServiceConfigTest, HelpFlag) {
  EXPECT_EQ(Load({"--help"}).kind, ConfigResult::kHelp);
  EXPECT_EQ(Load({"-h"}).kind, ConfigResult::kHelp);
  EXPECT_EQ(Load({"--max-depth=5", "--help"}).kind, ConfigResult::kHelp);
}

// Every setting: listed in --help with its flag and variable, and settable from each
// layer (flag, environment, file) to the field it names.
TEST(ServiceConfigTest, EverySettingIsListedAndSettableFromEachLayer) {
  struct Setting {
    const char* flag;
    std::string value;
    std::function<bool(const ServiceConfig&)> applied;
  };
  const std::vector<Setting> settings = {
      {"grpc-listen", "127.0.0.1:1001",
       [](const ServiceConfig& c) { return c.grpc_listen == "127.0.0.1:1001"; }},
      {"tcp-listen", "0.0.0.0:1002",
       [](const ServiceConfig& c) { return c.tcp_listen == "0.0.0.0:1002"; }},
      {"http-listen", "127.0.0.1:1004",
       [](const ServiceConfig& c) { return c.http_listen == "127.0.0.1:1004"; }},
      {"metrics-listen", "[::1]:1003",
       [](const ServiceConfig& c) { return c.metrics_listen == "[::1]:1003"; }},
      {"max-input-bytes", "1001",
       [](const ServiceConfig& c) { return c.limits.max_input_bytes == 1001; }},
      {"max-output-bytes", "1002",
       [](const ServiceConfig& c) { return c.limits.max_output_bytes == 1002; }},
      {"max-depth", "17", [](const ServiceConfig& c) { return c.limits.max_depth == 17; }},
      {"max-string-bytes", "1003",
       [](const ServiceConfig& c) { return c.limits.max_string_bytes == 1003; }},
      {"max-items", "1004", [](const ServiceConfig& c) { return c.limits.max_items == 1004; }},
      {"max-alloc-bytes", "1005",
       [](const ServiceConfig& c) { return c.limits.max_alloc_bytes == 1005; }},
      {"grpc-max-receive-bytes", "1006",
       [](const ServiceConfig& c) { return c.grpc_max_receive_bytes == 1006; }},
      {"grpc-max-concurrent-streams", "17",
       [](const ServiceConfig& c) { return c.grpc_max_concurrent_streams == 17; }},
      {"grpc-max-connection-age-ms", "1012",
       [](const ServiceConfig& c) { return c.grpc_max_connection_age_ms == 1012; }},
      {"grpc-max-connections", "9",
       [](const ServiceConfig& c) { return c.grpc_max_connections == 9; }},
      {"grpc-handshake-timeout-ms", "1013",
       [](const ServiceConfig& c) { return c.grpc_handshake_timeout_ms == 1013; }},
      {"grpc-idle-timeout-ms", "1014",
       [](const ServiceConfig& c) { return c.grpc_idle_timeout_ms == 1014; }},
      {"grpc-message-timeout-ms", "1015",
       [](const ServiceConfig& c) { return c.grpc_message_timeout_ms == 1015; }},
      {"grpc-max-header-list-bytes", "1016",
       [](const ServiceConfig& c) { return c.grpc_max_header_list_bytes == 1016; }},
      {"http-max-connections", "11",
       [](const ServiceConfig& c) { return c.http_max_connections == 11; }},
      {"http-header-timeout-ms", "1017",
       [](const ServiceConfig& c) { return c.http_header_timeout_ms == 1017; }},
      {"http-body-timeout-ms", "1018",
       [](const ServiceConfig& c) { return c.http_body_timeout_ms == 1018; }},
      {"http-idle-timeout-ms", "1019",
       [](const ServiceConfig& c) { return c.http_idle_timeout_ms == 1019; }},
      {"http-max-header-bytes", "1020",
       [](const ServiceConfig& c) { return c.http_max_header_bytes == 1020; }},
      {"http-max-header-count", "21",
       [](const ServiceConfig& c) { return c.http_max_header_count == 21; }},
      {"io-threads", "5", [](const ServiceConfig& c) { return c.io_threads == 5; }},
      {"tcp-max-connections", "7",
       [](const ServiceConfig& c) { return c.tcp_max_connections == 7; }},
      {"tcp-frame-timeout-ms", "1007",
       [](const ServiceConfig& c) { return c.tcp_frame_timeout_ms == 1007; }},
      {"tcp-idle-timeout-ms", "1008",
       [](const ServiceConfig& c) { return c.tcp_idle_timeout_ms == 1008; }},
      {"tcp-max-pending-bytes", "1009",
       [](const ServiceConfig& c) { return c.tcp_max_pending_bytes == 1009; }},
      {"tcp-linger-ms", "1010", [](const ServiceConfig& c) { return c.tcp_linger_ms == 1010; }},
      {"drain-timeout-ms", "1011",
       [](const ServiceConfig& c) { return c.drain_timeout_ms == 1011; }},
      {"request-metrics", "0", [](const ServiceConfig& c) { return c.request_metrics == 0; }},
      {"max-inflight-bytes", "1012",
       [](const ServiceConfig& c) { return c.max_inflight_bytes == 1012; }},
      {"health-listen", "127.0.0.1:8081",
       [](const ServiceConfig& c) { return c.health_listen == "127.0.0.1:8081"; }},
      {"tls-cert", "/tmp/c.pem", [](const ServiceConfig& c) { return c.tls_cert == "/tmp/c.pem"; }},
      {"tls-key", "/tmp/k.pem", [](const ServiceConfig& c) { return c.tls_key == "/tmp/k.pem"; }},
      {"tls-client-ca", "/tmp/ca.pem",
       [](const ServiceConfig& c) { return c.tls_client_ca == "/tmp/ca.pem"; }},
      {"descriptor-set", "/tmp/a.pb",
       [](const ServiceConfig& c) {
         return c.descriptor_sets == std::vector<std::string>{"/tmp/a.pb"};
       }},
      {"schema-dir", "/etc/rosetta-schemas",
       [](const ServiceConfig& c) { return c.schema_dir == "/etc/rosetta-schemas"; }},
      {"max-violations", "100", [](const ServiceConfig& c) { return c.max_violations == 100; }},
  };
  const std::string help = ConfigHelp();
  for (const Setting& s : settings) {
    SCOPED_TRACE(s.flag);
    std::string env = "ROSETTA_", key;
    for (const char* p = s.flag; *p; ++p) {
      env += *p == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
      key += *p == '-' ? '_' : *p;
    }
    const std::string flag = std::string("--").append(s.flag);
    EXPECT_NE(help.find(flag + " "), std::string::npos) << help;
    EXPECT_NE(help.find(env), std::string::npos) << help;

    ConfigResult by_flag = Load({flag, s.value});
    ASSERT_EQ(by_flag.kind, ConfigResult::kRun) << by_flag.error;
    EXPECT_TRUE(s.applied(by_flag.config)) << "flag";
    EXPECT_FALSE(s.applied(Load({}).config)) << "the test value is the default";

    ConfigResult by_env = Load({}, {env + "=" + s.value});
    ASSERT_EQ(by_env.kind, ConfigResult::kRun) << by_env.error;
    EXPECT_TRUE(s.applied(by_env.config)) << "environment";

    const bool number = s.value.find_first_not_of("0123456789") == std::string::npos;
    ConfigFile file("{\"" + key + "\": " + (number ? s.value : "\"" + s.value + "\"") + "}");
    ConfigResult by_file = Load({"--config", file.path()});
    ASSERT_EQ(by_file.kind, ConfigResult::kRun) << by_file.error;
    EXPECT_TRUE(s.applied(by_file.config)) << "file";
  }
  // Nothing listed that this test does not know: one "  --" line per setting, plus
  // --config and --help.
  size_t listed = 0;
  for (size_t at = help.find("\n  --"); at != std::string::npos; at = help.find("\n  --", at + 1))
    ++listed;
  EXPECT_EQ(listed, settings.size() + 2) << help;
}

}  // namespace
}  // namespace rosetta::service

// Protobuf <-> JSON: rosetta against libprotobuf's own proto3 JSON mapping
// (docs/benchmarks.md "## Protobuf"). One ~200-byte log record, and a batch of 10,000 of
// them (a repeated field), each way:
//   rosetta              Transcode with a Schema loaded from a FileDescriptorSet
//   libprotobuf message  util::JsonStringToMessage + SerializeToString, and ParseFromString
//                        + util::MessageToJsonString, on generated code (its fastest path:
//                        the generated pool has a cached TypeResolver)
//   libprotobuf binary   util::JsonToBinaryString and util::BinaryToJsonString with a
//                        TypeResolver from util::NewTypeResolverForDescriptorPool
// Counters: per_msg (CPU seconds per record), bytes_per_second (of the input).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"
#include "test.pb.h"

namespace {

namespace pb = google::protobuf;
using rosetta::codec::Format;

constexpr int kBatch = 10000;
constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

// A log record of about 200 bytes on the wire; `i` varies its values.
rosetta::test::LogRecord Record(int i) {
  static const char* const kMessages[] = {
      "disk usage above threshold on /var/lib/data: 91% used, 12 GiB free",
      "request completed: GET /api/v2/orders?page=3&limit=50 returned 200",
      "connection pool exhausted, waiting for a free connection (pool=main)",
  };
  rosetta::test::LogRecord r;
  r.mutable_time()->set_seconds(1714566896 + i);
  r.mutable_time()->set_nanos((i % 1000) * 1000000 + 789000);
  r.set_level(static_cast<rosetta::test::LogRecord::Level>(1 + i % 4));
  r.set_message(kMessages[i % 3]);
  // (append, not operator+ chains: GCC 12 warns falsely on those, -Wrestrict)
  std::string& host = (*r.mutable_attributes())["host"];
  host.append("db-").append(std::to_string(i % 64)).append(".eu-west-1");
  (*r.mutable_attributes())["service"] = "storage";
  (*r.mutable_attributes())["region"] = "eu-west-1";
  (*r.mutable_attributes())["request_id"]
      .append("9f86d081884c")
      .append(std::to_string(1000 + i % 9000));
  r.set_trace_id(4611686018427387904 + i * 7919ll);
  r.set_span_id(1234567890123 + i);
  r.set_duration_ms(12.75 + (i % 100) * 0.5);
  return r;
}

struct Inputs {
  std::unique_ptr<rosetta::codec::Schema> schema;
  std::unique_ptr<pb::util::TypeResolver> resolver;
  std::string record_wire, record_json, batch_wire, batch_json;
};

// Room after the JSON for the padding rosetta's JSON reader may read ahead into.
void Pad(std::string& s) { s.reserve(s.size() + rosetta::codec::kInputPadding); }

const Inputs& TheInputs() {
  static const Inputs* inputs = [] {
    auto* in = new Inputs;
    std::string error;
    in->schema = rosetta::codec::Schema::Load({ROSETTA_PROTOBUF_BENCH_DESCRIPTORS}, &error);
    if (!in->schema) {
      std::fprintf(stderr, "%s\n", error.c_str());
      std::exit(2);
    }
    in->resolver.reset(pb::util::NewTypeResolverForDescriptorPool(
        kTypeUrlPrefix, pb::DescriptorPool::generated_pool()));
    rosetta::test::LogRecord record = Record(0);
    rosetta::test::LogBatch batch;
    for (int i = 0; i < kBatch; ++i) *batch.add_records() = Record(i);
    record.SerializeToString(&in->record_wire);
    batch.SerializeToString(&in->batch_wire);
    pb::util::MessageToJsonString(record, &in->record_json);
    pb::util::MessageToJsonString(batch, &in->batch_json);
    Pad(in->record_json);
    Pad(in->batch_json);
    return in;
  }();
  return *inputs;
}

std::string TypeUrl(const char* type) {
  std::string url(kTypeUrlPrefix);
  url.append("/").append(type);
  return url;
}

void Report(benchmark::State& state, size_t input_bytes, int messages) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input_bytes));
  state.counters["per_msg"] = benchmark::Counter(
      static_cast<double>(messages),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["input_bytes"] = static_cast<double>(input_bytes);
}

// --- JSON -> protobuf ----------------------------------------------------------------------

void Rosetta(benchmark::State& state, Format from, Format to, const std::string& input,
             const char* type, int messages) {
  const Inputs& in = TheInputs();
  rosetta::codec::TranscodeRequest request;
  request.from = from;
  request.to = to;
  request.input = input;
  request.input_padding = from == Format::kJson ? rosetta::codec::kInputPadding : 0;
  request.schema = in.schema.get();
  request.message_type = type;
  rosetta::codec::OutputBuffer out;  // kept between requests, as a server thread keeps it
  for (auto _ : state) {
    rosetta::codec::Status s = rosetta::codec::Transcode(request, out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, input.size(), messages);
}

void BM_JsonToProtobuf_Rosetta_Record(benchmark::State& state) {
  Rosetta(state, Format::kJson, Format::kProtobuf, TheInputs().record_json,
          "rosetta.test.LogRecord", 1);
}
void BM_JsonToProtobuf_Rosetta_Batch(benchmark::State& state) {
  Rosetta(state, Format::kJson, Format::kProtobuf, TheInputs().batch_json, "rosetta.test.LogBatch",
          kBatch);
}

template <class M>
void LibprotobufJsonToMessage(benchmark::State& state, const std::string& json, int messages) {
  std::string wire;
  for (auto _ : state) {
    M m;
    if (!pb::util::JsonStringToMessage(json, &m).ok()) {
      state.SkipWithError("JsonStringToMessage failed");
      break;
    }
    wire.clear();
    m.SerializeToString(&wire);
    benchmark::DoNotOptimize(wire.data());
  }
  Report(state, json.size(), messages);
}
void BM_JsonToProtobuf_LibprotobufMessage_Record(benchmark::State& state) {
  LibprotobufJsonToMessage<rosetta::test::LogRecord>(state, TheInputs().record_json, 1);
}
void BM_JsonToProtobuf_LibprotobufMessage_Batch(benchmark::State& state) {
  LibprotobufJsonToMessage<rosetta::test::LogBatch>(state, TheInputs().batch_json, kBatch);
}

void LibprotobufJsonToBinary(benchmark::State& state, const std::string& json, const char* type,
                             int messages) {
  const std::string url = TypeUrl(type);
  std::string wire;
  for (auto _ : state) {
    wire.clear();
    if (!pb::util::JsonToBinaryString(TheInputs().resolver.get(), url, json, &wire).ok()) {
      state.SkipWithError("JsonToBinaryString failed");
      break;
    }
    benchmark::DoNotOptimize(wire.data());
  }
  Report(state, json.size(), messages);
}
void BM_JsonToProtobuf_LibprotobufBinary_Record(benchmark::State& state) {
  LibprotobufJsonToBinary(state, TheInputs().record_json, "rosetta.test.LogRecord", 1);
}
void BM_JsonToProtobuf_LibprotobufBinary_Batch(benchmark::State& state) {
  LibprotobufJsonToBinary(state, TheInputs().batch_json, "rosetta.test.LogBatch", kBatch);
}

// --- protobuf -> JSON ----------------------------------------------------------------------

void BM_ProtobufToJson_Rosetta_Record(benchmark::State& state) {
  Rosetta(state, Format::kProtobuf, Format::kJson, TheInputs().record_wire,
          "rosetta.test.LogRecord", 1);
}
void BM_ProtobufToJson_Rosetta_Batch(benchmark::State& state) {
  Rosetta(state, Format::kProtobuf, Format::kJson, TheInputs().batch_wire, "rosetta.test.LogBatch",
          kBatch);
}

template <class M>
void LibprotobufMessageToJson(benchmark::State& state, const std::string& wire, int messages) {
  std::string json;
  for (auto _ : state) {
    M m;
    if (!m.ParseFromString(wire)) {
      state.SkipWithError("ParseFromString failed");
      break;
    }
    json.clear();
    pb::util::MessageToJsonString(m, &json);
    benchmark::DoNotOptimize(json.data());
  }
  Report(state, wire.size(), messages);
}
void BM_ProtobufToJson_LibprotobufMessage_Record(benchmark::State& state) {
  LibprotobufMessageToJson<rosetta::test::LogRecord>(state, TheInputs().record_wire, 1);
}
void BM_ProtobufToJson_LibprotobufMessage_Batch(benchmark::State& state) {
  LibprotobufMessageToJson<rosetta::test::LogBatch>(state, TheInputs().batch_wire, kBatch);
}

void LibprotobufBinaryToJson(benchmark::State& state, const std::string& wire, const char* type,
                             int messages) {
  const std::string url = TypeUrl(type);
  std::string json;
  for (auto _ : state) {
    json.clear();
    if (!pb::util::BinaryToJsonString(TheInputs().resolver.get(), url, wire, &json).ok()) {
      state.SkipWithError("BinaryToJsonString failed");
      break;
    }
    benchmark::DoNotOptimize(json.data());
  }
  Report(state, wire.size(), messages);
}
void BM_ProtobufToJson_LibprotobufBinary_Record(benchmark::State& state) {
  LibprotobufBinaryToJson(state, TheInputs().record_wire, "rosetta.test.LogRecord", 1);
}
void BM_ProtobufToJson_LibprotobufBinary_Batch(benchmark::State& state) {
  LibprotobufBinaryToJson(state, TheInputs().batch_wire, "rosetta.test.LogBatch", kBatch);
}

BENCHMARK(BM_JsonToProtobuf_Rosetta_Record);
BENCHMARK(BM_JsonToProtobuf_LibprotobufMessage_Record);
BENCHMARK(BM_JsonToProtobuf_LibprotobufBinary_Record);
BENCHMARK(BM_JsonToProtobuf_Rosetta_Batch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonToProtobuf_LibprotobufMessage_Batch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonToProtobuf_LibprotobufBinary_Batch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProtobufToJson_Rosetta_Record);
BENCHMARK(BM_ProtobufToJson_LibprotobufMessage_Record);
BENCHMARK(BM_ProtobufToJson_LibprotobufBinary_Record);
BENCHMARK(BM_ProtobufToJson_Rosetta_Batch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProtobufToJson_LibprotobufMessage_Batch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProtobufToJson_LibprotobufBinary_Batch)->Unit(benchmark::kMillisecond);

// Before any timing: rosetta's output must be what libprotobuf reads back as the input.
void CheckAgreement() {
  const Inputs& in = TheInputs();
  rosetta::codec::OutputBuffer out;
  rosetta::codec::TranscodeRequest r;
  r.from = Format::kJson;
  r.to = Format::kProtobuf;
  r.input = in.batch_json;
  r.input_padding = rosetta::codec::kInputPadding;
  r.schema = in.schema.get();
  r.message_type = "rosetta.test.LogBatch";
  rosetta::codec::Status s = rosetta::codec::Transcode(r, out);
  rosetta::test::LogBatch from_json, expected;
  expected.ParseFromString(in.batch_wire);
  if (!s.ok() || !from_json.ParseFromArray(out.data(), static_cast<int>(out.size())) ||
      !pb::util::MessageDifferencer::Equals(from_json, expected)) {
    std::fprintf(stderr, "rosetta JSON -> protobuf disagrees with libprotobuf: %s\n",
                 s.ToString().c_str());
    std::exit(1);
  }
  r.from = Format::kProtobuf;
  r.to = Format::kJson;
  r.input = in.batch_wire;
  r.input_padding = 0;
  s = rosetta::codec::Transcode(r, out);
  rosetta::test::LogBatch from_wire;
  if (!s.ok() || !pb::util::JsonStringToMessage(std::string(out.view()), &from_wire).ok() ||
      !pb::util::MessageDifferencer::Equals(from_wire, expected)) {
    std::fprintf(stderr, "rosetta protobuf -> JSON disagrees with libprotobuf: %s\n",
                 s.ToString().c_str());
    std::exit(1);
  }
  std::fprintf(stderr,
               "record: %zu bytes protobuf, %zu bytes JSON; batch of %d: %zu bytes protobuf, %zu "
               "bytes JSON\n",
               in.record_wire.size(), in.record_json.size(), kBatch, in.batch_wire.size(),
               in.batch_json.size());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CheckAgreement();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

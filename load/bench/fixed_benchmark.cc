// Fixed records (docs/benchmarks.md "Fixed records"): 10,000 records of a mesh-like type
// (Triangle: three float32 Vec3 vertices and a normal, 48 bytes) and of a log-like type of
// scalars (LogRecord, 81 bytes), tests/codec/fixed/testdata/fixed.proto, each way:
//   fixed -> MessagePack, CBOR, JSON        the records as a sequence, one Transcode call
//   protobuf -> JSON                        the same records as one protobuf message (a
//                                           repeated field): rosetta, and libprotobuf's
//                                           BinaryToJsonString
//   JSON -> fixed                           the records as JSON Lines through RunSequence
//   JSON -> protobuf                        the same records as one JSON document: rosetta,
//                                           and libprotobuf's JsonToBinaryString
//   fixed -> fixed                          check and copy, beside memcpy of the same bytes
// Counters: bytes_per_second of the input, per_record.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include "rosetta/codec/schema.h"
#include "rosetta/codec/sequence.h"
#include "rosetta/codec/transcode.h"

namespace {

namespace pb = google::protobuf;
using rosetta::codec::Format;

constexpr int kRecords = 10000;
constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

struct Kind {
  const char* record_type;
  const char* batch_type;
  std::string fixed;       // records back to back
  std::string lines;       // JSON Lines
  std::string batch_pb;    // one protobuf message holding them
  std::string batch_json;  // the same as one JSON document
  std::string array_json;  // the records as one JSON array (JSON -> fixed: records back to back)
};

struct Inputs {
  std::unique_ptr<rosetta::codec::Schema> schema;
  pb::DescriptorPool pool;
  std::unique_ptr<pb::util::TypeResolver> resolver;
  Kind mesh{"rosetta.fixedtest.Triangle", "rosetta.fixedtest.TriangleBatch", {}, {}, {}, {}, {}};
  Kind log{"rosetta.fixedtest.LogRecord", "rosetta.fixedtest.LogBatch", {}, {}, {}, {}, {}};
};

template <class T>
void Put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

rosetta::codec::Status Run(const Inputs& in, Format from, Format to, const char* type,
                           const std::string& input, rosetta::codec::OutputBuffer& out,
                           bool records) {
  rosetta::codec::TranscodeRequest r;
  r.from = from;
  r.to = to;
  r.input = input;
  r.input_padding = input.capacity() - input.size();
  r.schema = in.schema.get();
  r.message_type = type;
  r.limits.max_input_bytes = r.limits.max_output_bytes = 1 << 30;
  r.limits.max_items = 1 << 30;
  r.limits.max_alloc_bytes = uint64_t{1} << 32;
  uint64_t end = 0;
  if (records) r.item_end = &end;  // fixed input: the records of a sequence
  return rosetta::codec::Transcode(r, out);
}

// The batch messages' JSON, and the records' JSON Lines, made by rosetta from the fixed
// records, checked against libprotobuf below.
void Fill(Inputs& in, Kind& k) {
  rosetta::codec::OutputBuffer out;
  if (!Run(in, Format::kFixed, Format::kJson, k.record_type, k.fixed, out, true).ok()) std::exit(2);
  k.lines.assign(out.view());
  k.lines.reserve(k.lines.size() + 64);
  // The batch: {"items":[record,record,...]}.
  std::string json = "{\"items\":[";
  size_t at = 0;
  for (int i = 0; i < kRecords; ++i) {
    const size_t nl = k.lines.find('\n', at);
    if (i) json += ',';
    json.append(k.lines, at, nl - at);
    at = nl + 1;
  }
  json += "]}";
  k.batch_json = json;
  k.array_json = json.substr(9, json.size() - 10);  // [record,record,...]
  k.array_json.reserve(k.array_json.size() + 64);
  k.batch_json.reserve(k.batch_json.size() + 64);
  rosetta::codec::Status s =
      Run(in, Format::kJson, Format::kProtobuf, k.batch_type, k.batch_json, out, false);
  if (!s.ok()) {
    std::fprintf(stderr, "batch JSON -> protobuf: %s\n", s.ToString(true).c_str());
    std::exit(2);
  }
  k.batch_pb.assign(out.view());
  // libprotobuf must read the batch as the same JSON.
  std::string lib_json;
  if (!pb::util::BinaryToJsonString(in.resolver.get(),
                                    std::string(kTypeUrlPrefix) + "/" + k.batch_type, k.batch_pb,
                                    &lib_json)
           .ok()) {
    std::fprintf(stderr, "libprotobuf cannot read the %s batch\n", k.record_type);
    std::exit(2);
  }
}

const Inputs& TheInputs() {
  static Inputs* inputs = [] {
    auto* in = new Inputs;
    std::string error;
    in->schema = rosetta::codec::Schema::Load({ROSETTA_FIXED_BENCH_DESCRIPTORS}, &error);
    if (!in->schema) {
      std::fprintf(stderr, "%s\n", error.c_str());
      std::exit(2);
    }
    in->resolver.reset(pb::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix, &in->pool));
    pb::FileDescriptorSet set;
    {
      FILE* f = std::fopen(ROSETTA_FIXED_BENCH_DESCRIPTORS, "rb");
      std::string bytes;
      char buf[65536];
      size_t n;
      while (f && (n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
      if (f) std::fclose(f);
      set.ParseFromString(bytes);
      for (const auto& file : set.file()) {
        if (in->pool.FindFileByName(file.name()) == nullptr) in->pool.BuildFile(file);
      }
    }
    std::mt19937_64 rng(48);
    auto coord = [&] {
      return static_cast<float>(static_cast<int>(rng() % 2000001) - 1000000) / 1000.0f;
    };
    for (int i = 0; i < kRecords; ++i) {
      for (int v = 0; v < 12; ++v) Put(in->mesh.fixed, coord());
      Put<uint64_t>(in->log.fixed, 1714566896000000000ull + static_cast<uint64_t>(i) * 1000003);
      Put<int32_t>(in->log.fixed, 1 + i % 4);
      Put<uint32_t>(in->log.fixed, static_cast<uint32_t>(rng() % 64));
      Put<uint64_t>(in->log.fixed, rng() % 100000000);
      Put<double>(in->log.fixed, static_cast<double>(rng() % 100000) / 100.0);
      Put<uint8_t>(in->log.fixed, static_cast<uint8_t>(rng() & 1));
      Put<int64_t>(in->log.fixed, static_cast<int64_t>(rng() % 2000) - 1000);
      Put<int64_t>(in->log.fixed, static_cast<int64_t>(rng() % 1000000));
      Put<uint32_t>(in->log.fixed, 200 + static_cast<uint32_t>(rng() % 4) * 100);
      Put<float>(in->log.fixed, static_cast<float>(rng() % 1000) / 10.0f);
      Put<int32_t>(in->log.fixed, static_cast<int32_t>(rng() % 16));
      Put<int32_t>(in->log.fixed, static_cast<int32_t>(rng() % 8));
      Put<int32_t>(in->log.fixed, static_cast<int32_t>(rng() % 200) - 100);
      Put<uint32_t>(in->log.fixed, static_cast<uint32_t>(rng()));
      Put<int64_t>(in->log.fixed, static_cast<int64_t>(rng() % 10000000) - 5000000);
    }
    in->mesh.fixed.reserve(in->mesh.fixed.size() + 64);
    in->log.fixed.reserve(in->log.fixed.size() + 64);
    Fill(*in, in->mesh);
    Fill(*in, in->log);
    std::fprintf(stderr,
                 "mesh: %zu B fixed, %zu B JSON Lines, %zu B protobuf; log: %zu, %zu, %zu\n",
                 in->mesh.fixed.size(), in->mesh.lines.size(), in->mesh.batch_pb.size(),
                 in->log.fixed.size(), in->log.lines.size(), in->log.batch_pb.size());
    return in;
  }();
  return *inputs;
}

const Kind& K(int mesh) { return mesh ? TheInputs().mesh : TheInputs().log; }

void Report(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["per_record"] = benchmark::Counter(
      kRecords, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void Rosetta(benchmark::State& state, Format from, Format to, bool batch_side) {
  const Inputs& in = TheInputs();
  const Kind& k = K(static_cast<int>(state.range(0)));
  const std::string& input = from == Format::kFixed      ? k.fixed
                             : from == Format::kProtobuf ? k.batch_pb
                             : to == Format::kFixed      ? k.array_json
                                                         : k.batch_json;
  const char* type = batch_side ? k.batch_type : k.record_type;
  rosetta::codec::OutputBuffer out;
  for (auto _ : state) {
    rosetta::codec::Status s = Run(in, from, to, type, input, out, from == Format::kFixed);
    if (!s.ok()) {
      state.SkipWithError(s.ToString(true).c_str());
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, input.size());
}

void BM_FixedToMsgpack(benchmark::State& s) { Rosetta(s, Format::kFixed, Format::kMsgpack, false); }
void BM_FixedToCbor(benchmark::State& s) { Rosetta(s, Format::kFixed, Format::kCbor, false); }
void BM_FixedToJson(benchmark::State& s) { Rosetta(s, Format::kFixed, Format::kJson, false); }
void BM_FixedToFixed(benchmark::State& s) { Rosetta(s, Format::kFixed, Format::kFixed, false); }
// The records as one JSON array -> fixed records back to back.
void BM_JsonToFixed(benchmark::State& s) { Rosetta(s, Format::kJson, Format::kFixed, false); }
void BM_ProtobufToJson_Rosetta(benchmark::State& s) {
  Rosetta(s, Format::kProtobuf, Format::kJson, true);
}
void BM_JsonToProtobuf_Rosetta(benchmark::State& s) {
  Rosetta(s, Format::kJson, Format::kProtobuf, true);
}

void BM_Memcpy(benchmark::State& state) {
  const Kind& k = K(static_cast<int>(state.range(0)));
  std::vector<char> out(k.fixed.size());
  for (auto _ : state) {
    std::memcpy(out.data(), k.fixed.data(), k.fixed.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  Report(state, k.fixed.size());
}

// JSON Lines -> fixed records, from memory through RunSequence (a record per line).
void BM_JsonLinesToFixed(benchmark::State& state) {
  const Inputs& in = TheInputs();
  const Kind& k = K(static_cast<int>(state.range(0)));
  struct Reader {
    const std::string* data;
    size_t at;
    static ptrdiff_t Read(void* arg, char* p, size_t n) {
      auto* r = static_cast<Reader*>(arg);
      const size_t take = std::min(n, r->data->size() - r->at);
      std::memcpy(p, r->data->data() + r->at, take);
      r->at += take;
      return static_cast<ptrdiff_t>(take);
    }
  };
  rosetta::codec::OutputBuffer out;
  for (auto _ : state) {
    Reader reader{&k.lines, 0};
    rosetta::codec::SequenceRequest r;
    r.record.from = Format::kJson;
    r.record.to = Format::kFixed;
    r.record.schema = in.schema.get();
    r.record.message_type = k.record_type;
    r.read = &Reader::Read;
    r.read_arg = &reader;
    rosetta::codec::SequenceProgress progress;
    rosetta::codec::RunSequence(r, out, &progress);
    if (progress.refused != 0 || progress.records != kRecords) {
      state.SkipWithError("JSON Lines -> fixed refused a record");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, k.lines.size());
}

void BM_ProtobufToJson_LibprotobufBinary(benchmark::State& state) {
  const Inputs& in = TheInputs();
  const Kind& k = K(static_cast<int>(state.range(0)));
  const std::string url = std::string(kTypeUrlPrefix) + "/" + k.batch_type;
  std::string json;
  for (auto _ : state) {
    json.clear();
    if (!pb::util::BinaryToJsonString(in.resolver.get(), url, k.batch_pb, &json).ok()) {
      state.SkipWithError("BinaryToJsonString failed");
      break;
    }
    benchmark::DoNotOptimize(json.data());
  }
  Report(state, k.batch_pb.size());
}

void BM_JsonToProtobuf_LibprotobufBinary(benchmark::State& state) {
  const Inputs& in = TheInputs();
  const Kind& k = K(static_cast<int>(state.range(0)));
  const std::string url = std::string(kTypeUrlPrefix) + "/" + k.batch_type;
  std::string wire;
  for (auto _ : state) {
    wire.clear();
    if (!pb::util::JsonToBinaryString(in.resolver.get(), url, k.batch_json, &wire).ok()) {
      state.SkipWithError("JsonToBinaryString failed");
      break;
    }
    benchmark::DoNotOptimize(wire.data());
  }
  Report(state, k.batch_json.size());
}

// Arg 1: the mesh records; 0: the log records.
#define ROSETTA_FIXED_BENCH(name) \
  BENCHMARK(name)->ArgName("mesh")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)
ROSETTA_FIXED_BENCH(BM_FixedToMsgpack);
ROSETTA_FIXED_BENCH(BM_FixedToCbor);
ROSETTA_FIXED_BENCH(BM_FixedToJson);
ROSETTA_FIXED_BENCH(BM_ProtobufToJson_Rosetta);
ROSETTA_FIXED_BENCH(BM_ProtobufToJson_LibprotobufBinary);
ROSETTA_FIXED_BENCH(BM_JsonToFixed);
ROSETTA_FIXED_BENCH(BM_JsonLinesToFixed);
ROSETTA_FIXED_BENCH(BM_JsonToProtobuf_Rosetta);
ROSETTA_FIXED_BENCH(BM_JsonToProtobuf_LibprotobufBinary);
ROSETTA_FIXED_BENCH(BM_FixedToFixed);
ROSETTA_FIXED_BENCH(BM_Memcpy);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TheInputs();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

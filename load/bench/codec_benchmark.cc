// Codec throughput against peers on the simdjson corpus, and the cost of refusing a
// claimed 4 GiB string. MB/s are of INPUT bytes. Results: docs/benchmarks.md.
//
// Names are PAIR/FILE/IMPLEMENTATION, e.g. json_to_cbor/twitter/rosetta, so that
// scripts/bench.sh can put every implementation of one pair and file in one row.

#include <benchmark/benchmark.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "heap/heap_counter.h"
#include "rosetta/codec/format.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::load {
namespace {

using codec::Format;
using codec::kInputPadding;
using codec::OutputBuffer;
using codec::Status;
using codec::Transcode;
using codec::TranscodeRequest;
using codec::TranscodeStats;

// Bytes with kInputPadding zero bytes readable after them: rosetta's JSON reader reads
// in place, and RapidJSON's StringStream finds its terminating NUL.
class PaddedInput {
 public:
  PaddedInput() = default;
  explicit PaddedInput(std::string_view bytes)
      : bytes_(bytes.size() + kInputPadding, '\0'), size_(bytes.size()) {
    bytes.copy(bytes_.data(), bytes.size());
  }
  std::string_view view() const { return {bytes_.data(), size_}; }
  const uint8_t* begin() const { return reinterpret_cast<const uint8_t*>(bytes_.data()); }
  const uint8_t* end() const { return begin() + size_; }
  size_t size() const { return size_; }

 private:
  std::string bytes_;
  size_t size_ = 0;
};

struct Document {
  std::string name;  // file name without .json
  PaddedInput json;
  PaddedInput cbor;     // made by rosetta from json, once, before any timing
  PaddedInput msgpack;  // likewise

  const PaddedInput& In(Format f) const {
    return f == Format::kJson ? json : f == Format::kCbor ? cbor : msgpack;
  }
};

std::string CorpusDir() {
  const char* env = std::getenv("ROSETTA_DATA_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : ROSETTA_DEFAULT_DATA_DIR) + "/corpus";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// Rosetta makes the binary inputs; a failure here is a codec bug, so the run stops.
// Duplicate keys are allowed here only: the corpus has none, so the output is the same,
// and a false duplicate_key in the codec then fails the timed benchmarks, not the setup.
PaddedInput Convert(const PaddedInput& json, Format to, const std::string& name) {
  TranscodeRequest request;
  request.from = Format::kJson;
  request.to = to;
  request.input = json.view();
  request.input_padding = kInputPadding;
  request.options.allow_duplicate_keys = true;
  OutputBuffer out;
  Status status = Transcode(request, out);
  if (!status.ok()) {
    std::fprintf(stderr, "cannot make %s input from %s: %s\n",
                 std::string(codec::FormatName(to)).c_str(), name.c_str(),
                 status.ToString().c_str());
    std::exit(2);
  }
  return PaddedInput(out.view());
}

struct Pair {
  Format from;
  Format to;
};

std::string PairName(Pair p) {
  return std::string(codec::FormatName(p.from)) + "_to_" + std::string(codec::FormatName(p.to));
}

// Heap calls made inside the timed loop, per iteration, as counters.
class HeapScope {
 public:
  HeapScope() : start_(heap::Process()) {}
  void Report(benchmark::State& state) const {
    const heap::Counts now = heap::Process();
    state.counters["heap_allocs"] = benchmark::Counter(
        static_cast<double>(now.calls - start_.calls), benchmark::Counter::kAvgIterations);
    state.counters["heap_bytes"] = benchmark::Counter(static_cast<double>(now.bytes - start_.bytes),
                                                      benchmark::Counter::kAvgIterations);
  }

 private:
  heap::Counts start_;
};

// One transcode per iteration into one OutputBuffer kept across iterations, as a server
// thread does. Default options (strict mapping, duplicate keys refused) unless
// `allow_duplicate_keys`, which measures what the I-JSON duplicate check costs.
void RosettaTranscode(benchmark::State& state, const Document* doc, Pair pair,
                      bool allow_duplicate_keys, bool deterministic) {
  const PaddedInput& input = doc->In(pair.from);
  TranscodeRequest request;
  request.from = pair.from;
  request.to = pair.to;
  request.input = input.view();
  request.input_padding = kInputPadding;
  request.options.allow_duplicate_keys = allow_duplicate_keys;
  request.options.deterministic = deterministic;
  OutputBuffer out;
  TranscodeStats stats;
  if (Status s = Transcode(request, out, &stats); !s.ok()) {  // warm-up, untimed
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  HeapScope heap;
  for (auto _ : state) {
    Status s = Transcode(request, out, &stats);
    if (!s.ok()) [[unlikely]] {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  heap.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.counters["output_bytes"] = static_cast<double>(out.size());
  state.counters["budget_bytes"] = static_cast<double>(stats.allocated_bytes);
}

// nlohmann::json has no streaming transcode: it builds a tree and serializes it. The
// output vector is reused; dump() makes a new string each time, as its API does.
void NlohmannTranscode(benchmark::State& state, const Document* doc, Pair pair) {
  using nlohmann::json;
  const PaddedInput& input = doc->In(pair.from);
  std::vector<uint8_t> binary;
  size_t out_size = 0;
  auto once = [&]() {
    json j = pair.from == Format::kJson   ? json::parse(input.begin(), input.end())
             : pair.from == Format::kCbor ? json::from_cbor(input.begin(), input.end())
                                          : json::from_msgpack(input.begin(), input.end());
    switch (pair.to) {
      case Format::kJson: {
        std::string text = j.dump();
        out_size = text.size();
        benchmark::DoNotOptimize(text.data());
        break;
      }
      case Format::kCbor:
        binary.clear();
        json::to_cbor(j, binary);
        out_size = binary.size();
        break;
      default:
        binary.clear();
        json::to_msgpack(j, binary);
        out_size = binary.size();
        break;
    }
    benchmark::ClobberMemory();
  };
  try {
    once();  // warm-up, untimed
    HeapScope heap;
    for (auto _ : state) once();
    heap.Report(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.counters["output_bytes"] = static_cast<double>(out_size);
}

// RapidJSON has no CBOR or MessagePack; its SAX Reader driving its Writer (JSON to
// minified JSON) is its closest equivalent of a streaming transcode. kParseDefaultFlags:
// no UTF-8 validation, doubles by its fast (not always exact) path. The _strict variant
// adds kParseValidateEncodingFlag | kParseFullPrecisionFlag, the work rosetta always does.
template <unsigned kFlags>
void RapidJsonSaxMinify(benchmark::State& state, const Document* doc) {
  const PaddedInput& input = doc->json;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  rapidjson::Reader reader;
  auto once = [&]() {
    buffer.Clear();
    writer.Reset(buffer);
    rapidjson::StringStream stream(input.view().data());  // stops at the padding's NUL
    return reader.Parse<kFlags>(stream, writer);
  };
  if (rapidjson::ParseResult r = once(); r.IsError()) {
    state.SkipWithError(
        ("rapidjson error " + std::to_string(r.Code()) + " at " + std::to_string(r.Offset()))
            .c_str());
    return;
  }
  HeapScope heap;
  for (auto _ : state) {
    rapidjson::ParseResult r = once();
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(buffer.GetString());
    benchmark::ClobberMemory();
  }
  heap.Report(state);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.counters["output_bytes"] = static_cast<double>(buffer.GetSize());
}

// DESIGN.md "Limits": a 12-byte input that claims a 4 GiB string is refused with nothing
// allocated. `fresh_output`: a new OutputBuffer per refusal (a thread's first request)
// instead of the server's reused one.
void RosettaRefusal(benchmark::State& state, Format from, std::string_view twelve_bytes,
                    bool fresh_output) {
  const PaddedInput input(twelve_bytes);
  TranscodeRequest request;
  request.from = from;
  request.to = Format::kJson;
  request.input = input.view();
  request.input_padding = kInputPadding;
  TranscodeStats stats;
  OutputBuffer reused;
  Status first = Transcode(request, reused, &stats);
  if (first.ok()) {
    state.SkipWithError("a 12-byte input claiming 4 GiB was accepted");
    return;
  }
  uint64_t max_allocated = 0;
  uint64_t max_peak = 0;
  HeapScope heap;
  for (auto _ : state) {
    if (fresh_output) {
      OutputBuffer out;
      Status s = Transcode(request, out, &stats);
      benchmark::DoNotOptimize(s.code);
    } else {
      Status s = Transcode(request, reused, &stats);
      benchmark::DoNotOptimize(s.code);
    }
    // Reading stats is part of what is timed, and negligible; max over every refusal.
    max_allocated = stats.allocated_bytes > max_allocated ? stats.allocated_bytes : max_allocated;
    max_peak = stats.peak_bytes > max_peak ? stats.peak_bytes : max_peak;
  }
  heap.Report(state);
  state.counters["allocated_bytes"] = static_cast<double>(max_allocated);
  state.counters["peak_bytes"] = static_cast<double>(max_peak);
  state.SetLabel(std::string(codec::CodeName(first.code)) + " at byte " +
                 std::to_string(first.offset));
}

std::vector<Document>& Documents() {
  static std::vector<Document> documents;
  return documents;
}

// The documents: the corpus trio, or ROSETTA_BENCH_DOCS="DIR:name,name,..." (DIR/name.json),
// e.g. the data sets of rosetta-datasets, for the same table on them.
std::pair<std::string, std::vector<std::string>> BenchDocuments() {
  if (const char* env = std::getenv("ROSETTA_BENCH_DOCS"); env != nullptr && *env != '\0') {
    std::string spec(env);
    const size_t colon = spec.rfind(':');
    std::vector<std::string> names;
    for (size_t at = colon + 1; at <= spec.size();) {
      size_t comma = spec.find(',', at);
      if (comma == std::string::npos) comma = spec.size();
      if (comma > at) names.push_back(spec.substr(at, comma - at));
      at = comma + 1;
    }
    return {spec.substr(0, colon), names};
  }
  return {CorpusDir(), {"twitter", "citm_catalog", "canada"}};
}

void RegisterAll() {
  const auto [dir, names] = BenchDocuments();
  for (const std::string& name_string : names) {
    const char* name = name_string.c_str();
    Document doc;
    doc.name = name;
    std::string bytes;
    if (!ReadFile(dir + "/" + name + ".json", &bytes)) {
      std::fprintf(stderr,
                   "cannot read %s/%s.json (set ROSETTA_DATA_DIR to the folder holding corpus/)\n",
                   dir.c_str(), name);
      std::exit(2);
    }
    doc.json = PaddedInput(bytes);
    doc.cbor = Convert(doc.json, Format::kCbor, doc.name);
    doc.msgpack = Convert(doc.json, Format::kMsgpack, doc.name);
    Documents().push_back(std::move(doc));
  }
  const Pair pairs[] = {{Format::kJson, Format::kCbor},    {Format::kCbor, Format::kJson},
                        {Format::kJson, Format::kMsgpack}, {Format::kMsgpack, Format::kJson},
                        {Format::kCbor, Format::kMsgpack}, {Format::kJson, Format::kJson}};
  for (const Document& doc : Documents()) {
    const Document* d = &doc;
    for (Pair p : pairs) {
      const std::string prefix = PairName(p) + "/" + d->name + "/";
      benchmark::RegisterBenchmark((prefix + "rosetta").c_str(), RosettaTranscode, d, p, false,
                                   false);
      benchmark::RegisterBenchmark((prefix + "rosetta_dupkeys_allowed").c_str(), RosettaTranscode,
                                   d, p, true, false);
      benchmark::RegisterBenchmark((prefix + "nlohmann").c_str(), NlohmannTranscode, d, p);
      if (p.to == Format::kCbor)  // option deterministic: every map's entries sorted
        benchmark::RegisterBenchmark((prefix + "rosetta_deterministic").c_str(), RosettaTranscode,
                                     d, p, false, true);
    }
    const std::string prefix = "json_to_json/" + d->name + "/";
    benchmark::RegisterBenchmark((prefix + "rapidjson_sax_minify").c_str(),
                                 RapidJsonSaxMinify<rapidjson::kParseDefaultFlags>, d);
    benchmark::RegisterBenchmark((prefix + "rapidjson_sax_minify_strict").c_str(),
                                 RapidJsonSaxMinify<rapidjson::kParseValidateEncodingFlag |
                                                    rapidjson::kParseFullPrecisionFlag>,
                                 d);
  }
  // CBOR: byte string (major type 2) with an 8-byte length of 2^32, then 3 bytes.
  static constexpr char kCbor4GiB[12] = {'\x5b', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  // MessagePack: bin 32 with a length of 2^32 - 1, then 7 bytes.
  static constexpr char kMsgpack4GiB[12] = {'\xc6', '\xff', '\xff', '\xff', '\xff', 0,
                                            0,      0,      0,      0,      0,      0};
  for (bool fresh : {false, true}) {
    const char* variant = fresh ? "fresh_output" : "reused_output";
    benchmark::RegisterBenchmark((std::string("refuse_4gib/cbor/") + variant).c_str(),
                                 RosettaRefusal, Format::kCbor, std::string_view(kCbor4GiB, 12),
                                 fresh);
    benchmark::RegisterBenchmark((std::string("refuse_4gib/msgpack/") + variant).c_str(),
                                 RosettaRefusal, Format::kMsgpack,
                                 std::string_view(kMsgpack4GiB, 12), fresh);
  }
}

}  // namespace
}  // namespace rosetta::load

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  rosetta::load::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

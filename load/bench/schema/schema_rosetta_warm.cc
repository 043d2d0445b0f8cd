// rosetta-schema-warm: `rosetta validate --seq --keep-going [--schema S]` in-process, for the
// JSON Schema benchmark's warm rows (load/bench/schema_bench.py), timed as the peers' warm
// harnesses are (warm_loop.h).
//
//   rosetta-schema-warm warm SCHEMA|- FILE [--format json|cbor|msgpack] [--runs N]
//                       [--warmup-s S] [--min-run-s S]
//
// The schema is compiled once, as the CLI compiles it (JsonSchemaSet::LoadFile; "-": no
// schema), and FILE is read into memory once. A pass is what the CLI does after that:
// RunSequence over the bytes (handed over a MiB at a time, as read(2) would), every record
// read and validated on its own under the default limits. No process start, no file read.
// Prints {"records","invalid","bytes","compile_ms","schema_heap_bytes","compiled_bytes",
// ...,"median_s","mbps",...} as JSON (a pass's median over --runs timed runs, after
// --warmup-s seconds of passes). schema_heap_bytes: the heap a second load of the schema
// holds while it is kept (a second one, so that nothing a process makes once, at its first
// load, is counted); compiled_bytes: what that set counts against max_schema_bytes.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/format.h"
#include "rosetta/codec/json_schema.h"
#include "rosetta/codec/sequence.h"
#include "warm_loop.h"

namespace {

namespace codec = rosetta::codec;

[[noreturn]] void Usage(const char* message) {
  std::fprintf(stderr,
               "rosetta-schema-warm: %s\nusage: rosetta-schema-warm warm SCHEMA|- FILE "
               "[--format json|cbor|msgpack] [--runs N] [--warmup-s S] [--min-run-s S]\n",
               message);
  std::exit(2);
}

struct Memory {
  std::string_view bytes;
  size_t at = 0;
  static ptrdiff_t Read(void* arg, char* p, size_t n) {
    auto* m = static_cast<Memory*>(arg);
    const size_t k = std::min(n, m->bytes.size() - m->at);
    std::memcpy(p, m->bytes.data() + m->at, k);
    m->at += k;
    return static_cast<ptrdiff_t>(k);
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<const char*> positional;
  schema_bench::WarmOptions warm;
  codec::Format format = codec::Format::kJson;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (warm.Take(argc, argv, i)) {
      continue;
    } else if (a == "--format" && i + 1 < argc) {
      const std::optional<codec::Format> f = codec::ParseFormat(argv[++i]);
      if (!f) Usage("unknown format");
      format = *f;
    } else if (a.substr(0, 2) == "--") {
      Usage("unknown option");
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.size() != 3 || std::string_view(positional[0]) != "warm" || warm.runs < 1)
    Usage("wrong arguments");

  std::shared_ptr<const codec::JsonSchemaSet> set;
  const codec::JsonSchema* schema = nullptr;
  double compile_ms = 0;
  size_t schema_heap_bytes = 0, compiled_bytes = 0;
  if (std::string_view(positional[1]) != "-") {
    const auto t0 = schema_bench::Clock::now();
    std::string error;
    set = codec::JsonSchemaSet::LoadFile(positional[1], "", &error);
    if (!set) {
      std::fprintf(stderr, "rosetta-schema-warm: %s\n", error.c_str());
      return 2;
    }
    const std::vector<std::string> names = set->Names();
    schema = names.size() == 1 ? set->Find(names[0]) : nullptr;
    if (schema == nullptr) Usage("the schema file loads no single schema");
    compile_ms = schema_bench::Seconds(t0, schema_bench::Clock::now()) * 1e3;
    const size_t before = schema_bench::HeapInUse();
    std::shared_ptr<const codec::JsonSchemaSet> again =
        codec::JsonSchemaSet::LoadFile(positional[1], "", &error);
    if (!again) {
      std::fprintf(stderr, "rosetta-schema-warm: %s\n", error.c_str());
      return 2;
    }
    schema_heap_bytes = schema_bench::HeapInUse() - before;
    compiled_bytes = again->compiled_bytes();
  }
  // The records page-aligned, as a file's page cache holds them for the CLI's read(2), so
  // that the copy into the reader's window (which keeps the input's alignment) does not
  // depend on where the heap puts anything: moved by 16 bytes, against a window where the
  // heap had put it, that copy went from 2.8-3.6% of a twitter pass to 6.9%.
  std::FILE* f = std::fopen(positional[2], "rb");
  if (f == nullptr || std::fseek(f, 0, SEEK_END) != 0) Usage("cannot read the records");
  const long size = std::ftell(f);
  std::rewind(f);
  if (size < 0) Usage("cannot read the records");
  std::unique_ptr<char, decltype(&std::free)> pages(
      static_cast<char*>(std::aligned_alloc(4096, (size + 4096) / 4096 * 4096)), &std::free);
  if (!pages || std::fread(pages.get(), 1, size, f) != static_cast<size_t>(size))
    Usage("cannot read the records");
  std::fclose(f);
  const std::string_view text(pages.get(), static_cast<size_t>(size));

  codec::SequenceProgress progress;
  auto pass = [&] {
    Memory in{text};
    codec::SequenceRequest sr;
    sr.record.from = format;
    sr.record.json_schema = schema;
    sr.validate = true;
    sr.keep_going = true;
    sr.read = &Memory::Read;
    sr.read_arg = &in;
    sr.on_error = [](void*, const codec::Status&) {};
    codec::OutputBuffer out;
    progress = codec::SequenceProgress{};
    codec::RunSequence(sr, out, &progress);
    if (progress.stopped || progress.read_failed) {
      std::fprintf(stderr, "rosetta-schema-warm: the sequence stopped after %llu records\n",
                   static_cast<unsigned long long>(progress.records));
      std::exit(2);
    }
  };
  const schema_bench::WarmTimes w = schema_bench::TimePasses(pass, warm);
  char extra[128];
  std::snprintf(extra, sizeof extra,
                "\"compile_ms\":%.3f,\"schema_heap_bytes\":%zu,\"compiled_bytes\":%zu,", compile_ms,
                schema_heap_bytes, compiled_bytes);
  schema_bench::PrintWarm(progress.records, progress.refused, text.size(), extra, w);
  return 0;
}

// rosetta-schema-valijson: valijson (Debian libvalijson-dev 1.0, header-only; drafts 4 and 7)
// on JSON Lines, for the JSON Schema benchmark (load/bench/schema_bench.py) and the differential
// check (load/bench/schema/differential.py).
//
//   rosetta-schema-valijson once|warm|verdicts SCHEMA JSONL [--runs N] [--warmup-s S]
//                           [--min-run-s S] [--all-errors]
//
// SCHEMA is a draft-7 schema (schemadata.py writes NAME.draft7.schema.json beside each data
// set: valijson 1.0 knows no later draft). Each line is parsed by RapidJSON 1.1.0 (Document::
// Parse, default flags, into a Document whose MemoryPoolAllocator starts on a reused 1 MiB user
// buffer, cleared after each record: RapidJSON's documented way to parse without a malloc per
// value) and validated through valijson's RapidJsonAdapter by one Validator (strong types; its
// std::regex cache kept across records).
//   once      reads the file, validates every line, prints {"records","invalid","compile_ms"} as
//             JSON; exit 1 if a record is invalid (as `rosetta validate --seq --keep-going`)
//   warm      the same over the lines held in memory: --warmup-s seconds (default 1) of passes,
//             then --runs (default 10) timed runs of as many passes as take --min-run-s (default
//             0.2) (a pass: parse + validate of every line, not the file read); prints the median
//             time of one pass, the schema's median parse time over 5 parses and the process's
//             peak RSS (VmHWM) as JSON
//   verdicts  one line per record: true or false
// --all-errors: valijson collects every error (a ValidationResults per record); by default it
// stops at the first, as rosetta does without --all-errors.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <valijson/adapters/rapidjson_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "warm_loop.h"

namespace {

using schema_bench::Clock;
using schema_bench::Median;
using schema_bench::Seconds;

[[noreturn]] void Usage(const char* message) {
  std::fprintf(
      stderr,
      "rosetta-schema-valijson: %s\nusage: rosetta-schema-valijson once|warm|verdicts SCHEMA JSONL "
      "[--runs N] [--warmup-s S] [--min-run-s S] [--all-errors]\n",
      message);
  std::exit(2);
}

std::string ReadFile(const char* path) {
  return schema_bench::ReadFile("rosetta-schema-valijson", path);
}

std::vector<std::string_view> Lines(const std::string& text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// The schema document must outlive the Schema (valijson keeps no references to it, but the
// parse time is measured with the document's own parse included, as a user would load it).
void LoadSchema(const std::string& text, valijson::Schema& schema) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    std::fprintf(stderr, "rosetta-schema-valijson: schema: %s at byte %zu\n",
                 rapidjson::GetParseError_En(doc.GetParseError()), doc.GetErrorOffset());
    std::exit(2);
  }
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  parser.populateSchema(valijson::adapters::RapidJsonAdapter(doc), schema);
}

class Checker {
 public:
  Checker(const valijson::Schema& schema, bool all_errors)
      : schema_(schema), all_errors_(all_errors) {}

  bool Valid(std::string_view line) {
    bool valid;
    {
      rapidjson::Document doc(&pool_);
      doc.Parse(line.data(), line.size());
      if (doc.HasParseError()) {
        std::fprintf(stderr, "rosetta-schema-valijson: record is not JSON: %s\n",
                     rapidjson::GetParseError_En(doc.GetParseError()));
        std::exit(2);
      }
      valijson::adapters::RapidJsonAdapter adapter(doc);
      if (all_errors_) {
        valijson::ValidationResults results;
        valid = validator_.validate(schema_, adapter, &results);
      } else {
        valid = validator_.validate(schema_, adapter, nullptr);
      }
    }
    pool_.Clear();  // keeps the user buffer: the next record parses into it again
    return valid;
  }

 private:
  const valijson::Schema& schema_;
  bool all_errors_;
  valijson::Validator validator_{valijson::Validator::kStrongTypes};
  std::vector<char> buffer_ = std::vector<char>(1 << 20);
  rapidjson::MemoryPoolAllocator<> pool_{buffer_.data(), buffer_.size()};
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<const char*> positional;
  schema_bench::WarmOptions warm;
  bool all_errors = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (warm.Take(argc, argv, i)) {
      continue;
    } else if (a == "--all-errors") {
      all_errors = true;
    } else if (a.substr(0, 2) == "--") {
      Usage("unknown option");
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.size() != 3 || warm.runs < 1) Usage("wrong arguments");
  std::string_view mode = positional[0];
  if (mode != "once" && mode != "warm" && mode != "verdicts") Usage("unknown mode");

  try {
    const std::string schema_text = ReadFile(positional[1]);
    valijson::Schema schema;
    auto t0 = Clock::now();
    LoadSchema(schema_text, schema);
    const double first_compile_ms = Seconds(t0, Clock::now()) * 1e3;
    const std::string text = ReadFile(positional[2]);
    const std::vector<std::string_view> lines = Lines(text);
    Checker checker(schema, all_errors);

    if (mode == "verdicts") {
      std::string out;
      for (std::string_view line : lines) out += checker.Valid(line) ? "true\n" : "false\n";
      std::fwrite(out.data(), 1, out.size(), stdout);
      return 0;
    }
    if (mode == "once") {
      size_t invalid = 0;
      for (std::string_view line : lines) invalid += !checker.Valid(line);
      std::printf("{\"records\":%zu,\"invalid\":%zu,\"compile_ms\":%.3f}\n", lines.size(), invalid,
                  first_compile_ms);
      return invalid ? 1 : 0;
    }

    // The heap a loaded schema holds: a second load's, kept while it is measured (the
    // schema document's parse is freed by then).
    const size_t before = schema_bench::HeapInUse();
    size_t schema_heap_bytes = 0;
    {
      valijson::Schema kept;
      LoadSchema(schema_text, kept);
      schema_heap_bytes = schema_bench::HeapInUse() - before;
    }
    std::vector<double> compiles{first_compile_ms};
    for (int i = 0; i < 4; ++i) {
      valijson::Schema again;
      t0 = Clock::now();
      LoadSchema(schema_text, again);
      compiles.push_back(Seconds(t0, Clock::now()) * 1e3);
    }
    size_t invalid = 0;
    auto pass = [&] {
      invalid = 0;
      for (std::string_view line : lines) invalid += !checker.Valid(line);
    };
    const schema_bench::WarmTimes w = schema_bench::TimePasses(pass, warm);
    char extra[160];
    std::snprintf(extra, sizeof extra,
                  "\"compile_ms\":%.3f,\"first_compile_ms\":%.3f,\"schema_heap_bytes\":%zu,",
                  Median(compiles), first_compile_ms, schema_heap_bytes);
    schema_bench::PrintWarm(lines.size(), invalid, text.size(), extra, w);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rosetta-schema-valijson: %s\n", e.what());
    return 2;
  }
}

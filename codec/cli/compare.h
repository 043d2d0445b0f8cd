#pragma once

namespace rosetta::cli {

// `rosetta compare FILE [--format FMT] ...`: the format report for one document. For each
// of JSON, CBOR and MessagePack (and protobuf when a schema is given): size, zstd size,
// encode throughput (CBOR events into the format) and decode throughput (Validate).
// argv[0] is the first argument after "compare". Returns the exit code.
int RunCompare(int argc, char** argv);

}  // namespace rosetta::cli

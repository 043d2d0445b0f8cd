#pragma once

namespace rosetta::codec {

// Mapping options (docs/formats.md). Defaults are the strict, lossless mapping.
struct MappingOptions {
  bool allow_duplicate_keys = false;  // I-JSON (RFC 7493) refuses them by default
  bool base64_standard = false;       // bytes into JSON: base64 (RFC 4648 s4) instead of base64url
  bool nonfinite_as_null = false;     // NaN/Infinity into JSON: null instead of unrepresentable
  bool bignum_as_double = false;      // bignums into MessagePack: double instead of unrepresentable
  bool reject_unknown_fields = false; // protobuf input: unknown field numbers are schema_mismatch, not skipped
  bool ignore_unknown_fields = false; // protobuf output: unknown JSON member names are skipped, not schema_mismatch
};

}  // namespace rosetta::codec

#pragma once

// The assertions of JSON Schema's `format` keyword: which formats a draft defines (FormatId)
// and whether a string is valid for one of them (CheckFormat). Format applies to strings
// only: the caller passes instances of other types as valid without asking.
//
// Each format follows the RFC its drafts name, as the official JSON Schema Test Suite reads it:
//   date-time, date, time   RFC 3339 section 5.6 (T and Z in either case; a leap second only
//                           where the time is 23:59:60 in UTC)
//   duration                RFC 3339 appendix A (designators in either case, as ABNF has it)
//   email, idn-email        RFC 5321 section 4.1.2 Mailbox (a local part of at most 64 octets,
//                           address literals [IPv4] and [IPv6:...]); RFC 6531 adds UTF-8 to
//                           the local part and U-labels to the domain (normalized to NFC first)
//   hostname, idn-hostname  RFC 1123 labels (a leading digit too); from draft 7 on an A-label
//                           ("xn--") must be a valid IDNA2008 label (RFC 5890-5893: code
//                           points, NFC, CONTEXTJ, CONTEXTO, Bidi) whose U-label re-encodes to
//                           it (drafts 4 and 6 name RFC 1034 alone: LDH labels, no more);
//                           idn-hostname takes U-labels too, and U+3002, U+FF0E and U+FF61
//                           as dots (RFC 3490 3.1). Both: at most 63 octets a label and 253
//                           in all, in the A-label form
//   ipv4, ipv6              RFC 2673 dotted quad without leading zeros; RFC 4291 2.2 (an
//                           embedded dotted quad, no zone id, no prefix length)
//   uri, uri-reference      RFC 3986; iri, iri-reference RFC 3987
//   uri-template            RFC 6570 (all levels; "'" is a literal, errata 6937)
//   uuid                    RFC 4122 textual form, any version and variant
//   json-pointer            RFC 6901
//   relative-json-pointer   draft-handrews-relative-json-pointer-01/02; in 2020-12
//                           draft-bhutton-relative-json-pointer-00 (an index manipulation:
//                           "0+1/a")
//   regex                   ECMA-262 syntax (schema/regex.h)

#include <cstdint>
#include <string_view>

namespace rosetta::codec::schema {

enum class Draft : uint8_t { k4, k6, k7, k2019, k2020 };

// The format a `format` keyword names, for the draft its schema is in; 0 when the draft has no
// such format (then `format` is an annotation only, never asserted).
uint8_t FormatId(std::string_view name, Draft draft);

// Whether the string `value` (UTF-8) is valid for the format FormatId returned (id != 0).
bool CheckFormat(uint8_t id, std::string_view value);

}  // namespace rosetta::codec::schema

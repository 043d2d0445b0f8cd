#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

// JSON Schema's `pattern`, `patternProperties` and `format: "regex"` are ECMA-262 regular
// expressions; this project runs them only on RE2 (linear time, never backtracking). This
// translates ECMA-262 syntax into RE2 syntax with the same meaning, and refuses what has no
// linear-time meaning.
//
// The language accepted is ECMA-262's Pattern with the u flag (code points, \u{...},
// \p{...}, strict escapes), the ES2025 modifiers (?ims-ims:...), and three of Annex B's
// web-compatibility forms that mean the same in every mode: a `{` that does not begin a
// quantifier, a lone `}` or `]`, and an identity escape of any ASCII punctuation (`\-`,
// `\_`, `\"`...; u-mode allows only `^$\.*+?()[]{}|/`). Everything else Annex B adds (`\a`
// for "a", octal `\12`, `[\c_]`) is refused as not ECMA-262: its meaning differs between
// the modes, and JSON Schema patterns use unicode semantics.
//
// Meaning, as the u flag without i, m, s gives it: `.` is any code point but \n \r U+2028
// U+2029; `^` `$` the start and end of the input only; \d [0-9]; \w [A-Za-z0-9_]; \s
// ECMA's WhiteSpace and LineTerminator; \b \B the ASCII word boundary; \p{...} the
// General_Category, Script and a few binary properties, as the linked RE2's Unicode tables
// have them (Debian 12's: Unicode 15.0; \p{Cn} and \p{C}, which RE2 lacks, are the code
// points none of RE2's categories holds, found on first use in about 0.1 s). (?<name>...)
// becomes (?P<name>...), or a plain group when RE2 cannot take the name (not ASCII word
// characters, or repeated in another alternative); the name means nothing to a search.
//
// Refused (false / null with one line in *error, naming the construct and where it starts
// as a code point offset from 0): backreferences (\1, \k<name>), lookahead and lookbehind;
// a repetition count over 1000 or nested counts whose product is over 1000 (RE2's limits);
// unicode properties RE2 has no table for (\p{Alphabetic}, \p{Emoji}, Script_Extensions,
// Script=Unknown...); the m modifier around ^ or $ (RE2 has no lookbehind to find \r,
// U+2028, U+2029 line starts); \b \B \p \P under the i modifier (ECMA folds them
// differently from RE2). Groups nested deeper than kEcmaRegexMaxNesting fail both
// TranslateEcmaRegex and IsEcmaRegex ("groups nested deeper than 256 at N").
namespace rosetta::codec::schema {

// RE2's max_mem for every pattern: RE2's own default, 8 MiB. It bounds the compiled
// program (about 2/3 of it) and the lazily built DFA cache (the rest): with many patterns
// in a schema set, the bound per pattern is what matters. It admits \p{L}{1,255} (5 MB of
// program, half a second to compile); \p{L}{1000} is over it and fails to compile
// ("pattern too large for RE2's memory budget of 8192 KiB").
inline constexpr int64_t kEcmaRegexMaxMem = int64_t{8} << 20;
// RE2's largest repetition count, and the largest product of nested counts.
inline constexpr int kEcmaRegexMaxRepeat = 1000;
// Groups and lookarounds nested deeper than this fail (this parser and RE2's recurse).
inline constexpr int kEcmaRegexMaxNesting = 256;

// Translates an ECMA-262 pattern (as JSON Schema uses it: no flags; matching is a search,
// not anchored; the instance and the pattern are UTF-8 and characters are code points, as
// with the `u` flag) into RE2 syntax with the same meaning. False with *error (one line:
// what and where, e.g. "backreference \1 at 4 has no linear-time meaning") when the
// pattern is not ECMA-262 ("not ECMA-262: ...") or needs backtracking (backreferences,
// lookahead, lookbehind) or anything else RE2 cannot express.
//
// The translation is meant for a search (RegexSearch, RE2::PartialMatch): when the pattern
// has \B it begins with \A(?s:.)*? so that a match starts on a code point, never inside
// one (RE2's unanchored search may start an empty match between the bytes of a character,
// where \B holds).
bool TranslateEcmaRegex(std::string_view ecma, std::string* re2_pattern, std::string* error);

// Translates and compiles (UTF-8, case sensitive, no POSIX syntax, leftmost-first, errors not
// logged, max_mem kEcmaRegexMaxMem; the translation spells out `.`, `^`, `$` itself so
// RE2's newline options do not matter). Null with *error on failure.
std::unique_ptr<re2::RE2> CompileEcmaRegex(std::string_view ecma, std::string* error);
std::unique_ptr<re2::RE2> CompileEcmaRegex(std::string_view ecma, std::string* error,
                                           int64_t max_mem);

// Whether `pattern` is valid ECMA-262 syntax at all (the `format: "regex"` check), even if
// it cannot be translated (a backreference is valid ECMA-262). The second form says why
// not, as TranslateEcmaRegex would.
bool IsEcmaRegex(std::string_view pattern);
bool IsEcmaRegex(std::string_view pattern, std::string* error);

// Search: does `re` match anywhere in `text` (UTF-8; invalid bytes match nothing).
bool RegexSearch(const re2::RE2& re, std::string_view text);

}  // namespace rosetta::codec::schema

// AsciiDfa (codec/src/schema/ascii_dfa.h) against RE2: the byte automaton a schema's
// pattern gets when it is simple enough must give RE2's verdict on every text. Byte 0: the
// pattern's length (mod what is left); the pattern, then the text. Checked, for every
// pattern AsciiDfa takes: the ECMA-262 -> RE2 translation takes it too (a schema's pattern
// with an automaton gets no RE2: Compiler::NewRegex), Search's verdict (two bytes a step
// where the automaton has pairs) and SearchBytes' (one) are RegexSearch's, and a text
// RulesOut refuses by its first byte is no match.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <re2/re2.h>

#include "fuzz_common.h"
#include "schema/ascii_dfa.h"
#include "schema/regex.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta::codec::schema;
  if (size == 0) return 0;
  const size_t length = data[0] % size;
  const std::string_view pattern(reinterpret_cast<const char*>(data) + 1, length);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1 + length, size - 1 - length);
  const std::optional<AsciiDfa> dfa = AsciiDfa::Build(pattern);
  if (!dfa) return 0;
  std::string error;
  const std::unique_ptr<re2::RE2> re = CompileEcmaRegex(pattern, &error);
  if (!re) rosetta::fuzz::Fail("AsciiDfa took a pattern the translation to RE2 refuses");
  const bool want = RegexSearch(*re, text);
  if (dfa->Search(text) != want) rosetta::fuzz::Fail("AsciiDfa and RE2 disagree on a text");
  if (dfa->SearchBytes(text) != want)
    rosetta::fuzz::Fail("AsciiDfa's one-byte search and RE2 disagree on a text");
  if (want && dfa->RulesOut(text)) rosetta::fuzz::Fail("AsciiDfa::RulesOut refused a match");
  return 0;
}

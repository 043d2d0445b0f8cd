#pragma once

namespace rosetta::codec {

// Writes the shortest decimal text that reads back as the finite double d, exactly the
// text std::to_chars(p, p + 32, d) writes (fixed or scientific, whichever is shorter,
// fixed on a tie; exponents as e+NN / e-NN), and returns its end (at most 24 bytes).
// `integral` tells whether the text is an integer (no '.', no exponent).
// The digits come from libfmt's Dragonbox (header-only: compiled here, no library at run
// time), about twice as fast here as libstdc++'s to_chars; the layout is ours (tests/codec/text_primitives_test.cc compares the two).
char* WriteShortestDouble(char* p, double d, bool* integral);

}  // namespace rosetta::codec

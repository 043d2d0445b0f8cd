#pragma once

#include <cstddef>

namespace rosetta::codec {

// Memory blocks for the codec's stacks and tables (BudgetVector), kept per thread from
// one request to the next: a server thread's requests reuse the same few blocks instead
// of calling malloc and free each time (and landing wherever a fragmented heap has
// room). Sizes are powers of two from 64 bytes; a thread keeps at most 4 blocks of each
// size up to 256 KiB, 1 MiB in all; larger blocks go straight to malloc and free. This
// changes where memory comes from, not what a request is charged: BudgetVector charges its
// budget for every growth as before.
size_t CachedBlockSize(size_t bytes);  // the size a request for `bytes` gets
void* CachedAlloc(size_t size);        // size: a CachedBlockSize
void CachedFree(void* p, size_t size);

}  // namespace rosetta::codec

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which of `shards` translation shards (DeepFlash's TRANS threads, the FTL's
// map partitions, ManyLayered's per-channel instances) a logical page
// belongs to. The firmware routes a request to the thread that owns the
// shard the FTL will translate it in, so both use this one function.
//   modulo  lpn mod shards: a stride of `shards` pages lands on one shard.
//   xor     DeepFlash's scrambling (FAST'20 sec. 4.3, 5.3): the XOR of every
//           log2(shards)-bit group of the page number, which spreads strided
//           and clustered patterns evenly; shards must be a power of two.
#include <cstdint>

namespace vp::ssd {

inline uint32_t shard_index(uint64_t lpn, uint32_t shards, bool xor_hash) {
  if (shards <= 1) return 0;
  if (!xor_hash) return static_cast<uint32_t>(lpn % shards);
  uint32_t bits = 0;
  while ((1u << bits) < shards) ++bits;
  uint64_t h = 0;
  for (uint64_t v = lpn; v; v >>= bits) h ^= v & (shards - 1);
  return static_cast<uint32_t>(h);
}

// How the FTL splits its logical space into shards; the drive hands the
// FTL's to the firmware, so both route a page the same way. `chunk` pages in
// a row share a shard (the stripe unit of a static split).
struct ShardMap {
  uint32_t shards = 1;
  bool xor_hash = false;
  uint32_t chunk = 1;
  uint32_t of(uint64_t lpn) const { return shard_index(chunk == 1 ? lpn : lpn / chunk, shards, xor_hash); }
};

}  // namespace vp::ssd

// The persistent kernel cache (jit layer, cache room): compiled objects in a folder shared by
// processes, each file checksummed and holding its full key, written atomically, bounded in size
// across processes with least-recently-used eviction; its opens never block and every lock wait
// has a deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/status.h"

namespace rowjit::jit {

struct DiskCacheStats {
  int64_t hits = 0;    // objects read and verified
  int64_t misses = 0;  // no file for the key
  // A file that was torn, truncated, corrupted, of another key, not a regular file (a FIFO, a
  // symbolic link, a directory) or larger than the largest object the cache holds: never read
  // past its size check, removed when it can be.
  int64_t rejected = 0;
  int64_t stores = 0;     // objects written
  int64_t evictions = 0;  // files removed to stay within the size bound
  // Failed or refused stores: a full or read-only disk, an object above the largest the cache
  // holds, the size index locked past its deadline.
  int64_t write_errors = 0;
  // Claims not had within their deadline (another process holds the lock: a compile that takes
  // long, or a stopped process): the caller compiled without the claim.
  int64_t claim_timeouts = 0;
};

// One file per object: `<128-bit hash of the key, hex>.rjk`, holding a header (magic, format
// version, key length, object length, a 64-bit checksum of key and object), the key's full text
// and the object. A read is trusted only when every length agrees with the file's size, the
// checksum matches and the stored key equals the asked one: a torn, truncated or corrupted file,
// or a file of another key under a colliding name, is never loaded. Files are opened without
// following links and without blocking, and only regular files of at most max_file_bytes() are
// read. Writes go to a temporary file renamed into place, so a reader sees a whole file or none,
// and several processes may fill and read one folder at once.
//
// The bound holds for the folder, whichever processes write to it: `.size` holds the bytes of
// the folder's objects (8 bytes), and every store renames its object into place and adds its
// size under an exclusive lock on that file; a store that takes the total past `max_bytes`
// rescans the folder and removes the least recently used objects (a read refreshes a file's
// time) until it holds 3/4 of the bound, and writes the true total back. A missing or damaged
// index is rebuilt by a rescan. So the objects in the folder take at most `max_bytes`, plus the
// one object a store is renaming in, plus one object per process killed between its rename and
// its index update; temporary files of writes in flight (one per writing thread) are extra, and
// those of writers that died are swept by the next eviction.
class DiskCache {
 public:
  static constexpr std::string_view kSuffix = ".rjk";
  // The largest object file any cache reads or writes: a kernel's object is kilobytes, a staged
  // expression's largest stage well under a megabyte, so this only stops a stray file from
  // being read into memory.
  static constexpr int64_t kMaxFileBytes = int64_t{256} << 20;
  // How long a claim waits for another process's compile of the same stripe; kernels compile in
  // milliseconds, so a claim held longer belongs to a stopped or hung process.
  static constexpr std::chrono::milliseconds kClaimWait{10'000};
  // How long a store waits for the size index, which a process holds for one rename and an
  // 8-byte update (or an eviction's scan of the folder).
  static constexpr std::chrono::milliseconds kIndexWait{1'000};

  // Opens (creating it if needed) the folder. `claim_wait`: how long Claim waits.
  static Result<std::unique_ptr<DiskCache>> Open(std::string folder, int64_t max_bytes,
                                                 std::chrono::milliseconds claim_wait = kClaimWait);

  // The object stored under `key`, verified; nullopt when there is none or it fails a check
  // (a rejected file is removed, so that the next store replaces it).
  std::optional<std::string> Load(std::string_view key);
  // Stores `object` under `key`. Errors (a full disk, a read-only folder, an object whose file
  // would pass max_file_bytes(), the size index locked past kIndexWait) are counted and returned;
  // the caller may ignore them, the cache is an optimization.
  Status Store(std::string_view key, std::string_view object);

  // Cross-process single flight for compiles: an exclusive lock (flock) on one of kClaimStripes
  // lock files in the folder, picked by the key's hash, held while the caller compiles `key` and
  // stores it. A process that wants the same key tries the lock, backing off, until it has it
  // (then it finds the kernel on disk instead of compiling it again) or `claim_wait` passes
  // (counted in claim_timeouts) or Abandon is called. The lock goes with the returned handle (or
  // with the process, should it die). Null without the lock: the caller compiles anyway.
  static constexpr int kClaimStripes = 64;
  std::shared_ptr<void> Claim(std::string_view key);
  // Ends every lock wait, now and later (claims return null, stores are skipped), so that an
  // engine being destroyed never waits on another process.
  void Abandon() { abandoned_.store(true, std::memory_order_relaxed); }

  // The file that holds (or would hold) `key`.
  std::string PathOf(std::string_view key) const;
  const std::string& folder() const { return folder_; }
  // The largest object file read or written: min(max_bytes, kMaxFileBytes).
  int64_t max_file_bytes() const { return max_file_bytes_; }
  DiskCacheStats stats() const;

 private:
  DiskCache(std::string folder, int64_t max_bytes, std::chrono::milliseconds claim_wait);
  // Under the index lock: the objects' total with `added` bytes just renamed in, evicting when it
  // passes the bound.
  int64_t TotalAfterStore(int fd, int64_t added);
  // Under the index lock: rescans the folder, removes the least recently used objects down to
  // `target` bytes and temporary files of writers that died; returns the bytes left.
  int64_t Evict(int64_t target);
  void Count(int64_t DiskCacheStats::*counter);

  std::string folder_;
  int64_t max_bytes_;
  int64_t max_file_bytes_;
  std::chrono::milliseconds claim_wait_;
  std::atomic<bool> abandoned_{false};
  mutable std::mutex mu_;  // guards stats_
  DiskCacheStats stats_;
};

}  // namespace rowjit::jit

// The persistent kernel cache (jit layer, cache room): compiled objects in a folder shared by
// processes, each file checksummed and holding its full key, written atomically, bounded in size
// with least-recently-used eviction.
#pragma once

#include <atomic>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/status.h"

namespace rowjit::jit {

struct DiskCacheStats {
  int64_t hits = 0;        // objects read and verified
  int64_t misses = 0;      // no file for the key
  int64_t rejected = 0;    // a file that was torn, truncated, corrupted or of another key
  int64_t stores = 0;      // objects written
  int64_t evictions = 0;   // files removed to stay within the size bound
  int64_t write_errors = 0;
};

// One file per object: `<128-bit hash of the key, hex>.rjk`, holding a header (magic, format
// version, key length, object length, a 64-bit checksum of key and object), the key's full text
// and the object. A read is trusted only when every length agrees with the file's size, the
// checksum matches and the stored key equals the asked one: a torn, truncated or corrupted file,
// or a file of another key under a colliding name, is never loaded. Writes go to a temporary
// file renamed into place, so a reader sees a whole file or none, and several processes may
// fill and read one folder at once. The folder is kept under `max_bytes`: after a write that
// crosses the bound, the least recently used files (a read refreshes a file's time) are removed
// until it holds 3/4 of the bound.
class DiskCache {
 public:
  static constexpr std::string_view kSuffix = ".rjk";

  // Opens (creating it if needed) the folder.
  static Result<std::unique_ptr<DiskCache>> Open(std::string folder, int64_t max_bytes);

  // The object stored under `key`, verified; nullopt when there is none or it fails a check
  // (a rejected file is removed, so that the next store replaces it).
  std::optional<std::string> Load(std::string_view key);
  // Stores `object` under `key`. Errors (a full disk, a read-only folder) are counted and
  // returned; the caller may ignore them, the cache is an optimization.
  Status Store(std::string_view key, std::string_view object);

  // Cross-process single flight for compiles: an exclusive lock (flock) on one of kClaimStripes
  // lock files in the folder, picked by the key's hash, held while the caller compiles `key` and
  // stores it. A process that wants the same key waits on the lock, then finds the kernel on disk
  // instead of compiling it again. The lock goes with the returned handle (or with the process,
  // should it die). Null when the lock file cannot be opened: the caller compiles anyway.
  static constexpr int kClaimStripes = 64;
  std::shared_ptr<void> Claim(std::string_view key);

  // The file that holds (or would hold) `key`.
  std::string PathOf(std::string_view key) const;
  const std::string& folder() const { return folder_; }
  DiskCacheStats stats() const;

 private:
  DiskCache(std::string folder, int64_t max_bytes) : folder_(std::move(folder)), max_bytes_(max_bytes) {}
  void EvictIfNeeded();

  std::string folder_;
  int64_t max_bytes_;
  std::atomic<int64_t> approx_bytes_{0};  // the folder's size at the last scan plus stores since
  mutable std::mutex mu_;                  // guards stats_ and eviction
  DiskCacheStats stats_;
};

}  // namespace rowjit::jit

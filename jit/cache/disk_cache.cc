// The persistent kernel cache (jit layer, cache room): file format, verified reads, atomic
// writes, LRU eviction.
#include "jit/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "jit/base/llvm_internal.h"

namespace rowjit::jit {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'R', 'J', 'K', 'O', 'B', 'J', '0', '1'};
struct Header {
  char magic[8];
  uint64_t key_bytes;
  uint64_t object_bytes;
  uint64_t checksum;  // xxh3-64 of key then object
};
static_assert(sizeof(Header) == 32);
// Temporary files older than this belong to a process that died while writing.
constexpr auto kStaleTemporary = std::chrono::minutes(10);

uint64_t Checksum(std::string_view key, std::string_view object) {
  std::string joined;
  joined.reserve(key.size() + object.size());
  joined.append(key).append(object);
  return llvm::xxh3_64bits(llvm::StringRef(joined));
}

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && st.st_size >= 0) {
    std::string bytes(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (done == bytes.size()) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

bool WriteAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The object in `file` when the file is whole and holds `key`.
std::optional<std::string> Verified(std::string_view file, std::string_view key) {
  Header h;
  if (file.size() < sizeof(Header)) return std::nullopt;
  std::memcpy(&h, file.data(), sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  const uint64_t body = file.size() - sizeof(Header);
  if (h.key_bytes > body || h.object_bytes != body - h.key_bytes) return std::nullopt;
  const std::string_view stored_key = file.substr(sizeof(Header), h.key_bytes);
  const std::string_view object = file.substr(sizeof(Header) + h.key_bytes);
  if (Checksum(stored_key, object) != h.checksum || stored_key != key) return std::nullopt;
  return std::string(object);
}

}  // namespace

Result<std::unique_ptr<DiskCache>> DiskCache::Open(std::string folder, int64_t max_bytes) {
  if (folder.empty()) return MakeError(ErrorCode::kInvalidInput, "the disk cache folder is empty");
  if (max_bytes <= 0) return MakeError(ErrorCode::kInvalidInput, "the disk cache bound must be positive");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec || !fs::is_directory(folder, ec)) {
    return MakeError(ErrorCode::kIoError, "cannot create the kernel cache folder {}: {}", folder, ec.message());
  }
  std::unique_ptr<DiskCache> cache(new DiskCache(std::move(folder), max_bytes));
  int64_t total = 0;
  for (const auto& entry : fs::directory_iterator(cache->folder_, ec)) {
    if (entry.path().extension() == kSuffix) total += static_cast<int64_t>(entry.file_size(ec));
  }
  cache->approx_bytes_ = total;
  return cache;
}

std::string DiskCache::PathOf(std::string_view key) const {
  const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  return fmt::format("{}/{:016x}{:016x}{}", folder_, h.high64, h.low64, kSuffix);
}

std::shared_ptr<void> DiskCache::Claim(std::string_view key) {
  const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  // A dot name without the object suffix: eviction and the temporary-file sweep leave it alone.
  const std::string path = fmt::format("{}/.claim-{:02d}", folder_, h.low64 % kClaimStripes);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  int rc = 0;
  do {
    rc = ::flock(fd, LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    ::close(fd);
    return nullptr;
  }
  // Closing the descriptor releases the lock.
  return std::shared_ptr<void>(reinterpret_cast<void*>(static_cast<intptr_t>(fd) + 1),
                               [](void* p) { ::close(static_cast<int>(reinterpret_cast<intptr_t>(p) - 1)); });
}

std::optional<std::string> DiskCache::Load(std::string_view key) {
  const std::string path = PathOf(key);
  std::optional<std::string> file = ReadFile(path);
  if (!file) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.misses;
    return std::nullopt;
  }
  std::optional<std::string> object = Verified(*file, key);
  std::lock_guard<std::mutex> lock(mu_);
  if (!object) {
    ++stats_.rejected;
    ::unlink(path.c_str());  // rewritten by the next store of this key
    return std::nullopt;
  }
  ++stats_.hits;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used
  return object;
}

Status DiskCache::Store(std::string_view key, std::string_view object) {
  Header h;
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.key_bytes = key.size();
  h.object_bytes = object.size();
  h.checksum = Checksum(key, object);
  const std::string path = PathOf(key);
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = fmt::format("{}/.tmp-{}-{}-{}", folder_, ::getpid(),
      std::hash<std::thread::id>{}(std::this_thread::get_id()), counter.fetch_add(1));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  if (ok) {
    ok = WriteAll(fd, std::string_view(reinterpret_cast<const char*>(&h), sizeof(h))) &&
         WriteAll(fd, key) && WriteAll(fd, object);
    ok = ::close(fd) == 0 && ok;
    ok = ok && ::rename(temporary.c_str(), path.c_str()) == 0;
    if (!ok) ::unlink(temporary.c_str());
  }
  if (!ok) {
    const int err = errno;
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.write_errors;
    return MakeError(ErrorCode::kIoError, "writing {}: {}", path, std::strerror(err));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.stores;
  }
  approx_bytes_ += static_cast<int64_t>(sizeof(h) + key.size() + object.size());
  if (approx_bytes_.load() > max_bytes_) EvictIfNeeded();
  return Status::OK();
}

// Rescans the folder (other processes write to it too) and removes the least recently used
// files down to 3/4 of the bound, and temporary files of writers that died.
void DiskCache::EvictIfNeeded() {
  std::lock_guard<std::mutex> lock(mu_);
  struct File {
    fs::file_time_type used;
    int64_t bytes;
    fs::path path;
  };
  std::vector<File> files;
  int64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(folder_, ec)) {
    std::error_code e;
    const auto used = entry.last_write_time(e);
    if (e) continue;
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".tmp-")) {
      if (now - used > kStaleTemporary) fs::remove(entry.path(), e);
      continue;
    }
    if (entry.path().extension() != kSuffix) continue;
    const auto bytes = static_cast<int64_t>(entry.file_size(e));
    if (e) continue;
    files.push_back({used, bytes, entry.path()});
    total += bytes;
  }
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.used < b.used; });
  const int64_t target = max_bytes_ / 4 * 3;
  for (const File& f : files) {
    if (total <= target) break;
    std::error_code e;
    if (fs::remove(f.path, e)) ++stats_.evictions;
    total -= f.bytes;
  }
  approx_bytes_ = total;
}

DiskCacheStats DiskCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace rowjit::jit

// The persistent kernel cache (jit layer, cache room): file format, opens that never block or
// follow links, bounded verified reads, atomic writes under the folder's size index, LRU
// eviction, and locks taken with a deadline.
#include "jit/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>
#include <vector>

#include "jit/base/llvm_internal.h"

namespace rowjit::jit {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

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
// The longest pause between two tries of a lock: the most an abandoned wait goes on.
constexpr milliseconds kMaxPause{20};
// A size index above this is damaged (no folder holds 4 EiB).
constexpr int64_t kMaxIndexed = int64_t{1} << 62;

// A file descriptor, closed (and its flock released) when it goes.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

enum class Opened : uint8_t { kRegular, kMissing, kNotRegular, kFailed };
struct OpenedFile {
  Opened outcome = Opened::kFailed;
  UniqueFd fd;
  int64_t bytes = 0;
};

// Opens `path` only as a regular file: a symbolic link is not followed, a FIFO or a device does
// not block the open (O_NONBLOCK), and whatever is not a regular file is closed again.
OpenedFile OpenRegular(const std::string& path, int flags) {
  OpenedFile out;
  out.fd = UniqueFd(::open(path.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644));
  if (!out.fd) {
    out.outcome = errno == ENOENT || errno == ENOTDIR ? Opened::kMissing
                  : errno == ELOOP || errno == EISDIR ? Opened::kNotRegular
                                                      : Opened::kFailed;
    return out;
  }
  struct stat st {};
  if (::fstat(out.fd.get(), &st) != 0) {
    out.fd = UniqueFd();
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.fd = UniqueFd();
    out.outcome = Opened::kNotRegular;
    return out;
  }
  out.outcome = Opened::kRegular;
  out.bytes = static_cast<int64_t>(st.st_size);
  return out;
}

// A lock file (a claim stripe, the size index), created if missing; something else under its
// name (a FIFO, a link) is removed and the file made again. Invalid when it cannot be had.
UniqueFd OpenLockFile(const std::string& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    OpenedFile f = OpenRegular(path, O_RDWR | O_CREAT);
    if (f.outcome == Opened::kRegular) return std::move(f.fd);
    if (f.outcome != Opened::kNotRegular || ::unlink(path.c_str()) != 0) break;
  }
  return UniqueFd();
}

enum class Locked : uint8_t { kLocked, kTimedOut, kAbandoned, kFailed };

// An exclusive flock on `fd`, tried without blocking and retried with growing pauses until
// `wait` passes or `abandoned` is set (seen within kMaxPause).
Locked LockWithin(int fd, milliseconds wait, const std::atomic<bool>& abandoned) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  milliseconds pause{1};
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return Locked::kLocked;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return Locked::kFailed;
    if (abandoned.load(std::memory_order_relaxed)) return Locked::kAbandoned;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Locked::kTimedOut;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, kMaxPause);
  }
}

enum class Read : uint8_t { kRead, kMissing, kRejected };
struct FileRead {
  Read outcome = Read::kMissing;
  std::string bytes;
  UniqueFd fd;  // open after a read, to refresh the file's time
};

// The whole file when it is a regular file of at most `max_bytes` bytes; anything else is
// rejected after fstat, before a byte is read or allocated.
FileRead ReadObjectFile(const std::string& path, int64_t max_bytes) {
  FileRead out;
  OpenedFile f = OpenRegular(path, O_RDONLY);
  if (f.outcome == Opened::kMissing || f.outcome == Opened::kFailed) return out;
  out.outcome = Read::kRejected;
  if (f.outcome != Opened::kRegular || f.bytes > max_bytes || f.bytes < static_cast<int64_t>(sizeof(Header))) {
    return out;
  }
  std::string bytes(static_cast<size_t>(f.bytes), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(f.fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;  // shorter than its size said: truncated under us
    done += static_cast<size_t>(n);
  }
  out.outcome = Read::kRead;
  out.bytes = std::move(bytes);
  out.fd = std::move(f.fd);
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

// The file's layout puts key and object side by side: the checksum reads them in place.
uint64_t Checksum(std::string_view key_then_object) { return llvm::xxh3_64bits(llvm::StringRef(key_then_object)); }

// The bytes of the file that stores `object` under `key`.
std::string FileOf(std::string_view key, std::string_view object) {
  std::string file(sizeof(Header), '\0');
  file.reserve(sizeof(Header) + key.size() + object.size());
  file.append(key).append(object);
  Header h;
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.key_bytes = key.size();
  h.object_bytes = object.size();
  h.checksum = Checksum(std::string_view(file).substr(sizeof(Header)));
  std::memcpy(file.data(), &h, sizeof(Header));
  return file;
}

// The object in `file` when the file is whole and holds `key` (cut out of the file in place).
std::optional<std::string> Verified(std::string file, std::string_view key) {
  Header h;
  if (file.size() < sizeof(Header)) return std::nullopt;
  std::memcpy(&h, file.data(), sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  const uint64_t body = file.size() - sizeof(Header);
  if (h.key_bytes > body || h.object_bytes != body - h.key_bytes) return std::nullopt;
  const std::string_view key_then_object = std::string_view(file).substr(sizeof(Header));
  if (Checksum(key_then_object) != h.checksum || key_then_object.substr(0, h.key_bytes) != key) return std::nullopt;
  file.erase(0, sizeof(Header) + h.key_bytes);
  return std::optional<std::string>(std::move(file));
}

// The size index's total, or nullopt when it is missing or damaged (not 8 bytes, out of range).
std::optional<int64_t> ReadIndex(int fd) {
  struct stat st {};
  int64_t total = -1;
  if (::fstat(fd, &st) != 0 || st.st_size != sizeof(total)) return std::nullopt;
  if (::pread(fd, &total, sizeof(total), 0) != sizeof(total)) return std::nullopt;
  if (total < 0 || total > kMaxIndexed) return std::nullopt;
  return total;
}

void WriteIndex(int fd, int64_t total) {
  // A failed write leaves a damaged or stale index: the next store rescans or evicts early.
  if (::pwrite(fd, &total, sizeof(total), 0) == sizeof(total)) (void)::ftruncate(fd, sizeof(total));
}

llvm::XXH128_hash_t HashOf(std::string_view key) {
  return llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
}

}  // namespace

DiskCache::DiskCache(std::string folder, int64_t max_bytes, milliseconds claim_wait)
    : folder_(std::move(folder)),
      max_bytes_(max_bytes),
      max_file_bytes_(std::min(max_bytes, kMaxFileBytes)),
      claim_wait_(claim_wait) {}

Result<std::unique_ptr<DiskCache>> DiskCache::Open(std::string folder, int64_t max_bytes, milliseconds claim_wait) {
  if (folder.empty()) return MakeError(ErrorCode::kInvalidInput, "the disk cache folder is empty");
  if (max_bytes <= 0) return MakeError(ErrorCode::kInvalidInput, "the disk cache bound must be positive");
  if (claim_wait.count() < 0) return MakeError(ErrorCode::kInvalidInput, "the claim wait must not be negative");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec || !fs::is_directory(folder, ec)) {
    return MakeError(ErrorCode::kIoError, "cannot create the kernel cache folder {}: {}", folder, ec.message());
  }
  return std::unique_ptr<DiskCache>(new DiskCache(std::move(folder), max_bytes, claim_wait));
}

std::string DiskCache::PathOf(std::string_view key) const {
  const llvm::XXH128_hash_t h = HashOf(key);
  return fmt::format("{}/{:016x}{:016x}{}", folder_, h.high64, h.low64, kSuffix);
}

void DiskCache::Count(int64_t DiskCacheStats::*counter) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(stats_.*counter);
}

std::shared_ptr<void> DiskCache::Claim(std::string_view key) {
  // A dot name without the object suffix: eviction and the temporary-file sweep leave it alone.
  UniqueFd fd(OpenLockFile(fmt::format("{}/.claim-{:02d}", folder_, HashOf(key).low64 % kClaimStripes)));
  if (!fd) return nullptr;
  switch (LockWithin(fd.get(), claim_wait_, abandoned_)) {
    case Locked::kLocked: break;
    case Locked::kTimedOut: Count(&DiskCacheStats::claim_timeouts); return nullptr;
    case Locked::kAbandoned:
    case Locked::kFailed: return nullptr;
  }
  // Closing the descriptor releases the lock.
  return std::shared_ptr<void>(reinterpret_cast<void*>(static_cast<intptr_t>(fd.release()) + 1),
                               [](void* p) { ::close(static_cast<int>(reinterpret_cast<intptr_t>(p) - 1)); });
}

std::optional<std::string> DiskCache::Load(std::string_view key) {
  const std::string path = PathOf(key);
  FileRead file = ReadObjectFile(path, max_file_bytes_);
  if (file.outcome == Read::kMissing) {
    Count(&DiskCacheStats::misses);
    return std::nullopt;
  }
  std::optional<std::string> object;
  if (file.outcome == Read::kRead) object = Verified(std::move(file.bytes), key);
  if (!object) {
    Count(&DiskCacheStats::rejected);
    ::unlink(path.c_str());  // rewritten by the next store of this key (a directory stays)
    return std::nullopt;
  }
  Count(&DiskCacheStats::hits);
  ::futimens(file.fd.get(), nullptr);  // recently used
  return object;
}

Status DiskCache::Store(std::string_view key, std::string_view object) {
  const int64_t file_bytes = static_cast<int64_t>(sizeof(Header) + key.size() + object.size());
  const std::string path = PathOf(key);
  if (file_bytes > max_file_bytes_) {
    Count(&DiskCacheStats::write_errors);
    return MakeError(ErrorCode::kInvalidInput, "an object file of {} bytes is above the {} bytes a file of {} may take",
                     file_bytes, max_file_bytes_, folder_);
  }
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = fmt::format("{}/.tmp-{}-{}-{}", folder_, ::getpid(),
      std::hash<std::thread::id>{}(std::this_thread::get_id()), counter.fetch_add(1));
  auto fail = [&](std::string why) -> Status {
    ::unlink(temporary.c_str());
    Count(&DiskCacheStats::write_errors);
    return MakeError(ErrorCode::kIoError, "writing {}: {}", path, why);
  };
  {
    UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (!fd) return fail(std::strerror(errno));
    if (!WriteAll(fd.get(), FileOf(key, object))) return fail(std::strerror(errno));
    if (::close(fd.release()) != 0) return fail(std::strerror(errno));
  }
  // The rename and the index update under one lock: no process evicts between them, and the
  // index never lags an object in the folder.
  UniqueFd index = OpenLockFile(folder_ + "/.size");
  if (!index) return fail(fmt::format("cannot open the size index: {}", std::strerror(errno)));
  switch (LockWithin(index.get(), kIndexWait, abandoned_)) {
    case Locked::kLocked: break;
    case Locked::kTimedOut: return fail(fmt::format("the size index stayed locked for {} ms", kIndexWait.count()));
    case Locked::kAbandoned: return fail("the cache was abandoned while waiting for its size index");
    case Locked::kFailed: return fail(fmt::format("cannot lock the size index: {}", std::strerror(errno)));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) return fail(std::strerror(errno));
  WriteIndex(index.get(), TotalAfterStore(index.get(), file_bytes));
  Count(&DiskCacheStats::stores);
  return Status::OK();
}

int64_t DiskCache::TotalAfterStore(int fd, int64_t added) {
  const std::optional<int64_t> indexed = ReadIndex(fd);
  // No index (a new folder, a damaged file): the folder's true total, the new object in it.
  const int64_t total = indexed ? *indexed + added : Evict(std::numeric_limits<int64_t>::max());
  return total > max_bytes_ ? Evict(max_bytes_ / 4 * 3) : total;
}

// Rescans the folder (other processes write to it too) and removes the least recently used
// objects down to `target` bytes, and temporary files of writers that died.
int64_t DiskCache::Evict(int64_t target) {
  struct File {
    fs::file_time_type used;
    int64_t bytes;
    fs::path path;
  };
  std::vector<File> files;
  int64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code e;
    const auto used = entry.last_write_time(e);
    if (e) continue;
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".tmp-")) {
      if (now - used > kStaleTemporary) fs::remove(entry.path(), e);
      continue;
    }
    if (entry.path().extension() != kSuffix || !entry.is_regular_file(e) || entry.is_symlink(e)) continue;
    const auto bytes = static_cast<int64_t>(entry.file_size(e));
    if (e) continue;
    files.push_back({used, bytes, entry.path()});
    total += bytes;
  }
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.used < b.used; });
  for (const File& f : files) {
    if (total <= target) break;
    std::error_code e;
    if (fs::remove(f.path, e)) Count(&DiskCacheStats::evictions);
    if (!e) total -= f.bytes;  // removed, or gone already (another process evicted it)
  }
  return total;
}

DiskCacheStats DiskCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace rowjit::jit

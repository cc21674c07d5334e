// The disk cache against a hostile folder and other processes (tests, cache room): a FIFO, links,
// a directory and a huge file at a kernel's name, claims held by another process (running or
// stopped), three processes under one bound, a damaged size index, and engines whose compiles
// meet a held claim.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/cache/disk_cache.h"
#include "runtime/random.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A fresh folder under the system's temporary folder, removed with the test.
class Folder {
 public:
  Folder() {
    static int counter = 0;
    path_ = (fs::temp_directory_path() /
             fmt::format("rowjit-disk-{}-{}-{}", ::getpid(),
                         ::testing::UnitTest::GetInstance()->current_test_info()->name(), counter++))
                .string();
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  // The bytes of the stored objects (regular files with the object suffix).
  int64_t ObjectBytes() const {
    int64_t total = 0;
    for (const auto& e : fs::directory_iterator(path_)) {
      if (e.path().extension() == DiskCache::kSuffix && e.is_regular_file()) total += fs::file_size(e.path());
    }
    return total;
  }
  // The total the size index holds, or -1 when it is not 8 bytes.
  int64_t Indexed() const {
    std::ifstream in(path_ + "/.size", std::ios::binary);
    int64_t total = -1;
    in.read(reinterpret_cast<char*>(&total), sizeof(total));
    return in.gcount() == sizeof(total) ? total : -1;
  }

 private:
  std::string path_;
};

std::unique_ptr<DiskCache> OpenCache(const std::string& folder, int64_t bound = 1 << 20,
                                     milliseconds claim_wait = DiskCache::kClaimWait) {
  return std::move(DiskCache::Open(folder, bound, claim_wait)).value();
}

std::string Object(int i, size_t bytes = 600) {
  std::string s(bytes, '\0');
  std::mt19937_64 rng(i);
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// The process's peak resident set, in bytes.
int64_t PeakRss() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// A child process that holds every claim stripe of a folder, as a process compiling them would,
// or one stopped (Ctrl-Z, a debugger) while it held them. A running holder exits by itself after
// `lifetime`, so that a test of code that waits forever ends; the destructor kills and reaps it.
class ClaimHolder {
 public:
  enum class State : uint8_t { kRunning, kStopped };
  ClaimHolder(const std::string& folder, State state, std::chrono::seconds lifetime = std::chrono::seconds(60)) {
    std::vector<std::string> paths;  // made before fork: the child only makes system calls
    for (int i = 0; i < DiskCache::kClaimStripes; ++i) paths.push_back(fmt::format("{}/.claim-{:02d}", folder, i));
    int ready[2];
    if (::pipe(ready) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      for (const std::string& p : paths) {
        const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(2);
      }
      if (state == State::kStopped) ::raise(SIGSTOP);
      (void)!::write(ready[1], "x", 1);
      ::alarm(static_cast<unsigned>(lifetime.count()));
      for (;;) ::pause();
    }
    ::close(ready[1]);
    if (state == State::kStopped) {
      int status = 0;
      holding_ = pid_ > 0 && ::waitpid(pid_, &status, WUNTRACED) == pid_ && WIFSTOPPED(status);
    } else {
      char c = 0;
      holding_ = pid_ > 0 && ::read(ready[0], &c, 1) == 1;
    }
    ::close(ready[0]);
  }
  ~ClaimHolder() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ClaimHolder(const ClaimHolder&) = delete;
  ClaimHolder& operator=(const ClaimHolder&) = delete;
  bool holding() const { return holding_; }

 private:
  pid_t pid_ = -1;
  bool holding_ = false;
};

// A FIFO at a kernel's file name: an open for reading would wait for a writer forever. The load
// is a rejection at once, the FIFO is removed, and a store then fills the name.
TEST(DiskCache, AFifoAtAKernelsNameIsRejectedWithoutBlocking) {
  Folder folder;
  auto cache = OpenCache(folder.path());
  const std::string path = cache->PathOf("key");
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  const auto start = Clock::now();
  auto load = std::async(std::launch::async, [&] { return cache->Load("key"); });
  if (load.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "Load blocked on a FIFO";
    ::close(::open(path.c_str(), O_WRONLY | O_NONBLOCK));  // a writer lets the blocked open go
  }
  EXPECT_FALSE(load.get().has_value());
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_EQ(cache->stats().rejected, 1);
  EXPECT_EQ(cache->stats().misses, 0);
  EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << "the FIFO stays";
  ASSERT_OK(cache->Store("key", Object(1)));
  EXPECT_EQ(cache->Load("key"), Object(1));
}

// Links are not followed (their targets are neither read nor removed), a directory at a kernel's
// name is rejected and left alone, and FIFOs at the lock files are replaced by regular files.
TEST(DiskCache, LinksDirectoriesAndFifosNeverBlockOrEscapeTheFolder) {
  Folder folder;
  Folder elsewhere;
  auto cache = OpenCache(folder.path());
  const std::string outside = elsewhere.path() + "/precious";
  std::ofstream(outside) << "not a kernel";
  ASSERT_OK(cache->Store("real", Object(2)));
  fs::create_symlink(cache->PathOf("real"), cache->PathOf("linked"));  // a valid file behind a link
  fs::create_symlink(outside, cache->PathOf("outside"));
  EXPECT_FALSE(cache->Load("linked").has_value());
  EXPECT_FALSE(cache->Load("outside").has_value());
  EXPECT_EQ(cache->stats().rejected, 2);
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_EQ(cache->Load("real"), Object(2));  // the link's target is still loadable
  fs::create_directory(cache->PathOf("dir"));
  EXPECT_FALSE(cache->Load("dir").has_value());
  EXPECT_EQ(cache->stats().rejected, 3);
  EXPECT_TRUE(fs::is_directory(cache->PathOf("dir")));
  EXPECT_FALSE(cache->Store("dir", Object(3)).ok());  // a rename cannot replace a directory
  // FIFOs at every claim stripe and at the size index: claims and stores still work.
  for (int i = 0; i < DiskCache::kClaimStripes; ++i) {
    ASSERT_EQ(::mkfifo(fmt::format("{}/.claim-{:02d}", folder.path(), i).c_str(), 0644), 0);
  }
  fs::remove(folder.path() + "/.size");
  ASSERT_EQ(::mkfifo((folder.path() + "/.size").c_str(), 0644), 0);
  EXPECT_NE(cache->Claim("key"), nullptr);
  ASSERT_OK(cache->Store("key", Object(4)));
  EXPECT_EQ(cache->Load("key"), Object(4));
  EXPECT_TRUE(fs::is_regular_file(folder.path() + "/.size"));
}

// A 2 GiB file at a kernel's name (sparse: no disk is spent) is rejected from its size alone:
// nothing is read, nothing allocated for it.
TEST(DiskCache, AHugeFileIsRejectedWithoutBeingRead) {
  Folder folder;
  auto cache = OpenCache(folder.path(), DiskCache::kMaxFileBytes);
  EXPECT_EQ(cache->max_file_bytes(), DiskCache::kMaxFileBytes);
  const std::string path = cache->PathOf("key");
  constexpr int64_t kHuge = int64_t{2} << 30;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, kHuge), 0);
    ::close(fd);
  }
  const int64_t peak_before = PeakRss();
  const auto start = Clock::now();
  EXPECT_FALSE(cache->Load("key").has_value());
  const double seconds = SecondsSince(start);
  const int64_t grown = PeakRss() - peak_before;
  EXPECT_LT(grown, int64_t{16} << 20) << "the peak resident set grew by " << grown << " bytes";
  EXPECT_LT(seconds, 1.0);
  EXPECT_EQ(cache->stats().rejected, 1);
  EXPECT_FALSE(fs::exists(path));
}

// The largest file is min(bound, kMaxFileBytes): a store above it is refused and counted, and
// leaves nothing behind.
TEST(DiskCache, AStoreAboveTheLargestFileIsRefused) {
  Folder folder;
  constexpr int64_t kBound = 64 << 10;
  auto cache = OpenCache(folder.path(), kBound);
  EXPECT_EQ(cache->max_file_bytes(), kBound);
  const Status refused = cache->Store("big", Object(5, kBound));  // plus header and key: above
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.ToString().find("above"), std::string::npos) << refused.ToString();
  EXPECT_EQ(cache->stats().write_errors, 1);
  EXPECT_EQ(cache->stats().stores, 0);
  EXPECT_EQ(folder.ObjectBytes(), 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path()), fs::directory_iterator()), 0);
  ASSERT_OK(cache->Store("small", Object(6, kBound / 2)));
}

// A process stopped while it held a claim: another's claim gives up after its wait, counted, and
// the caller compiles without it. Once the holder dies, the claim is had at once.
TEST(DiskCache, AClaimHeldByAStoppedProcessTimesOut) {
  Folder folder;
  constexpr milliseconds kWait{300};
  auto cache = OpenCache(folder.path(), 1 << 20, kWait);
  {
    ClaimHolder holder(folder.path(), ClaimHolder::State::kStopped);
    ASSERT_TRUE(holder.holding());
    const auto start = Clock::now();
    EXPECT_EQ(cache->Claim("key"), nullptr);
    const double seconds = SecondsSince(start);
    EXPECT_GE(seconds, 0.3);
    EXPECT_LT(seconds, 0.3 + 2.0);
    EXPECT_EQ(cache->stats().claim_timeouts, 1);
  }
  const auto start = Clock::now();
  EXPECT_NE(cache->Claim("key"), nullptr);
  EXPECT_LT(SecondsSince(start), 0.2);
  EXPECT_EQ(cache->stats().claim_timeouts, 1);
}

// Abandon ends a claim wait within a pause, however long the wait could have gone on.
TEST(DiskCache, AbandonEndsAClaimWaitAtOnce) {
  Folder folder;
  auto cache = OpenCache(folder.path());  // the default wait
  ClaimHolder holder(folder.path(), ClaimHolder::State::kRunning);
  ASSERT_TRUE(holder.holding());
  auto claim = std::async(std::launch::async, [&] { return cache->Claim("key"); });
  std::this_thread::sleep_for(milliseconds(100));
  const auto start = Clock::now();
  cache->Abandon();
  ASSERT_EQ(claim.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_LT(SecondsSince(start), 0.5);
  EXPECT_EQ(claim.get(), nullptr);
  EXPECT_EQ(cache->stats().claim_timeouts, 0);
}

// A child process that opens a cache on a folder, then stores a round of objects each time the
// parent says so, and says when it is done (one byte each way, over pipes).
class Writer {
 public:
  Writer(const std::string& folder, int64_t bound, int who, int rounds) {
    int go[2], done[2];
    if (::pipe(go) != 0 || ::pipe(done) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(go[1]);
      ::close(done[0]);
      auto cache = OpenCache(folder, bound);
      char c = 0;
      int failed = 0;
      (void)!::write(done[1], "o", 1);  // opened: it has seen the folder as it is now
      for (int round = 0; round < rounds && ::read(go[0], &c, 1) == 1; ++round) {
        for (int i = 0; i < kObjectsPerRound; ++i) {
          const int id = who * 1000 + round * 100 + i;
          failed += !cache->Store(fmt::format("process {} key {}", who, id), Object(id, 400 + (i * 37) % 2000)).ok();
        }
        (void)!::write(done[1], "d", 1);
      }
      ::_exit(failed == 0 ? 0 : 1);
    }
    ::close(go[0]);
    ::close(done[1]);
    go_ = go[1];
    done_ = done[0];
    Wait();  // opened
  }
  ~Writer() {
    ::close(go_);
    ::close(done_);
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void Go() { (void)!::write(go_, "g", 1); }
  bool Wait() {
    char c = 0;
    return ::read(done_, &c, 1) == 1;
  }
  // Whether the child exited with every store done.
  bool Exited() {
    int status = 0;
    reaped_ = ::waitpid(pid_, &status, 0) == pid_;
    return reaped_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  static constexpr int kObjectsPerRound = 40;  // about 58 KiB of files

 private:
  pid_t pid_ = -1;
  int go_ = -1, done_ = -1;
  bool reaped_ = false;
};

// Three processes open one folder bounded to 64 KiB, then store in turns (each turn under the
// bound on its own: a process that counted only its own writes would never evict), then all at
// once. The size index makes every store see the folder: after each turn and at the end the
// objects are within the bound.
TEST(DiskCache, ThreeProcessesKeepOneFolderWithinItsBound) {
  Folder folder;
  constexpr int64_t kBound = 64 << 10;
  std::vector<std::unique_ptr<Writer>> writers;
  for (int who = 1; who <= 3; ++who) writers.push_back(std::make_unique<Writer>(folder.path(), kBound, who, 2));
  for (auto& w : writers) {
    w->Go();
    ASSERT_TRUE(w->Wait());
    EXPECT_LE(folder.ObjectBytes(), kBound) << "after a turn";
  }
  for (auto& w : writers) w->Go();
  for (auto& w : writers) EXPECT_TRUE(w->Exited()) << "a store failed";
  const int64_t left = folder.ObjectBytes();
  EXPECT_LE(left, kBound);
  EXPECT_GT(left, kBound / 2);  // evictions went down to 3/4 of the bound, not further
  EXPECT_EQ(folder.Indexed(), left);
}

// The size index is rebuilt from the folder when it is missing, damaged or out of range.
TEST(DiskCache, AMissingOrDamagedSizeIndexIsRebuiltFromTheFolder) {
  Folder folder;
  auto cache = OpenCache(folder.path());
  ASSERT_OK(cache->Store("a", Object(1)));
  ASSERT_OK(cache->Store("b", Object(2)));
  EXPECT_EQ(folder.Indexed(), folder.ObjectBytes());
  const auto rewrite = [&](std::string_view bytes) {
    std::ofstream(folder.path() + "/.size", std::ios::binary | std::ios::trunc) << bytes;
  };
  rewrite("abc");  // torn
  ASSERT_OK(cache->Store("c", Object(3)));
  EXPECT_EQ(folder.Indexed(), folder.ObjectBytes());
  const int64_t far_too_many = int64_t{1} << 40;  // past the bound: the store evicts, rescanning
  rewrite(std::string_view(reinterpret_cast<const char*>(&far_too_many), sizeof(far_too_many)));
  ASSERT_OK(cache->Store("d", Object(4)));
  EXPECT_EQ(folder.Indexed(), folder.ObjectBytes());
  EXPECT_EQ(cache->stats().evictions, 0);  // the true total was well under the bound
  fs::remove(folder.path() + "/.size");
  ASSERT_OK(cache->Store("e", Object(5)));
  EXPECT_EQ(folder.Indexed(), folder.ObjectBytes());
  for (const char* key : {"a", "b", "c", "d", "e"}) EXPECT_TRUE(cache->Load(key).has_value()) << key;
}

struct Workload {
  Schema schema = *ParseSchema("a:i32?, b:i32, c:i64");
  RecordBatch batch = *RandomBatch(schema, 3000, 0.9, 11);
  ir::ExprPtr expr = *ir::ParseAndBind("cast(a * b, i64) + c < 100", schema);
  ArrayPtr reference = *ir::EvaluateReference(*expr, batch.columns, batch.length);
};

// A synchronous engine meets a claim another process holds: it waits claim_wait_ms, then compiles
// without the claim (counted), stores the kernel and answers.
TEST(DiskCache, ASynchronousCompileUnderAHeldClaimCompilesAfterItsWait) {
  Folder folder;
  Workload w;
  ClaimHolder holder(folder.path(), ClaimHolder::State::kRunning, std::chrono::seconds(30));
  ASSERT_TRUE(holder.holding());
  auto engine = std::move(Engine::Make({.cache_dir = folder.path(),
                                        .compile = EngineOptions::Compile::kSynchronous,
                                        .claim_wait_ms = 300}))
                    .value();
  const auto start = Clock::now();
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch, {}, &report));
  const double seconds = SecondsSince(start);
  EXPECT_GE(seconds, 0.3);
  EXPECT_LT(seconds, 0.3 + 10.0) << "slack for a compile under a sanitizer";
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  EXPECT_EQ(report.source, KernelSource::kCompiled);
  EXPECT_EQ(engine->disk_cache_stats().claim_timeouts, 1);
  EXPECT_EQ(engine->disk_cache_stats().stores, 1);
}

// A tiered engine's background compile waits on a claim another process holds (for up to the
// default ten seconds): destroying the engine ends the wait and returns at once, without the
// compile.
TEST(DiskCache, DestroyingAnEngineWhoseCompileWaitsOnAHeldClaimReturnsPromptly) {
  Folder folder;
  Workload w;
  ClaimHolder holder(folder.path(), ClaimHolder::State::kRunning, std::chrono::seconds(30));
  ASSERT_TRUE(holder.holding());
  auto engine = std::move(Engine::Make({.cache_dir = folder.path()})).value();
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch));
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  std::this_thread::sleep_for(milliseconds(300));  // the background compile is in its claim wait
  const auto start = Clock::now();
  engine.reset();
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_EQ(folder.ObjectBytes(), 0);  // nothing compiled for nobody
}

}  // namespace
}  // namespace rowjit::jit

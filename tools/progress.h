// Progress of a long CLI command on stderr (tools layer): a bar with the count, the elapsed time
// and the time left while stderr is a terminal, a plain line at each tenth of the work (and at
// least every 30 s) when it is not, so a CI log gets a few lines and stdout stays parseable. The
// same rules as tools/progress.py, which the Python tools share.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rowjit::cli {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  // `total` steps of `label`'s work, drawn as a bar when `out` is a terminal.
  Progress(std::string label, int64_t total, std::FILE* out = stderr);
  // The same with the form chosen by the caller (a bar when `tty`, else plain lines).
  Progress(std::string label, int64_t total, std::FILE* out, bool tty);

  // One more step done; `note` (what it was) is shown beside the count.
  void Advance(std::string_view note = {});
  // Erases the bar, so that the caller can print a line of its own; the next Advance redraws it.
  void Clear();
  // The last line, terminal or not: how many steps in how long, and `note`.
  void Finish(std::string_view note = {});

 private:
  std::string Status(Clock::time_point now) const;  // "label: 12/40 (30%), 0:07 elapsed, ETA 0:16"
  void Draw(Clock::time_point now);

  std::string label_;
  int64_t total_;
  std::FILE* out_;
  bool tty_;
  int64_t done_ = 0;
  std::string note_;
  bool drawn_ = false;
  int last_tenth_ = 0;
  Clock::time_point start_, last_draw_, last_line_;
};

}  // namespace rowjit::cli

// Progress of a long CLI command on stderr (tools layer); see progress.h.
#include "tools/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace rowjit::cli {

namespace {

constexpr auto kLineEvery = std::chrono::seconds(30);          // plain lines, at least this often
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);  // the bar, at most this often
constexpr int kBarCells = 20;
// Of a note in a plain line: a catalog kernel's text can run to kilobytes.
constexpr size_t kNoteChars = 100;

// 0:07, 1:05:09.
std::string ClockText(double seconds) {
  const auto s = static_cast<int64_t>(std::max(seconds, 0.0) + 0.5);
  const int64_t h = s / 3600, m = s / 60 % 60;
  return h > 0 ? fmt::format("{}:{:02d}:{:02d}", h, m, s % 60)
               : fmt::format("{}:{:02d}", m, s % 60);
}

double Seconds(Progress::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int TerminalColumns(std::FILE* out) {
  winsize w{};
  if (ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

}  // namespace

Progress::Progress(std::string label, int64_t total, std::FILE* out)
    : Progress(std::move(label), total, out, isatty(fileno(out)) != 0) {}

Progress::Progress(std::string label, int64_t total, std::FILE* out, bool tty)
    : label_(std::move(label)),
      total_(std::max<int64_t>(total, 0)),
      out_(out),
      tty_(tty),
      start_(Clock::now()),
      last_draw_(start_),
      last_line_(start_) {}

void Progress::Advance(std::string_view note) {
  ++done_;
  if (!note.empty()) note_ = note;
  const Clock::time_point now = Clock::now();
  if (tty_) {
    if (now - last_draw_ >= kRedrawEvery || done_ >= total_) Draw(now);
    return;
  }
  if (done_ >= total_) return;  // Finish says it
  const int tenth = total_ > 0 ? static_cast<int>(10 * done_ / total_) : 0;
  if (tenth > last_tenth_ || now - last_line_ >= kLineEvery) {
    last_tenth_ = std::max(tenth, last_tenth_);
    last_line_ = now;
    fmt::print(out_, "{}\n", Status(now));
    std::fflush(out_);
  }
}

void Progress::Clear() {
  if (!tty_ || !drawn_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

void Progress::Finish(std::string_view note) {
  Clear();
  fmt::print(out_, "{}: {}/{} in {}{}{}\n", label_, done_, total_,
             ClockText(Seconds(Clock::now() - start_)), note.empty() ? "" : ": ", note);
  std::fflush(out_);
}

std::string Progress::Status(Clock::time_point now) const {
  const double elapsed = Seconds(now - start_);
  std::string s = fmt::format("{}: {}/{}", label_, done_, total_);
  if (total_ > 0) s += fmt::format(" ({}%)", 100 * done_ / total_);
  s += fmt::format(", {} elapsed", ClockText(elapsed));
  if (done_ > 0 && done_ < total_) {
    s += fmt::format(", ETA {}", ClockText(elapsed * static_cast<double>(total_ - done_) /
                                           static_cast<double>(done_)));
  }
  if (!note_.empty())
    s += ": " + (note_.size() > kNoteChars ? note_.substr(0, kNoteChars - 3) + "..." : note_);
  return s;
}

// "label 140/4057 (3%) 0:01 ETA 0:09 [#-----]  note": what a narrow terminal cuts is the bar and
// the note, never the count or the time left.
void Progress::Draw(Clock::time_point now) {
  const double elapsed = Seconds(now - start_);
  std::string line = fmt::format("{} {}/{}", label_, done_, total_);
  if (total_ > 0) line += fmt::format(" ({}%)", 100 * done_ / total_);
  line += " " + ClockText(elapsed);
  if (done_ > 0 && done_ < total_) {
    line += " ETA " +
            ClockText(elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_));
  }
  const int full =
      total_ > 0 ? static_cast<int>(std::min<int64_t>(kBarCells, kBarCells * done_ / total_)) : 0;
  line += fmt::format(" [{}{}]", std::string(full, '#'), std::string(kBarCells - full, '-'));
  if (!note_.empty()) line += "  " + note_;
  line.resize(
      std::min<size_t>(line.size(), static_cast<size_t>(std::max(TerminalColumns(out_) - 1, 10))));
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
  drawn_ = true;
  last_draw_ = now;
}

}  // namespace rowjit::cli

#include "cli/progress.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace eb::cli {

namespace {
constexpr const char* kClearLine = "\r\033[K";
}

Progress::Progress(size_t tests, uint32_t sessions, bool enabled, bool retry_hung)
    : total_(tests * sessions), sessions_(sessions), enabled_(enabled), retry_hung_(retry_hung) {}

std::string Progress::eta(double elapsed_s, size_t done, size_t total) {
    if (done == 0 || done >= total) return "";
    return duration_text(elapsed_s / double(done) * double(total - done));
}

std::string Progress::duration_text(double seconds) {
    auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    if (s < 60) return fmt::format("{} s", s);
    return fmt::format("{} min {:02} s", s / 60, s % 60);
}

void Progress::starting(const std::string& test) {
    if (!enabled_) return;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    std::string left = eta(el, done_, total_);
    fmt::print(stderr, "{}[{}/{}] {} running{}", kClearLine, done_ + 1, total_, test,
               left.empty() ? "" : ", about " + left + " left");
    std::fflush(stderr);
}

void Progress::done(const lab::TestResult& r) {
    ++done_;
    uint32_t ran = ++runs_[r.name];
    // A skip is not repeated in later sessions, nor a hang: those slots will not come.
    bool last = r.status == lab::Status::Skipped || (r.status == lab::Status::Hung && !retry_hung_);
    if (last && sessions_ > ran) total_ -= std::min<size_t>(total_ - done_, sessions_ - ran);
    if (!enabled_) return;
    fmt::print(stderr, "{}[{}/{}] {} {} ({:.1f} s)\n", kClearLine, done_, total_, r.name,
               lab::status_name(r.status), r.wall_seconds);
}

} // namespace eb::cli

#include "suite/result.h"

#include "stats/summary.h"

namespace eb::suite {

namespace {
constexpr std::pair<Status, const char*> kNames[] = {
    {Status::Ok, "ok"},           {Status::Unverified, "unverified"},
    {Status::NoExit, "no-exit"},  {Status::Mismatch, "mismatch"},
    {Status::Failed, "failed"},   {Status::Hung, "hung"},
    {Status::Skipped, "skipped"}, {Status::Error, "error"},
    {Status::Interrupted, "interrupted"},
};
} // namespace

const char* status_name(Status s) {
    for (auto [k, n] : kNames)
        if (k == s) return n;
    return "?";
}

std::optional<Status> status_from_name(const std::string& s) {
    for (auto [k, n] : kNames)
        if (s == n) return k;
    return std::nullopt;
}

bool is_failure(Status s) {
    return s == Status::Mismatch || s == Status::Failed || s == Status::Hung || s == Status::Error;
}

std::optional<double> baseline_cycles(const RunReport& r) {
    for (const auto& t : r.results)
        if (t.name == "baseline" && !t.samples.empty() && !is_failure(t.status))
            return stats::median(t.samples);
    return std::nullopt;
}

std::optional<double> per_exit_overhead(const RunReport& r) {
    for (const auto& t : r.results)
        if (t.name == "baseline" && !t.per_exit_cycles.empty() && !is_failure(t.status))
            return stats::median(t.per_exit_cycles);
    return std::nullopt;
}

} // namespace eb::suite

// perf kvm stat report's text tables, read back (as printed by
// `perf kvm stat report --stdio` or pasted into a mailing list), as the same
// Report that analyze() builds from an exitbench trace, so `profile compare`
// can set a peer's perf table against an exitbench trace.
//
// Such a table holds per key only the count, min, max, mean and perf's
// relative standard error of the mean: the rows get exactly those (total time
// as count x mean; m2 from the error, so rel_sem_pct() gives it back), no
// durations, so no p50/p99, histogram or per-vCPU figures, and no latency
// test in a comparison. Report::imported says so.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "profile/analyze.h"
#include "sys/error.h"

namespace eb::profile {

// A file that holds no usable table; the message is one line.
struct PerfTextError : InputError {
    using InputError::InputError;
};

// A report text bigger than this is not one perf printed for a person.
inline constexpr size_t kPerfTextMaxBytes = 16u << 20;
// Counts perf prints with %llu, but a count above 2^53 cannot be held exactly
// in the mean's double, and no real run had one: refused as corrupt.
inline constexpr uint64_t kPerfTextMaxCount = uint64_t(1) << 53;
// 1e9 us is over 16 minutes for one exit: refused as corrupt.
inline constexpr double kPerfTextMaxUs = 1e9;

// Every table in `text`, in file order (a paste often holds the vmexit,
// ioport and msr tables one after another). VM-EXIT rows name their ISA by
// their spelling: SVM's lowercase names ("msr", "npf") or VMX's uppercase
// ones ("MSR_READ"). Throws PerfTextError for empty or binary text, no table,
// a malformed row, a number perf cannot have printed, or a footer that does
// not add up.
std::vector<Report> parse_perf_text(std::string_view text, std::string_view source);

} // namespace eb::profile

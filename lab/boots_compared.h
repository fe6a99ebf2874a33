// The host-kernel A/B's use case, for both of its forms: `compare
// --kernel-a/-b` (two sides booted in turn, A B B A ...) and `bisect-step`
// (one side booted, set against saved boots). The boot is the unit; the
// boots come through a function, so the whole path runs without QEMU.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/kernel_ab.h"
#include "suite/compare.h"

namespace eb::lab {

struct BootsCompared {
    AbRuns runs;
    std::vector<std::vector<suite::RunReport>> sides;  // as compared: the reference first, when given
    std::optional<suite::ComparisonReport> cmp;        // nullopt: a side has no finished boot
    std::string why_not;                               // then, why
};

// Boots `order` (a side each) through `boot`, then compares the sides' runs
// with the boot as the unit. With `reference`, the comparison is the
// reference's runs (labels[0]) against side 0's boots (labels[1]). Failed
// boots, short sides, an interrupt and (emulated) the emulation are said in
// the comparison's warnings, so every output carries them.
BootsCompared boot_and_compare(const std::vector<int>& order, const std::function<BootOutcome(int side)>& boot,
                               const std::vector<std::string>& labels, double alpha, bool emulated,
                               const std::atomic<bool>& interrupt, const AbObserver& obs = {},
                               const std::optional<std::vector<suite::RunReport>>& reference = std::nullopt);

// The comparison of boots that already ran (the kexec plan's, read back).
BootsCompared compare_booted(AbRuns runs, const std::vector<std::string>& labels, double alpha, bool emulated,
                             const std::optional<std::vector<suite::RunReport>>& reference = std::nullopt);

// Failed boots, short sides, an interrupt and (emulated) the emulation,
// added to `cmp`'s warnings; the advice becomes more boots.
void add_boot_warnings(suite::ComparisonReport& cmp, const AbRuns& runs, bool emulated);

// A side as named in the output: "vmlinuz-6.1.0 'mitigations=off' [kvm_amd avic=1]".
std::string describe(const std::string& kernel, const std::string& append, const std::vector<std::string>& modprobe);

// The header over a comparison of boots: how they booted, and each side's boot ids.
std::vector<std::string> boot_header(const std::vector<std::string>& labels,
                                     const std::vector<std::vector<suite::RunReport>>& sides, const BootPlan& plan);

} // namespace eb::lab

// The bare-metal A/B (`compare --backend kexec`): the plan of boots kept in
// a state file next to the history, the systemd unit that resumes it after
// each boot, and the bookkeeping of each boot as it went. The host itself
// boots the sides in turn (lab/kexec_boot.h kexecs), so the plan outlives
// every process: each boot reads it, records itself and kexecs the next.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace eb::lab {

// What one side boots: the image, its initrd (may be empty) and the whole
// command line, without the plan's marker.
struct KexecSide {
    std::string kernel, initrd, cmdline, release;
    std::string name;  // the side's label, "A: vmlinuz-6.1.0 'mitigations=off'"
};

// One boot of the plan as it went; a failed one is retried once.
struct KexecBoot {
    unsigned slot = 0;  // 1 to 2n
    int side = 0;       // 0: A, 1: B
    bool retry = false;
    std::string boot_id, failure;
    std::string result;  // the run's JSON file in the plan's folder, when it finished
    bool saved = false;  // and saved to the history
};

struct KexecPlan {
    std::string id;                      // tells this plan's boots from any other's
    std::string label, note, db, unit_dir, exitbench, json;  // json: --json FILE for the verdict
    std::optional<double> fail_pct;
    double alpha = 0.05;
    KexecSide sides[2];
    std::vector<int> order;              // lab::counterbalanced(n)
    std::vector<std::string> run_args;   // `exitbench run ...` in each boot, without --json/--db
    unsigned slot = 1;                   // the boot being booted or measured; order.size() + 1 once all are done
    bool retry = false;                  // that boot is its retry
    std::string launched_from;           // the boot id that kexec'd into `slot`
    std::vector<KexecBoot> boots;
    std::vector<std::string> short_sides;
    bool done = false;                   // the verdict was given; the unit is gone
    unsigned boots_a_side() const { return unsigned(order.size() / 2); }
    bool finished() const { return slot > order.size(); }
};

// Where a plan lives, next to the history database `db_file`: the state
// file, and the folder of its boots' results.
std::string plan_state_path(const std::string& db_file);
std::string plan_dir(const std::string& db_file);

std::string plan_to_json(const KexecPlan& p);
// Throws InputError naming `path` when the state cannot be read.
KexecPlan plan_from_json(const std::string& text, const std::string& path);
std::optional<KexecPlan> load_plan(const std::string& path);
void save_plan(const std::string& path, const KexecPlan& p);  // atomic, private

// The marker each kexec'd command line carries: "exitbench.plan=ID:SLOT".
std::string slot_marker(const KexecPlan& p, unsigned slot);
// The command line to kexec into `slot` with.
std::string slot_cmdline(const KexecPlan& p, unsigned slot);
// `words` added to the kernel's part of `cmdline`: before a " -- ", past
// which words are init's arguments, not the kernel's parameters.
std::string add_params(const std::string& cmdline, const std::string& words);
// Which slot of plan `p` this boot's /proc/cmdline names, if any.
std::optional<unsigned> booted_slot(const KexecPlan& p, const std::string& cmdline);
// A running kernel's command line made the base of a side's: BOOT_IMAGE=,
// initrd= and any plan marker left out (the loader adds them anew).
std::string base_cmdline(const std::string& proc_cmdline);

// Records a boot of the current slot and moves on: the next slot when it
// finished or was already the retry (then its side is one boot short), else
// the retry of the same slot.
void record_boot(KexecPlan& p, KexecBoot b);

// Where a plan stands, for --status.
struct PlanStatus {
    unsigned slot = 0, total = 0;
    bool retry = false, done = false;
    unsigned finished[2] = {0, 0}, failed = 0;
    int next_side = 0;
    std::string next_kernel, next_cmdline;
};
PlanStatus plan_status(const KexecPlan& p);

// The unit that resumes the plan at each boot, while the plan lasts.
inline constexpr const char* kUnitName = "exitbench-kexec-plan.service";
inline constexpr const char* kUnitWantedBy = "multi-user.target";
// The unit's text: ExecStart is the resume entry point, with the store's path.
std::string unit_text(const KexecPlan& p);
// The command the unit runs, as words (an init without systemd runs the same).
std::vector<std::string> resume_command(const KexecPlan& p);
// Writes the unit into `unit_dir` and enables it (the .wants link that
// `systemctl enable` would make), so the next boot starts it without a
// running systemd being told. Throws HostError.
void install_unit(const std::string& unit_dir, const std::string& text);
// Removes the unit and its link; true if anything was there.
bool remove_unit(const std::string& unit_dir);
bool unit_installed(const std::string& unit_dir);

} // namespace eb::lab

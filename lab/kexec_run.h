// The kexec plan's steps as use cases (`compare --backend kexec`): start it,
// resume it after each boot (measure this boot, save it, record it), finish
// it (the boots compared, the boot as the unit) and abort it. The command
// line says what each step did and kexecs the next boot (kexec_next).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/boots_compared.h"
#include "lab/kexec_boot.h"
#include "lab/kexec_plan.h"

namespace eb::lab {

// The plan of `spec` with the sides named, its state saved at `state` (a
// finished plan's boots cleared first) and its unit installed. Bad input and
// the host's refusals come first, before anything is written.
KexecPlan start_kexec_plan(const KexecSpec& spec, const std::string& state, const std::string& name_a,
                           const std::string& name_b);

// After a boot: this boot's run measured and saved as LABEL/A or /B when it
// is the plan's next boot, or recorded as failed when its command line is
// not the plan's; nullopt when this boot is the one that launched the kexec
// (it did not happen: try again). The plan's state is saved.
struct ResumedBoot {
    KexecBoot boot;                 // its slot, side and retry as the plan had them
    std::optional<int64_t> run_id;  // where it was saved
};
std::optional<ResumedBoot> resume_kexec_plan(KexecPlan& p, const std::string& state);

// The plan's end: the boots' runs compared, the state kept as done, the unit
// removed. `cmp` is nullopt when a side has no finished boot.
struct KexecFinish {
    BootsCompared compared;
    std::vector<std::string> header;
    bool saved = true;  // every finished boot reached the history
};
KexecFinish finish_kexec_plan(KexecPlan& p, const std::string& state);

// Removes the unit (true if one was there), the plan's boots and its state;
// the finished boots stay in the history. HostError when the state stays.
bool abort_kexec_plan(const KexecPlan& p, const std::string& state);

} // namespace eb::lab

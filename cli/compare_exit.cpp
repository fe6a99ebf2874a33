#include "cli/compare_exit.h"

#include <fmt/format.h>

#include "cli/app.h"

namespace eb::cli {

int compare_exit(const CompareEnd& e) {
    if (e.gate == kTestFailed) return kTestFailed;
    if (!e.written) return kHost;
    if (!e.saved) return kNotSaved;
    if (e.interrupted) return kInterrupted;
    if (e.gate) return *e.gate;
    return e.empty ? kTestFailed : kOk;
}

int compare_exit_said(const CompareEnd& e, const char* unsaved) {
    int rc = compare_exit(e);
    if (rc == kTestFailed && e.gate && (!e.written || !e.saved || e.interrupted))
        fmt::print(stderr, "exitbench: exit status 1 is the gate's; besides, {}\n",
                   !e.written ? "an output could not be written"
                   : !e.saved ? fmt::format("{} could not be saved to the history (kept in a file, named above)", unsaved)
                              : "the command was interrupted");
    return rc;
}

} // namespace eb::cli

#include "cli/compare_exit.h"

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

} // namespace eb::cli

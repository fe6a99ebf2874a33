// A window onto the measured batches for a layer above the suite (the host
// profiler): the session knows when warm-up ends and each measured batch
// starts and stops, so it says so here. The suite does not know who listens.
#pragma once
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace eb::suite {

class MeasureHooks {
public:
    virtual ~MeasureHooks() = default;
    // On the runner's thread, before the test's VM is made.
    virtual void test_starting(const std::string& test) = 0;
    // On vCPU 0's thread, as the last thing before a measured batch re-enters
    // the guest; `vcpu_tids` are the VM's vCPU threads (0 for one not running
    // yet). Measured batches count from 0 within a session. True when the
    // listener perturbs this batch (samples it): the session then keeps the
    // batch out of the test's results and measures another in its place.
    virtual bool batch_starting(uint32_t index, const std::vector<pid_t>& vcpu_tids) = 0;
    // On vCPU 0's thread, as the first thing once the guest handed the batch
    // back (or failed, or the session ended): `cycles` of `iterations`.
    virtual void batch_ended(uint64_t cycles, uint64_t iterations) = 0;
    // On the runner's thread, after the VM's threads have stopped.
    virtual void test_ended(const std::string& test) = 0;
};

} // namespace eb::suite

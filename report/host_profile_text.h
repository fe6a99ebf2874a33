// `run --host-profile`'s tables: per test, the functions the host spent the
// iteration in, self and with children, as ns and cycles per iteration
// (sample share x measured cost) with sample counts and sampling errors,
// and the overhead sampling added.
#pragma once
#include <string>
#include <vector>

#include "profile/host_profile.h"
#include "suite/result.h"

namespace eb::report {

// `top`: the rows per test (the largest with-children shares, plus any
// larger self share); `tsc_mhz` converts cycles to ns.
std::string render_host_profile(const std::vector<profile::TestHostProfile>& profiles,
                                const std::vector<std::string>& notes, double tsc_mhz, size_t top = 24);
// The host profiles saved in a run (its results' host_samples), the same
// tables; "" when it holds none.
std::vector<profile::TestHostProfile> saved_host_profiles(const suite::RunReport& r);
std::string render_saved_host_profile(const suite::RunReport& r, size_t top = 24);

} // namespace eb::report

// run --host-profile's sampled host profile in the result, per test:
// "host_samples" (schema_version 5). The folded call chains and the batches'
// cost are the data; the functions' samples, ns and cycles per iteration
// and the sampling overhead are written beside them for other readers, and
// computed again from the data on reading.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "profile/host_profile.h"

namespace eb::result {

// `tsc_mhz`: the run's, to give ns per iteration (0: none given).
nlohmann::json host_samples_json(const std::optional<profile::TestHostProfile>& p, double tsc_mhz);
// null: nullopt. InputError naming the member that is missing or malformed.
std::optional<profile::TestHostProfile> host_samples_from(const nlohmann::json& j, const std::string& test);

// The sampling overhead in %: the sampled batches' cost per iteration over
// the unsampled ones', or nullopt without an unsampled batch to compare with.
std::optional<double> sampling_overhead_pct(const profile::TestHostProfile& p);

} // namespace eb::result

// compare --host-profile's table: the functions whose time per iteration
// moved between the configurations (profile/host_diff.h), or a plain line
// saying that nothing measurably moved.
#pragma once
#include <string>

#include "profile/host_diff.h"

namespace eb::report {

std::string render_host_diff(const profile::HostDiff& d);

} // namespace eb::report

// `exitbench list`: the registry's tests, what each expects per iteration,
// and what this host makes of them (skips, known issues, vmexit.flat's
// differences).
#pragma once
#include <string>

#include "suite/runner.h"

namespace eb::report {

// `all`: the harness self-tests too.
std::string render_test_list(const suite::HostContext& ctx, bool all);
// docs/kut-differences.md's table, as markdown.
std::string render_kut_differences();

} // namespace eb::report

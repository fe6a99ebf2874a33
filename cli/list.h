// `exitbench list` and `exitbench env`: what this host offers, printed.
#pragma once
#include <string>

namespace eb::cli {

// Every test, what it expects, and its skips on this host; with
// `kut_differences` docs/kut-differences.md's table of differences from vmexit.flat
// instead (no /dev/kvm needed).
int cmd_list(const std::string& device, bool all, bool kut_differences);
// The host facts every result records.
int cmd_env(const std::string& device);

} // namespace eb::cli

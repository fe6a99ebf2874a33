// `compare --backend kexec`: the host-kernel A/B on the host itself, one
// kexec per boot (lab/kexec_boot.h), resumed after each boot by the unit the
// plan installs; --status, --abort and --resume (the unit's entry point).
#pragma once
#include <CLI/CLI.hpp>

#include "cli/compare.h"

namespace eb::cli {

struct KernelAbArgs;

// Adds --backend, --status, --abort, --unit-dir and the hidden --resume.
void add_kexec_options(CLI::App& compare, KernelAbArgs& k);
int cmd_compare_kexec(const CompareArgs& c, const KernelAbArgs& k);

} // namespace eb::cli

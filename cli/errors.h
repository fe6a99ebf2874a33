// Errors the CLI maps to exit codes (see app.h): its own usage error, and
// those of the layers below under the names the command line uses.
#pragma once
#include <stdexcept>

#include "lab/run.h"
#include "sys/error.h"

namespace eb::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
using eb::HostError;
using lab::NoKvm;  // kselftest's "skip"

} // namespace eb::cli

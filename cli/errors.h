// Errors the CLI maps to exit codes (see app.h).
#pragma once
#include <stdexcept>

namespace eb::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct HostError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// KVM cannot be used on this host at all: kselftest's "skip".
struct NoKvm : HostError {
    using HostError::HostError;
};

} // namespace eb::cli

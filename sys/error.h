// The one exception type for bad input, at every layer: an argument, a name,
// or the content of a file the user gave. The command line maps it (and its
// own usage error) to exit 2. Anything else is the host's trouble or a bug:
// std::invalid_argument and the other std::logic_error types stay for broken
// preconditions, which no input should reach.
#pragma once
#include <stdexcept>

namespace eb {

struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The host cannot do what was asked (a device, a file system, tracefs):
// exit 3 on the command line.
struct HostError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace eb

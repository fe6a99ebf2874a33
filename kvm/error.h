// Errors from the KVM API carry the ioctl's name and errno, so a message
// names the failing call instead of a bare strerror.
#pragma once
#include <stdexcept>
#include <string>

#include "sys/error.h"

namespace eb::kvm {

class Error : public HostError {
public:
    Error(std::string what, int err);
    int err() const { return err_; }
private:
    int err_;
};

// The host lacks something the VMM cannot work without.
class MissingCapability : public std::runtime_error {
public:
    explicit MissingCapability(const std::string& cap)
        : std::runtime_error("needs " + cap + ", host lacks it"), cap_(cap) {}
    const std::string& cap() const { return cap_; }
private:
    std::string cap_;
};

// An ioctl request with its name, so that errors name the call.
struct Ioctl {
    unsigned long req;
    const char* name;
};

// The name is the macro's own spelling: EB_IOCTL(KVM_RUN) is "KVM_RUN".
#define EB_IOCTL(x) ::eb::kvm::Ioctl{x, #x}

// Runs ioctl(fd, io.req, arg), retrying on EINTR; throws Error naming the
// ioctl on failure.
int checked_ioctl(int fd, Ioctl io, unsigned long arg);

template <class T>
int checked_ioctl(int fd, Ioctl io, T* arg) {
    return checked_ioctl(fd, io, reinterpret_cast<unsigned long>(arg));
}

} // namespace eb::kvm

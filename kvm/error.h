// Errors from the KVM API carry the ioctl's name and errno, so a message
// names the failing call instead of a bare strerror.
#pragma once
#include <stdexcept>
#include <string>

namespace eb::kvm {

class Error : public std::runtime_error {
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

// Runs ioctl(fd, req, arg); throws Error naming `name` on failure.
int checked_ioctl(int fd, unsigned long req, unsigned long arg, const char* name);

template <class T>
int checked_ioctl(int fd, unsigned long req, T* arg, const char* name) {
    return checked_ioctl(fd, req, reinterpret_cast<unsigned long>(arg), name);
}

} // namespace eb::kvm

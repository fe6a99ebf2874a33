// /dev/kvm: the system fd.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <linux/kvm.h>

#include "kvm/caps.h"
#include "kvm/fd.h"

namespace eb::kvm {

class Vm;

class System {
public:
    // Throws a std::runtime_error with a one-line reason when the device is
    // missing, not accessible, or speaks another API version.
    static System open(const std::string& path = "/dev/kvm");

    int check_extension(Cap cap) const;
    bool has(Cap cap) const { return check_extension(cap) > 0; }
    void require(Cap cap) const;

    std::vector<kvm_cpuid_entry2> supported_cpuid() const;
    size_t vcpu_mmap_size() const;
    Vm create_vm() const;

    int fd() const { return fd_.get(); }
    const std::string& path() const { return path_; }

private:
    System(Fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
    Fd fd_;
    std::string path_;
};

} // namespace eb::kvm

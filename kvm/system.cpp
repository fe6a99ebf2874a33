#include "kvm/system.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sstream>
#include <sys/ioctl.h>

#include "kvm/error.h"
#include "kvm/uapi.h"
#include "kvm/vm.h"

namespace eb::kvm {

bool masked_for_tests(Cap cap) {
    const char* env = std::getenv("EXITBENCH_MASK_CAPS");
    if (!env) return false;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
        if (item == cap.name || "KVM_CAP_" + item == cap.name) return true;
    return false;
}

System System::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT)
            throw HostError(path + " does not exist: KVM is not available on this host");
        if (e == EACCES || e == EPERM)
            throw HostError("no permission to open " + path +
                                     " (run as root or join the kvm group)");
        throw Error("open " + path, e);
    }
    Fd owned(fd);
    int version = ::ioctl(fd, KVM_GET_API_VERSION, 0);
    if (version != KVM_API_VERSION)
        throw HostError(path + " is not a KVM device with API version " +
                                 std::to_string(KVM_API_VERSION));
    return System(std::move(owned), path);
}

int System::check_extension(Cap cap) const {
    if (masked_for_tests(cap)) return 0;
    int r = ::ioctl(fd_.get(), KVM_CHECK_EXTENSION, cap.id);
    return r < 0 ? 0 : r;
}

void System::require(Cap cap) const {
    if (!has(cap)) throw MissingCapability(cap.name);
}

std::vector<kvm_cpuid_entry2> System::supported_cpuid() const {
    for (uint32_t n = 64; n <= 4096; n *= 2) {
        uapi::Flex<uapi::Cpuid2, kvm_cpuid_entry2> c(n);
        c.hdr()->nent = n;
        if (::ioctl(fd_.get(), uapi::kGetSupportedCpuid.req, c.hdr()) == 0)
            return {c.entries(), c.entries() + c.hdr()->nent};
        if (errno != E2BIG) throw Error(uapi::kGetSupportedCpuid.name, errno);
    }
    throw Error(uapi::kGetSupportedCpuid.name, E2BIG);
}

size_t System::vcpu_mmap_size() const {
    return static_cast<size_t>(
        checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_VCPU_MMAP_SIZE), 0ul));
}

Vm System::create_vm() const {
    int fd = checked_ioctl(fd_.get(), EB_IOCTL(KVM_CREATE_VM), 0ul);
    return Vm(Fd(fd), vcpu_mmap_size());
}

} // namespace eb::kvm

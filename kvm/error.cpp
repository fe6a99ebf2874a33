#include "kvm/error.h"

#include <cerrno>
#include <cstring>
#include <sys/ioctl.h>

namespace eb::kvm {

Error::Error(std::string what, int err)
    : HostError(what + ": " + std::strerror(err)), err_(err) {}

int checked_ioctl(int fd, Ioctl io, unsigned long arg) {
    int r;
    do {
        r = ::ioctl(fd, io.req, arg);
    } while (r < 0 && errno == EINTR); // KVM_RUN, which must see EINTR, has its own path
    if (r < 0) throw Error(io.name, errno);
    return r;
}

} // namespace eb::kvm

// An eventfd, for ioeventfd-served test devices.
#pragma once
#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kvm/error.h"
#include "kvm/fd.h"

namespace eb::vmm {

class EventFd {
public:
    EventFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (!fd_.valid()) throw kvm::Error("eventfd", errno);
    }
    int fd() const { return fd_.get(); }
    // The count since the last read (and resets it); 0 if it never fired.
    uint64_t take() {
        uint64_t v = 0;
        return ::read(fd_.get(), &v, sizeof v) == sizeof v ? v : 0;
    }

private:
    kvm::Fd fd_;
};

} // namespace eb::vmm

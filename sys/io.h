// Whole-buffer I/O on raw descriptors: retries short writes and EINTR, so
// callers never see a partial write. Errors come back as errno values; the
// caller knows which file it was and says so.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sys/fd.h"

namespace eb::sys {

// 0, or the errno of the first failure.
int write_all(int fd, const void* data, size_t n);
inline int write_all(int fd, std::string_view s) { return write_all(fd, s.data(), s.size()); }
// The same at an offset (pwrite): for files patched in place.
int pwrite_all(int fd, const void* data, size_t n, uint64_t off);

struct Pipe {
    Fd read;
    Fd write;
};
// A close-on-exec pipe; throws std::system_error.
Pipe make_pipe();

} // namespace eb::sys

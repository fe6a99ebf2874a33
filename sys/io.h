// Whole-buffer I/O on raw descriptors: retries short writes and EINTR, so
// callers never see a partial write. Errors come back as errno values; the
// caller knows which file it was and says so.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sys/fd.h"

namespace eb::sys {

// 0, or the errno of the first failure.
int write_all(int fd, const void* data, size_t n);
inline int write_all(int fd, std::string_view s) { return write_all(fd, s.data(), s.size()); }
// The same at an offset (pwrite): for files patched in place.
int pwrite_all(int fd, const void* data, size_t n, uint64_t off);

// Opens `path` for reading if it is a regular file. A FIFO is not waited on
// (the open does not block) and a device, socket or directory is not read:
// std::runtime_error "PATH: not a regular file" (or "cannot read PATH: why").
Fd open_regular(const std::string& path);
// The whole of such a file.
std::string read_regular(const std::string& path);

struct Pipe {
    Fd read;
    Fd write;
};
// A close-on-exec pipe; throws std::system_error.
Pipe make_pipe();

} // namespace eb::sys

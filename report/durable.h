// After an atomic rename, the new directory entry is only durable once the
// directory itself is fsync'ed: without it a crash can bring back the old
// file, or none. Header-only, so the trace writer shares it.
#pragma once
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace eb::report {

// 0, or the errno of the failure. Filesystems that cannot fsync a directory
// (EINVAL) count as success: there is nothing more to do there.
inline int fsync_parent_dir(const std::string& path) {
    std::filesystem::path p(path);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    int e = ::fsync(fd) < 0 && errno != EINVAL ? errno : 0;
    ::close(fd);
    return e;
}

} // namespace eb::report

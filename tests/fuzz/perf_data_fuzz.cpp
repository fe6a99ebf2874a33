// libFuzzer target: any bytes given to the perf.data reader as a file
// (ingest/perf_file.h, perf_tracing.h through libtraceevent, the import's
// ordering) must be read or refused with an InputError or HostError: no
// crash, hang, out-of-bounds read or allocation past -rss_limit_mb. Seeds:
// small files perf_data_gen cut from the real fixture (plain, pipe, zstd).
#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "ingest/perf_data.h"
#include "sys/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const int fd = memfd_create("perf_data_fuzz", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) __builtin_trap();
    try {
        eb::ingest::import_perf_data("/proc/self/fd/" + std::to_string(fd), "/dev/null");
    } catch (const eb::InputError&) {
    } catch (const eb::HostError&) {
    }
    return 0;
}

#include "ingest/input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "sys/error.h"

namespace eb::ingest {

std::string read_input_file(const std::string& path, size_t max_bytes, std::string_view what) {
    std::error_code ec;
    auto st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st)) throw InputError(fmt::format("cannot read {}: no such file", path));
    if (!std::filesystem::is_regular_file(st)) throw InputError(fmt::format("{}: not a regular file", path));
    auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes)
        throw InputError(fmt::format("{}: {} bytes is too big for a {} (at most {} MiB)", path, size, what,
                                     max_bytes >> 20));
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) throw InputError(fmt::format("cannot read {}: I/O error", path));
    return text;
}

} // namespace eb::ingest

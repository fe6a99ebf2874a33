// The guest ELF's symbol table, embedded beside the image (nm -S at build
// time): where each body's batch loop lies, so a trace can be filtered on the
// RIP of the body's own instruction (kvm_emulate_insn on software backends).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vmm/image.h"

namespace eb::vmm {

struct CodeRange {
    uint64_t begin = 0, end = 0;  // guest addresses, end exclusive
};

// `nm -S --defined-only` lines ("ADDR SIZE TYPE NAME") to each body's batch
// function (eb_batch_NAME, mangled or not), by body name. Malformed lines
// are skipped.
std::map<std::string, CodeRange, std::less<>> parse_batch_symbols(std::string_view nm);
const std::map<std::string, CodeRange, std::less<>>& embedded_batch_symbols();

// Guest addresses inside `r` where `bytes` occur in the image.
std::vector<uint64_t> find_code(const GuestImage& img, CodeRange r, std::span<const uint8_t> bytes);

} // namespace eb::vmm

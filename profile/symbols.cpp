#include "profile/symbols.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <fstream>
#include <link.h>
#include <memory>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#include "sys/fd.h"

namespace eb::profile {

namespace {

bool pread_all(int fd, void* buf, size_t n, uint64_t off) {
    auto* p = static_cast<char*>(buf);
    while (n) {
        ssize_t got = pread(fd, p, n, static_cast<off_t>(off));
        if (got <= 0) return false;
        p += got;
        n -= static_cast<size_t>(got);
        off += static_cast<uint64_t>(got);
    }
    return true;
}

// The functions of one symbol section and its string table.
void add_functions(int fd, const Elf64_Shdr& sym, const Elf64_Shdr& str, SymbolTable& out) {
    constexpr uint64_t kMaxBytes = 1ull << 30;  // a corrupt size must not allocate without bound
    if (sym.sh_entsize != sizeof(Elf64_Sym) || sym.sh_size > kMaxBytes || str.sh_size > kMaxBytes) return;
    std::vector<Elf64_Sym> syms(sym.sh_size / sizeof(Elf64_Sym));
    std::string strings(str.sh_size, '\0');
    if (!pread_all(fd, syms.data(), syms.size() * sizeof(Elf64_Sym), sym.sh_offset) ||
        !pread_all(fd, strings.data(), strings.size(), str.sh_offset))
        return;
    for (const auto& s : syms) {
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0 || s.st_name >= strings.size()) continue;
        out.add({s.st_value, s.st_size, demangle(strings.c_str() + s.st_name)});
    }
}

std::string basename_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The main program's load bias (0 for a non-PIE executable).
uint64_t main_program_bias() {
    uint64_t bias = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            *static_cast<uint64_t*>(out) = info->dlpi_addr;
            return 1;  // the first object is the main program
        },
        &bias);
    return bias;
}

} // namespace

void SymbolTable::sort() {
    std::sort(syms_.begin(), syms_.end(), [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
}

const SymbolTable::Symbol* SymbolTable::find(uint64_t addr) const {
    auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                               [](uint64_t a, const Symbol& s) { return a < s.addr; });
    if (it == syms_.begin()) return nullptr;
    const Symbol& s = *std::prev(it);
    if (s.size) return addr < s.addr + s.size ? &s : nullptr;
    // Without a size (kallsyms), up to the next symbol, but not across a gap
    // so large it is surely no longer the same function.
    constexpr uint64_t kMaxFunction = 1ull << 20;
    return addr - s.addr < kMaxFunction ? &s : nullptr;
}

KernelSymbols parse_kallsyms(std::istream& in) {
    KernelSymbols k;
    std::string line;
    bool any_nonzero = false;
    size_t lines = 0;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string addr, type, name, module;
        if (!(ls >> addr >> type >> name) || type.size() != 1) continue;
        ++lines;
        uint64_t a = 0;
        auto [p, ec] = std::from_chars(addr.data(), addr.data() + addr.size(), a, 16);
        if (ec != std::errc() || p != addr.data() + addr.size()) continue;
        any_nonzero = any_nonzero || a != 0;
        char t = static_cast<char>(std::tolower(static_cast<unsigned char>(type[0])));
        if (t != 't' && t != 'w') continue;  // functions only: data would claim code addresses
        if (ls >> module) name += " " + module;
        k.table.add({a, 0, std::move(name)});
    }
    k.hidden = lines > 0 && !any_nonzero;
    if (k.hidden) k.table = SymbolTable{};
    k.table.sort();
    return k;
}

SymbolTable read_elf_functions(const std::string& path) {
    SymbolTable t;
    sys::Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    Elf64_Ehdr eh{};
    if (fd.get() < 0 || !pread_all(fd.get(), &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
        return t;
    std::vector<Elf64_Shdr> sh(eh.e_shnum);
    if (!pread_all(fd.get(), sh.data(), sh.size() * sizeof(Elf64_Shdr), eh.e_shoff)) return t;
    for (uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (const auto& s : sh)
            if (s.sh_type == want && s.sh_link < sh.size()) add_functions(fd.get(), s, sh[s.sh_link], t);
        if (t.size()) break;
    }
    t.sort();
    return t;
}

std::string demangle(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                    &std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

Symbolizer Symbolizer::for_this_process() {
    std::ifstream kallsyms("/proc/kallsyms");
    Symbolizer s(parse_kallsyms(kallsyms), read_elf_functions("/proc/self/exe"), main_program_bias());
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) s.self_path_.assign(exe, static_cast<size_t>(n));
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        uint64_t lo = 0, hi = 0;
        char perms[8] = {};
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &path_at) < 3) continue;
        if (perms[2] != 'x' || path_at <= 0) continue;
        s.maps_.push_back({lo, hi, line.substr(static_cast<size_t>(path_at))});
    }
    return s;
}

Symbolizer::Symbolizer(KernelSymbols kernel, SymbolTable self, uint64_t self_bias)
    : kernel_(std::move(kernel)), self_(std::move(self)), self_bias_(self_bias) {}

std::string Symbolizer::kernel(uint64_t addr) {
    auto [it, fresh] = cache_kernel_.try_emplace(addr);
    if (!fresh) return it->second;
    if (const auto* s = kernel_.table.find(addr)) it->second = s->name;
    else {
        it->second = kernel_.hidden ? "[kernel: names hidden]" : "[kernel: no symbol]";
        ++kernel_misses_;
    }
    return it->second;
}

std::string Symbolizer::user(uint64_t addr) {
    auto [it, fresh] = cache_user_.try_emplace(addr);
    if (!fresh) return it->second;
    const Mapping* m = nullptr;
    for (const auto& mp : maps_)
        if (addr >= mp.lo && addr < mp.hi) m = &mp;
    if (m && !self_path_.empty() && m->path == self_path_) {
        const auto* s = self_.find(addr - self_bias_);
        if (!s) ++self_misses_;
        it->second = s ? s->name : "[exitbench: no symbol]";
    } else {
        it->second = m && !m->path.empty() ? "[" + basename_of(m->path) + "]" : "[user: unmapped]";
    }
    return it->second;
}

std::vector<std::string> Symbolizer::notes() const {
    std::vector<std::string> out;
    if (kernel_.hidden)
        out.push_back("kernel symbol addresses are hidden (/proc/kallsyms reads 0: kernel.kptr_restrict, or no "
                      "CAP_SYSLOG); kernel frames show as [kernel: names hidden]");
    else if (kernel_.table.size() == 0)
        out.push_back("no kernel symbols could be read from /proc/kallsyms; kernel frames show as "
                      "[kernel: no symbol]");
    else if (kernel_misses_)
        out.push_back(fmt::format("{} kernel address(es) fell outside every symbol: [kernel: no symbol]",
                                  kernel_misses_));
    if (self_.size() == 0)
        out.push_back("exitbench's own ELF has no symbol table (stripped): its frames show as "
                      "[exitbench: no symbol]");
    else if (self_misses_)
        out.push_back(fmt::format("{} exitbench address(es) had no symbol: [exitbench: no symbol]", self_misses_));
    return out;
}

} // namespace eb::profile

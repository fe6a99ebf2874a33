// Names for the addresses a host sample's call chain holds: the kernel's
// (and its modules', e.g. [kvm_amd]) from /proc/kallsyms, exitbench's own
// from its ELF symbol table, demangled; other user code by the file mapped
// there. An address without a name is named as such ("[kernel: no symbol]"),
// never printed as if it were a name.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

namespace eb::profile {

// Address-sorted function symbols; lookup by binary search.
class SymbolTable {
public:
    struct Symbol {
        uint64_t addr = 0, size = 0;  // size 0: up to the next symbol
        std::string name;
    };
    void add(Symbol s) { syms_.push_back(std::move(s)); }
    void sort();  // once, after the last add()
    // The symbol covering `addr`, or nullptr.
    const Symbol* find(uint64_t addr) const;
    size_t size() const { return syms_.size(); }

private:
    std::vector<Symbol> syms_;
};

struct KernelSymbols {
    SymbolTable table;
    bool hidden = false;  // every address read as 0: kptr_restrict (or no CAP_SYSLOG) hides them
};
// /proc/kallsyms' format: "ADDR TYPE NAME[\t[MODULE]]"; text symbols only,
// a module's named "name [module]".
KernelSymbols parse_kallsyms(std::istream& in);

// The function symbols (.symtab, else .dynsym) of the ELF file `path`, at
// their link-time addresses; empty when the file has neither. Throws nothing.
SymbolTable read_elf_functions(const std::string& path);

// A demangled C++ name, or `name` itself when it is not a mangled one.
std::string demangle(const std::string& name);

class Symbolizer {
public:
    // This process: /proc/kallsyms, /proc/self/exe and /proc/self/maps.
    static Symbolizer for_this_process();
    Symbolizer(KernelSymbols kernel, SymbolTable self, uint64_t self_bias);

    std::string kernel(uint64_t addr);
    std::string user(uint64_t addr);
    // What hid names, one line each (empty when nothing did).
    std::vector<std::string> notes() const;

private:
    struct Mapping {
        uint64_t lo, hi;
        std::string path;
    };
    KernelSymbols kernel_;
    SymbolTable self_;
    uint64_t self_bias_;
    std::vector<Mapping> maps_;  // executable mappings
    std::string self_path_;
    std::unordered_map<uint64_t, std::string> cache_kernel_, cache_user_;
    uint64_t kernel_misses_ = 0, self_misses_ = 0;
};

} // namespace eb::profile

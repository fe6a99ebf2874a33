// The KVM modules as a host has them: /sys/module for what is loaded, its
// parameters, its refcount and holders, and modprobe/rmmod to load and
// unload. The module A/B (lab/module_ab.h) goes through this interface, so
// its whole path (refusals, order, restore) runs in unit tests on a fake.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace eb::lab {

using ModuleParams = std::vector<std::pair<std::string, std::string>>;  // by name, as sysfs shows them

// "npt=Y nested=1": the parameters as one line, as modprobe takes them.
std::string param_words(const ModuleParams& p);

class ModuleHost {
public:
    virtual ~ModuleHost() = default;
    // Loaded as a module (a built-in one cannot be reloaded: false, with `builtin`).
    virtual bool loaded(const std::string& module) const = 0;
    virtual bool builtin(const std::string& module) const = 0;
    // Its readable parameters and their values, sorted by name.
    virtual ModuleParams params(const std::string& module) const = 0;
    // The parameters it has: those sysfs shows, and those modinfo lists.
    virtual std::set<std::string> known(const std::string& module) const = 0;
    // Writable at run time (its /sys/module file has the owner's w bit).
    virtual bool writable(const std::string& module, const std::string& param) const = 0;
    virtual int refcount(const std::string& module) const = 0;  // -1 when unknown
    virtual std::vector<std::string> holders(const std::string& module) const = 0;
    // Each throws HostError with the tool's or the kernel's one line.
    virtual void write(const std::string& module, const std::string& param, const std::string& value) = 0;
    virtual void unload(const std::string& module) = 0;
    virtual void load(const std::string& module, const std::vector<std::string>& params) = 0;
    // A new identity for a load: random, never seen before.
    virtual std::string new_load_id() = 0;
};

// This host's: `sysfs` is /sys/module, modprobe and rmmod come from PATH.
std::unique_ptr<ModuleHost> system_modules(const std::string& sysfs = "/sys/module");

// Whether a parameter reads back as asked: booleans as Y/N whatever the
// spelling asked (1, y, on ...), integers by value, anything else as text.
bool reads_as(const std::string& asked, const std::string& shown);

} // namespace eb::lab

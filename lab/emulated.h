// --emulated, the use case's half: where no /dev/kvm can be used (or where a
// real kvm_amd's code path is wanted on a kvm_pvm host), a command runs in a
// boot of an installed kernel under QEMU TCG with an SVM CPU (lab/boot.h),
// and its figures are labelled emulated wherever they go.
#pragma once
#include <string>
#include <vector>

namespace eb::lab {

// The newest /boot/vmlinuz-V that has its modules in /lib/modules/V, or "".
std::string installed_kernel();

// What a host without a usable /dev/kvm can do instead, one clause for the
// error line: `COMMAND --emulated` with the kernel it would boot, or the
// Debian packages it lacks (linux-image-amd64, qemu-system-x86).
std::string emulated_way(const std::vector<std::string>& argv);

// The kernel --emulated boots: `asked` (--kernel) or installed_kernel();
// throws InputError naming the package when there is none.
std::string emulation_kernel(const std::string& asked);

} // namespace eb::lab

// Which exitbench built this binary. Defined in a file generated at configure
// time (build/version.cpp), so a new commit recompiles that one file only.
#pragma once

namespace eb::lab {

const char* version();       // the project's version, e.g. "0.1.0"
const char* git_describe();  // `git describe --dirty` of the tree, or "" outside git

} // namespace eb::lab

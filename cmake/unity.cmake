# Unity batches (EB_UNITY, which ./dev turns on): each host library and test
# binary compiles its files in batches of eight, so the heavy headers (fmt,
# nlohmann-json, CLI11, GoogleTest, Boost.Math) are parsed once per batch
# instead of once per file.
#
# Why not CMake's own UNITY_BUILD: its batch files include every source by
# its absolute path, so the same tree cloned into another folder preprocesses
# to other text and misses the compiler cache (CI builds a fresh clone). These
# batches name each source relative to the source tree, found through -I, so
# every clone's batch is the same file and ccache (BASEDIR) hits.
#
# Left one by one: the guest (freestanding, its own flags), generated files,
# files with flags of their own, and any file marked SKIP_UNITY_BUILD_INCLUSION
# (for example, one whose file-scope names clash with another's).
set(EB_UNITY_BATCH_SIZE 8)
# The tree the batches name their files from.
set(EB_UNITY_ROOT ${CMAKE_SOURCE_DIR})
cmake_path(NORMAL_PATH EB_UNITY_ROOT)

# Every target defined in DIR and below, but the guest's.
function(eb_collect_targets dir out)
  get_property(found DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    if(NOT sub STREQUAL "${CMAKE_SOURCE_DIR}/guest")
      eb_collect_targets(${sub} more)
      list(APPEND found ${more})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The target's sources a batch may take, as paths relative to the source tree.
function(eb_batchable_sources target out)
  get_target_property(srcs ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(picked)
  foreach(src IN LISTS srcs)
    if(NOT src MATCHES "\\.cpp$")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${dir} NORMALIZE OUTPUT_VARIABLE abs)
    cmake_path(IS_PREFIX EB_UNITY_ROOT ${abs} NORMALIZE in_tree)
    cmake_path(IS_PREFIX CMAKE_BINARY_DIR ${abs} NORMALIZE generated)
    get_source_file_property(opts ${abs} TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
    get_source_file_property(skip ${abs} TARGET_DIRECTORY ${target} SKIP_UNITY_BUILD_INCLUSION)
    if(in_tree AND NOT generated AND NOT opts AND NOT skip)
      file(RELATIVE_PATH rel ${EB_UNITY_ROOT} ${abs})
      list(APPEND picked ${rel})
    endif()
  endforeach()
  set(${out} ${picked} PARENT_SCOPE)
endfunction()

# Replaces TARGET's batchable sources by batch files that include them.
function(eb_unity_target target)
  eb_batchable_sources(${target} rels)
  list(LENGTH rels count)
  if(count LESS 2)
    return()
  endif()
  set(batches)
  set(content "")
  set(in_batch 0)
  # A batch holds one directory's files, in the target's order, so file-scope
  # names that clash across directories never meet.
  set(rels_left ${rels})
  foreach(rel IN LISTS rels)
    string(APPEND content "#include \"${rel}\"\n")
    math(EXPR in_batch "${in_batch} + 1")
    list(POP_FRONT rels_left)
    set(next_dir "")
    if(rels_left)
      list(GET rels_left 0 next)
      string(REGEX REPLACE "/.*" "" next_dir "${next}")
    endif()
    string(REGEX REPLACE "/.*" "" dir "${rel}")
    if(in_batch EQUAL EB_UNITY_BATCH_SIZE OR NOT next_dir STREQUAL dir)
      list(LENGTH batches n)
      set(file ${CMAKE_BINARY_DIR}/unity/${target}_${n}.cpp)
      # Rewritten only when its list changes, so a reconfigure rebuilds nothing.
      file(CONFIGURE OUTPUT ${file} CONTENT "${content}" @ONLY)
      list(APPEND batches ${file})
      set(content "")
      set(in_batch 0)
    endif()
  endforeach()
  list(TRANSFORM rels PREPEND ${EB_UNITY_ROOT}/ OUTPUT_VARIABLE abs)
  set_source_files_properties(${abs} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${batches})
  target_include_directories(${target} PRIVATE ${EB_UNITY_ROOT})
endfunction()

function(eb_unity_batches)
  eb_collect_targets(${CMAKE_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "EXECUTABLE")
      eb_unity_target(${target})
    endif()
  endforeach()
endfunction()

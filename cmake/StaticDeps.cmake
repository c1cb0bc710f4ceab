# Every sweep process (the tuner, each runner, each CLI read) loads
# protobuf, yaml-cpp, SQLite and OpenBLAS. Linked as shared libraries, the
# dynamic loader's symbol lookups were half of a process's start (about 6 of
# 12 ms, bench/RESULTS.md), paid three times before a sweep's first trial.
# With SWEEP_STATIC_DEPS (the default) they come from the static archives
# Debian ships next to the shared ones; a missing archive falls back to the
# shared library. libstdc++, libgomp and libzmq stay shared (libzmq's archive
# drags in ICU and libxml2; the CUDA module shares libstdc++ with sweep).
option(SWEEP_STATIC_DEPS "Link protobuf, yaml-cpp, SQLite and OpenBLAS statically" ON)

# Points an imported target at lib<name>.a, for every configuration.
function(sweep_link_archive target name)
  find_library(_archive NAMES lib${name}.a NO_CACHE)
  if(NOT _archive)
    message(STATUS "sweep: no lib${name}.a; linking ${target} shared")
    return()
  endif()
  get_target_property(_configs ${target} IMPORTED_CONFIGURATIONS)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${_archive}")
  if(_configs)
    foreach(c IN LISTS _configs)
      set_target_properties(${target} PROPERTIES IMPORTED_LOCATION_${c} "${_archive}")
    endforeach()
  endif()
  set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${ARGN})
endfunction()

set(OPENBLAS_DEPS "")
if(SWEEP_STATIC_DEPS)
  find_package(ZLIB REQUIRED)
  sweep_link_archive(protobuf::libprotobuf protobuf ZLIB::ZLIB Threads::Threads)
  sweep_link_archive(yaml-cpp yaml-cpp)
  sweep_link_archive(SQLite::SQLite3 sqlite3 Threads::Threads ${CMAKE_DL_LIBS} m)
  find_library(_openblas_a NAMES libopenblas.a NO_CACHE)
  find_library(_gfortran NAMES gfortran libgfortran.so.5 NO_CACHE)
  if(_openblas_a AND _gfortran)
    # A normal variable: find_library(OPENBLAS_LIB) in nn/ then keeps it
    # (CMP0125), and a later SWEEP_STATIC_DEPS=OFF finds the shared one.
    set(OPENBLAS_LIB "${_openblas_a}")
    set(OPENBLAS_DEPS "${_gfortran};Threads::Threads;m")
  endif()
  message(STATUS "sweep: static protobuf, yaml-cpp, SQLite and OpenBLAS (SWEEP_STATIC_DEPS)")
endif()

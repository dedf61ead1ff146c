# Cross-compiling for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix).
# The -posix compilers: the -win32 ones have no std::thread, which the engine needs.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(LEADER_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${LEADER_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${LEADER_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${LEADER_MINGW_TRIPLET}-windres)

# Libraries and headers come from the MinGW-w64 sysroot only; programs (the build's own tools)
# from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${LEADER_MINGW_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The GCC runtime (libstdc++, libgcc, winpthread) linked in: a test program runs under Wine, or
# on a Windows machine, without MinGW's DLLs beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")


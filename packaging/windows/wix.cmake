# `cpack -G WIX` in a Windows build tree (see packaging/README.md): an MSI that installs the three
# tools under Program Files\Leader Console, the Qt runtime windeployqt gathers beside them, a
# PostgreSQL server for the embedded demo, and a Start-menu shortcut. Included by cpack.cmake on
# Windows only.

# The unpacked PostgreSQL Windows binaries (the EDB "zip archive": bin\, lib\, share\). Installed as
# lib\postgresql\<major>\, where the engine looks first for a bundled server (<exe>\..\lib\
# postgresql\*\bin); its bin\ also carries the libpq.dll the console and the tools load.
set(LEADER_WINDOWS_POSTGRES_DIR "" CACHE PATH
    "Unpacked PostgreSQL Windows binaries (holding bin\\initdb.exe) to bundle for the demo")
if(NOT EXISTS "${LEADER_WINDOWS_POSTGRES_DIR}/bin/initdb.exe")
    message(FATAL_ERROR "The MSI bundles a PostgreSQL server for the demo: set "
            "-DLEADER_WINDOWS_POSTGRES_DIR to the unpacked PostgreSQL Windows binaries "
            "(the folder holding bin\\initdb.exe)")
endif()
file(STRINGS "${LEADER_WINDOWS_POSTGRES_DIR}/share/postgres.bki" leader_pg_catalog_version
     REGEX "^# PostgreSQL [0-9]+" LIMIT_COUNT 1)
string(REGEX MATCH "[0-9]+" leader_pg_major "${leader_pg_catalog_version}")
if(NOT leader_pg_major)
    message(FATAL_ERROR "${LEADER_WINDOWS_POSTGRES_DIR}/share/postgres.bki names no PostgreSQL "
            "version: is this an unpacked PostgreSQL?")
endif()
foreach(part bin lib share)
    install(DIRECTORY "${LEADER_WINDOWS_POSTGRES_DIR}/${part}/"
            DESTINATION "lib/postgresql/${leader_pg_major}/${part}"
            PATTERN "pgAdmin*" EXCLUDE PATTERN "*.pdb" EXCLUDE)
endforeach()
# libpq.dll and the OpenSSL, ICU and gettext DLLs it needs, beside the tools that load them.
install(DIRECTORY "${LEADER_WINDOWS_POSTGRES_DIR}/bin/" DESTINATION bin
        FILES_MATCHING PATTERN "libpq.dll" PATTERN "libssl*.dll" PATTERN "libcrypto*.dll"
        PATTERN "libintl*.dll" PATTERN "libiconv*.dll" PATTERN "icu*.dll" PATTERN "zlib*.dll"
        PATTERN "liblz4*.dll" PATTERN "libzstd*.dll" PATTERN "libwinpthread*.dll")

# windeployqt copies the Qt DLLs and the plugins the console loads (platforms\qwindows,
# imageformats, styles, sqldrivers\qsqlite for the status history) next to the installed
# leader-console.exe, at install time, so they enter the MSI through the same staging directory.
find_program(LEADER_WINDEPLOYQT windeployqt HINTS "${QT6_INSTALL_PREFIX}/${QT6_INSTALL_BINS}"
             REQUIRED)
install(CODE "
    execute_process(COMMAND \"${LEADER_WINDEPLOYQT}\" --release --no-translations
                            --no-system-d3d-compiler --no-opengl-sw
                            \"\${CMAKE_INSTALL_PREFIX}/bin/leader-console.exe\"
                    COMMAND_ERROR_IS_FATAL ANY)
")
# The MSVC runtime the Qt and PostgreSQL DLLs need too.
set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION bin)
include(InstallRequiredSystemLibraries)

set(CPACK_GENERATOR "WIX")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Leader Console")
set(CPACK_PACKAGE_EXECUTABLES "leader-console" "Leader Console")
set(CPACK_WIX_PROGRAM_MENU_FOLDER "Leader Console")
set(CPACK_WIX_PRODUCT_ICON "${CMAKE_SOURCE_DIR}/resources/windows/leader-console.ico")
# Never change the upgrade code: it is how a newer MSI finds and replaces an installed one. The
# product code is fixed per version (derived from it), so rebuilding a release gives the same MSI
# identity while each new version is a major upgrade.
set(CPACK_WIX_UPGRADE_GUID "AB8FACB9-B111-4905-A8F0-BA61EDABF235")
string(UUID CPACK_WIX_PRODUCT_GUID NAMESPACE "${CPACK_WIX_UPGRADE_GUID}"
       NAME "leader-console ${PROJECT_VERSION}" TYPE SHA1 UPPER)
set(CPACK_WIX_PROPERTY_ARPURLINFOABOUT "https://hardcount.invalid/leader-console")
set(CPACK_WIX_PROPERTY_ARPCOMMENTS "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}")

# `cpack -G DEB` in a build tree: the three binaries, the desktop entry, icons and metainfo, with
# Debian's own Qt 6, libpq and PostgreSQL packages as dependencies (the demo starts the system's
# PostgreSQL server binaries; Qt's SQLite driver keeps the status history on disk). On Windows,
# windows/wix.cmake makes it `cpack -G WIX`: an MSI.
set(CPACK_PACKAGE_NAME "leader-console")
set(CPACK_PACKAGE_VENDOR "Hardcount")
set(CPACK_PACKAGE_CONTACT "Leader Console maintainers <leader-console@hardcount.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Database-row leader leases: console with failover demo, leader-replica, leaderctl")
set(CPACK_PACKAGE_DESCRIPTION
    "Leader Console shows who leads each singleton role from leader_status, charts how stale each\n"
    "is, pauses and unpauses roles, and runs an embedded demo (private PostgreSQL cluster, three\n"
    "replicas, fault injection). leader-replica runs the five roles as a process; leaderctl is the\n"
    "operator's command line.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
if(WIN32)
    include(${CMAKE_CURRENT_LIST_DIR}/windows/wix.cmake)
    include(CPack)
    return()
endif()
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "database")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "amd64")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, libstdc++6, libpq5, libqt6core6, libqt6gui6, libqt6widgets6, libqt6charts6, \
libqt6keychain1, libqt6opengl6, libqt6openglwidgets6, libqt6sql6, \
libqt6sql6-sqlite, postgresql")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pgbouncer, qt6-gtk-platformtheme")
set(CPACK_STRIP_FILES ON)
include(CPack)

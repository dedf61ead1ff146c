# Builds LeaderConsole-tools-<version>-x64.msi with Debian's wixl (msitools), in script mode:
#   cmake -DBIN_DIR=build/windows-cross/bin -DVERSION=0.1.0 -DOUTPUT_DIR=DIR \
#         -P packaging/windows/tools-msi.cmake
# BIN_DIR holds leaderctl.exe, leader-replica.exe, libpq.dll and the DLLs it loads (the windows-cross
# build with LEADER_WINDOWS_PG_BINDIR puts them there): every .exe and .dll in it is packed.
# The upgrade code is fixed (never change it: a newer MSI finds an installed older one by it and
# replaces it); the product code is derived from the version, so a rebuild of one version is the
# same product and each new version a major upgrade; each file's component GUID is derived from
# its name, the same in every version, as Windows Installer wants of a component.
cmake_minimum_required(VERSION 3.22)
foreach(variable BIN_DIR VERSION OUTPUT_DIR)
    if(NOT ${variable})
        message(FATAL_ERROR "tools-msi.cmake: -D${variable}=... is missing")
    endif()
endforeach()
if(NOT VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
    message(FATAL_ERROR "tools-msi.cmake: VERSION must be MAJOR.MINOR.PATCH, not \"${VERSION}\"")
endif()
find_program(WIXL wixl)
if(NOT WIXL)
    message(FATAL_ERROR "tools-msi.cmake: wixl is missing (Debian's wixl package; "
            "scripts/setup-deps.sh installs it)")
endif()
file(REAL_PATH "${BIN_DIR}" BIN_DIR)
foreach(tool leaderctl.exe leader-replica.exe libpq.dll)
    if(NOT EXISTS "${BIN_DIR}/${tool}")
        message(FATAL_ERROR "tools-msi.cmake: ${BIN_DIR}/${tool} is missing: build the "
                "windows-cross preset with LEADER_WINDOWS_PG_BINDIR (scripts/windows-cross.sh)")
    endif()
endforeach()

set(LEADER_MSI_UPGRADE_CODE "6C0D3F52-8A47-4C1B-9E25-3B7A1D0E94C6")
set(LEADER_MSI_VERSION ${VERSION})
string(UUID LEADER_MSI_PRODUCT_CODE NAMESPACE ${LEADER_MSI_UPGRADE_CODE}
       NAME "product ${VERSION}" TYPE SHA1 UPPER)
string(UUID LEADER_MSI_MENU_GUID NAMESPACE ${LEADER_MSI_UPGRADE_CODE}
       NAME "component start-menu prompt" TYPE SHA1 UPPER)

file(MAKE_DIRECTORY "${OUTPUT_DIR}")
file(REAL_PATH "${OUTPUT_DIR}" OUTPUT_DIR)
file(GLOB files RELATIVE "${BIN_DIR}" "${BIN_DIR}/*.exe" "${BIN_DIR}/*.dll")
list(SORT files)
set(LEADER_MSI_FILE_COMPONENTS "")
set(LEADER_MSI_COMPONENT_REFS "")
foreach(file ${files})
    string(MAKE_C_IDENTIFIER "f_${file}" id)
    string(UUID guid NAMESPACE ${LEADER_MSI_UPGRADE_CODE} NAME "component ${file}" TYPE SHA1
           UPPER)
    # wixl takes a file's Source relative to the .wxs file's folder only.
    file(RELATIVE_PATH source "${OUTPUT_DIR}" "${BIN_DIR}/${file}")
    string(APPEND LEADER_MSI_FILE_COMPONENTS
           "          <Component Id=\"${id}\" Guid=\"${guid}\" Win64=\"yes\">\n"
           "            <File Id=\"${id}\" Name=\"${file}\" Source=\"${source}\" KeyPath=\"yes\"/>\n"
           "          </Component>\n")
    string(APPEND LEADER_MSI_COMPONENT_REFS "      <ComponentRef Id=\"${id}\"/>\n")
endforeach()

set(wxs "${OUTPUT_DIR}/LeaderConsole-tools-${VERSION}-x64.wxs")
set(msi "${OUTPUT_DIR}/LeaderConsole-tools-${VERSION}-x64.msi")
configure_file("${CMAKE_CURRENT_LIST_DIR}/tools.wxs.in" "${wxs}" @ONLY)
execute_process(COMMAND "${WIXL}" --arch x64 -o "${msi}" "${wxs}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "tools-msi.cmake: wixl failed (${status}) on ${wxs}")
endif()
message(STATUS "${msi}")

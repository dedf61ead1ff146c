cmake_minimum_required(VERSION 3.22)
# The console's folders in layers: ui/ -> models/ -> core/ -> engine (docs/architecture.md).
#   core/    no models/ or ui/ header, no QtGui, QtWidgets or QtCharts header; its headers include
#            no engine header but its private ones (below), which models/ and ui/ may not include.
#   models/  no ui/ header and no engine header.
#   ui/      no engine header.
# The build holds the engine arrow too (console_core links the engine privately, tests/app/layers);
# this check names every offending line, core's headers included, without compiling.
# Checked once on a copy of app/ with wrong includes added (lease/roles.h in models/tones.cpp,
# ui/theme.h and <QColor> in core/timerule.h, schema/features.h in core/pauselog.h,
# core/demoengine.h in ui/theme.cpp): it failed, naming each file and line.
# Run: cmake -DDIR=<app> "-DQT_DIRS=<the include directories of QtGui, QtWidgets and QtCharts,
#      separated by |>" -P check_layers.cmake
set(engine_folders pg lease log metrics monitor scheduler schema platform roles replica demo
    embedded faults baseline)
# Core's own headers that carry engine types (conversions): only core's sources include them.
set(core_private demoengine.h)
set(forbidden_core models ui)
set(forbidden_models ui ${engine_folders})
set(forbidden_ui ${engine_folders})

# The headers of QtGui, QtWidgets and QtCharts, by name (<QWidget>, <QColor>, <QChart>), so that a
# class header is caught as well as a module-prefixed one (<QtWidgets/QWidget>).
set(gui_headers "")
string(REPLACE "|" ";" qt_dirs "${QT_DIRS}")
foreach(dir IN LISTS qt_dirs)
    if(dir MATCHES "/Qt(Gui|Widgets|Charts)$")
        file(GLOB names RELATIVE "${dir}" "${dir}/Q*")
        list(APPEND gui_headers ${names})
    endif()
endforeach()
if(NOT gui_headers)
    message(FATAL_ERROR "no QtGui, QtWidgets or QtCharts headers found in QT_DIRS: ${QT_DIRS}")
endif()

set(offenders "")
set(count 0)
foreach(folder IN ITEMS core models ui)
    file(GLOB sources "${DIR}/${folder}/*.h" "${DIR}/${folder}/*.cpp")
    list(LENGTH sources n)
    math(EXPR count "${count} + ${n}")
    foreach(source IN LISTS sources)
        file(RELATIVE_PATH relative "${DIR}" "${source}")
        get_filename_component(name "${source}" NAME)
        file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
        foreach(line IN LISTS includes)
            string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*" "\\1" path
                   "${line}")
            set(target "")
            if(path MATCHES "^([a-z_]+)/")
                set(target "${CMAKE_MATCH_1}")
            endif()
            if(target AND target IN_LIST forbidden_${folder})
                list(APPEND offenders "${relative}: ${folder}/ may not include ${target}/: ${line}")
            endif()
            if(folder STREQUAL "core")
                string(REGEX REPLACE "^Qt[A-Za-z]+/" "" class "${path}")
                if(path MATCHES "^Qt(Gui|Widgets|Charts)/" OR class IN_LIST gui_headers)
                    list(APPEND offenders "${relative}: core/ includes QtGui/QtWidgets: ${line}")
                endif()
                if(name MATCHES "\\.h$" AND NOT name IN_LIST core_private
                   AND target IN_LIST engine_folders)
                    list(APPEND offenders "${relative}: a core header with an engine one: ${line}")
                endif()
            elseif(path MATCHES "^core/(.*)$" AND CMAKE_MATCH_1 IN_LIST core_private)
                list(APPEND offenders "${relative}: core's private header: ${line}")
            endif()
        endforeach()
    endforeach()
endforeach()
if(offenders)
    list(JOIN offenders "\n" lines)
    message(FATAL_ERROR "app/ breaks its layers:\n${lines}")
endif()
message(STATUS "app/: ${count} files in their layers")

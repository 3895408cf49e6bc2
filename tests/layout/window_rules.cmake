# Issue 42's rules for the desktop app, as a test: ui/main_window.cpp only assembles panels
# and forwards intents (at most 300 lines), and app/ builds no QMessageBox and reaches into
# no window with findChild (dialogs are ui/ widgets that emit intents).
# Included from tests/layout/CMakeLists.txt it adds the test; the test runs this same file
# in script mode (cmake -DSOURCE_DIR=... -P window_rules.cmake).
if(NOT CMAKE_SCRIPT_MODE_FILE)
  add_test(NAME layout_window_rules
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_FILE})
  return()
endif()

set(most_lines 300)
file(READ "${SOURCE_DIR}/ui/main_window.cpp" window_source)
string(REGEX MATCHALL "\n" newlines "${window_source}")
list(LENGTH newlines window_lines)
set(problems "")
if(window_lines GREATER most_lines)
  string(APPEND problems "ui/main_window.cpp has ${window_lines} lines (at most ${most_lines})\n")
endif()

file(GLOB_RECURSE app_sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/app/*.cpp"
  "${SOURCE_DIR}/app/*.h")
foreach(path IN LISTS app_sources)
  file(STRINGS "${SOURCE_DIR}/${path}" hits REGEX "QMessageBox|findChild")
  foreach(hit IN LISTS hits)
    string(STRIP "${hit}" hit)
    string(APPEND problems "${path}: ${hit}\n")
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "Issue 42's window rules are broken:\n${problems}")
endif()
message(STATUS "ui/main_window.cpp: ${window_lines} lines; no QMessageBox or findChild in app/")

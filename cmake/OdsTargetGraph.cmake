# The build graph as CMake holds it, for scripts/check_links.py (the link_graph test): every
# target's type, folder, sources, include directories and direct links, written at the end of
# the configure step to ${CMAKE_BINARY_DIR}/ods_targets.txt, one "property<TAB>value" line each
# (values are CMake lists).

function(_ods_targets_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _ods_targets_under(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(ods_write_target_graph)
  _ods_targets_under(${PROJECT_SOURCE_DIR} targets)
  set(text "")
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(dir ${target} SOURCE_DIR)
    string(APPEND text "TARGET\t${target}\t${type}\t${dir}\n")
    foreach(property SOURCES INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES LINK_LIBRARIES
        INTERFACE_LINK_LIBRARIES)
      get_target_property(value ${target} ${property})
      if(value)
        string(APPEND text "${property}\t${value}\n")
      endif()
    endforeach()
  endforeach()
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/ods_targets.txt CONTENT "${text}" @ONLY)
endfunction()

cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL ods_write_target_graph)

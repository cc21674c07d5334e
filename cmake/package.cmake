# The installed library (included by the top-level CMakeLists.txt): librowjit.so (SONAME
# librowjit.so.0, only the rowjit:: namespace and the C API exported) and librowjit.a, both made
# of the four layers' objects; the public headers (what jit/api/engine.h and the other entry headers
# include, and nothing of LLVM); a CMake package (find_package(rowjit CONFIG) -> rowjit::rowjit,
# rowjit::rowjit_static) and pkg-config files: rowjit and rowjit-static for C++ (they carry
# -std=c++20; rowjit also an rpath to its lib folder), rowjit-c for C hosts of rowjit.h.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ROWJIT_LAYERS rowjit_kernels rowjit_runtime rowjit_ir rowjit_jit rowjit_capi)
set(ROWJIT_OBJECTS)
foreach(layer ${ROWJIT_LAYERS})
  list(APPEND ROWJIT_OBJECTS $<TARGET_OBJECTS:${layer}>)
endforeach()
set(ROWJIT_PUBLIC_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR}/rowjit)

# (The CLI owns the target name `rowjit`; the library is rowjit_shared, exported as rowjit::rowjit.)
add_library(rowjit_shared SHARED ${ROWJIT_OBJECTS})
set_target_properties(rowjit_shared PROPERTIES OUTPUT_NAME rowjit EXPORT_NAME rowjit VERSION ${PROJECT_VERSION}
                                               SOVERSION ${PROJECT_VERSION_MAJOR} LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# Every symbol outside the exported namespaces stays inside the library (its LLVM and standard
# library instantiations included); a reference the library cannot resolve fails its link.
target_link_options(rowjit_shared PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/rowjit.map -Wl,--no-undefined)
set_property(TARGET rowjit_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/rowjit.map)
target_link_libraries(rowjit_shared PUBLIC fmt::fmt Threads::Threads PRIVATE LLVM)
target_include_directories(rowjit_shared INTERFACE $<INSTALL_INTERFACE:${ROWJIT_PUBLIC_INCLUDE}>)

add_library(rowjit_static STATIC ${ROWJIT_OBJECTS})
set_target_properties(rowjit_static PROPERTIES OUTPUT_NAME rowjit ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
target_link_libraries(rowjit_static PUBLIC fmt::fmt Threads::Threads LLVM)
target_include_directories(rowjit_static INTERFACE $<INSTALL_INTERFACE:${ROWJIT_PUBLIC_INCLUDE}>)
foreach(target rowjit_shared rowjit_static)
  add_dependencies(${target} ${ROWJIT_LAYERS})
endforeach()

# The public headers: what the entry headers (jit/api/engine.h, ir/binder.h, ir/parser.h,
# runtime/builder.h, runtime/arrow_c.h, runtime/selection.h, runtime/string_array.h,
# ir/aggregate.h, ir/query.h, ir/top_k.h) include, found with `g++ -MM`; none includes LLVM (tools/consumer-test checks
# both by building against them).
set(ROWJIT_PUBLIC_HEADERS
    ir/aggregate.h ir/analysis.h ir/binder.h ir/expr.h ir/limits.h ir/parser.h ir/query.h ir/spec_key.h ir/top_k.h
    jit/api/engine.h jit/base/kernel_abi.h jit/base/target.h jit/cache/disk_cache.h jit/cache/kernel_cache.h
    jit/compile/compiler.h jit/exec/call.h jit/plan/planner.h jit/plan/route.h
    kernels/bitmap.h
    runtime/array.h runtime/arrow_c.h runtime/arrow_c_abi.h runtime/buffer.h runtime/builder.h runtime/environment.h
    runtime/selection.h runtime/status.h runtime/string_array.h runtime/types.h runtime/validity.h)
install(FILES ${PROJECT_SOURCE_DIR}/capi/rowjit.h DESTINATION ${ROWJIT_PUBLIC_INCLUDE})  # the C API
foreach(header ${ROWJIT_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${ROWJIT_PUBLIC_INCLUDE}/${dir})
endforeach()

install(TARGETS rowjit_shared rowjit_static EXPORT rowjitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT rowjitTargets NAMESPACE rowjit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rowjit)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/rowjitConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/rowjitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rowjit)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/rowjitConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/rowjitConfig.cmake ${CMAKE_BINARY_DIR}/rowjitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rowjit)

set(ROWJIT_LLVM_LIBDIR ${LLVM_LIBRARY_DIR})
foreach(pc rowjit rowjit-static rowjit-c)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
